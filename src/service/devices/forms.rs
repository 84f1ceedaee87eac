//! What a device registration and its answers look like on the wire.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// A kind of feed item a device may be pushed.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PushKind {
    YourTurn,
    DeadlineNear,
    GameFinished,
    GameStarted,
    GameCancelled,
    PlayerJoined,
    /// Someone invited the account to a game.
    Invited,
}

impl PushKind {
    pub(super) fn name(self) -> &'static str {
        match self {
            PushKind::YourTurn => "your_turn",
            PushKind::DeadlineNear => "deadline_near",
            PushKind::GameFinished => "game_finished",
            PushKind::GameStarted => "game_started",
            PushKind::GameCancelled => "game_cancelled",
            PushKind::PlayerJoined => "player_joined",
            PushKind::Invited => "invited",
        }
    }
}

/// The language of a push's text.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    #[default]
    En,
    De,
}

/// The keys of a Web Push subscription (`PushSubscription.toJSON().keys`), base64url.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct WebPushKeys {
    /// The browser's P-256 public key (65 bytes, uncompressed), base64url.
    #[schema(min_length = 86, max_length = 88, pattern = "^[A-Za-z0-9_-]+={0,2}$")]
    pub p256dh: String,
    /// The 16-byte authentication secret, base64url.
    #[schema(min_length = 22, max_length = 24, pattern = "^[A-Za-z0-9_-]+={0,2}$")]
    pub auth: String,
}

/// A browser's Web Push subscription (RFC 8030, RFC 8291), as `PushSubscription.toJSON()`
/// gives it.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct WebPushSubscription {
    /// The push service's URL for this subscription: https (plain http only on a server in
    /// development started with `RACKO_PUSH_ALLOW_HTTP`, for a local push service).
    #[schema(
        format = "uri",
        min_length = 8,
        max_length = 2000,
        pattern = "^[Hh][Tt][Tt][Pp][Ss]?://"
    )]
    pub endpoint: String,
    pub keys: WebPushKeys,
    /// Ignored (browsers send it as null).
    #[serde(default, rename = "expirationTime")]
    #[schema(value_type = Option<i64>)]
    pub expiration_time: Option<serde_json::Value>,
}

/// Which APNs environment issued the token.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ApnsEnvironment {
    #[default]
    Production,
    Sandbox,
}

/// An iOS/macOS app's APNs registration.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ApnsDevice {
    /// The device token, hex.
    #[schema(min_length = 64, max_length = 200, pattern = "^[0-9A-Fa-f]+$")]
    pub token: String,
    /// The app's bundle id (`apns-topic`).
    #[schema(min_length = 1, max_length = 255, pattern = "^[A-Za-z0-9.-]+$")]
    pub topic: String,
    #[serde(default)]
    pub environment: ApnsEnvironment,
}

/// An Android (or other Firebase) app's FCM registration.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct FcmDevice {
    /// The registration token.
    #[schema(min_length = 1, max_length = 4096, pattern = "^[A-Za-z0-9_:.-]+$")]
    pub token: String,
}

/// When not to push: from `from` to `until` in the device's day (`HH:MM`), at
/// `utc_offset_minutes` from UTC. A push due then waits for `until`.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct QuietHours {
    #[schema(pattern = "^([01][0-9]|2[0-3]):[0-5][0-9]$", example = "22:00")]
    pub from: String,
    #[schema(pattern = "^([01][0-9]|2[0-3]):[0-5][0-9]$", example = "07:00")]
    pub until: String,
    #[serde(default)]
    #[schema(minimum = -840, maximum = 840)]
    pub utc_offset_minutes: i32,
}

/// A device to register: exactly one of `web_push`, `apns`, `fcm`. Registering the same
/// subscription or token again updates it (kinds, language, quiet hours).
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({
    "web_push": {
        "endpoint": "https://push.example.net/send/abc123",
        "keys": {
            "p256dh": "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM",
            "auth": "tBHItJI5svbpez7KI4CCXg"
        }
    },
    "kinds": ["your_turn", "game_finished"],
    "language": "de",
    "quiet_hours": { "from": "22:00", "until": "07:00", "utc_offset_minutes": 60 }
}))]
pub struct DeviceRequest {
    pub web_push: Option<WebPushSubscription>,
    pub apns: Option<ApnsDevice>,
    pub fcm: Option<FcmDevice>,
    /// Feed kinds to push; missing: `your_turn`, `deadline_near`, `game_finished`,
    /// `invited`.
    #[serde(default)]
    #[schema(max_items = 7)]
    pub kinds: Option<Vec<PushKind>>,
    #[serde(default)]
    pub language: Language,
    pub quiet_hours: Option<QuietHours>,
}

/// A device as its owner sees it.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct DeviceView {
    pub id: Uuid,
    /// `web_push`, `apns` or `fcm`.
    pub provider: String,
    /// The end of the endpoint or token, to tell devices apart.
    pub label: String,
    pub kinds: Vec<String>,
    pub language: Language,
    pub quiet_hours: Option<QuietHours>,
    pub created_at: DateTime<Utc>,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct DeviceList {
    pub devices: Vec<DeviceView>,
}

/// One push (one feed item to one device) and how its attempts went.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct PushDeliveryView {
    pub id: String,
    pub feed_seq: i64,
    pub kind: String,
    /// `pending`, `delivered`, `collapsed` (a newer push about the game replaced it) or
    /// `failed`.
    pub status: String,
    pub attempts: i32,
    pub next_at: Option<DateTime<Utc>>,
    /// The provider's HTTP status at the last attempt.
    pub last_status: Option<i32>,
    /// Why the last attempt failed, in a few words (the provider's reason, or `timeout`).
    pub last_error: Option<String>,
    pub created_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct PushDeliveryLog {
    /// Newest first, at most 100.
    pub deliveries: Vec<PushDeliveryView>,
}

/// What a browser needs for `pushManager.subscribe`.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct WebPushKey {
    /// The VAPID public key (`applicationServerKey`), base64url, 65 bytes uncompressed.
    pub public_key: String,
}

/// Which providers this server can push to (keys configured).
#[derive(Clone, Copy, Debug, Default)]
pub struct Providers {
    pub web_push: bool,
    pub apns: bool,
    pub fcm: bool,
    /// Web Push endpoints may be plain http (`RACKO_PUSH_ALLOW_HTTP`, development only).
    pub web_push_http: bool,
}
