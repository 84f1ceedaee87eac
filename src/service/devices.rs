//! Push devices of the caller's account: register (a Web Push subscription, an APNs device
//! token or an FCM registration token), list, delete, and read the delivery log. Pushes are
//! written to the outbox with the feed items (`store::feed`) and sent by `push`.

use base64::Engine;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use super::Caller;
use crate::error::{Code, ServiceError};
use crate::notify::address::Guard;
use crate::store::{Device, NewDevice, PushDelivery, Store, StoreError};

/// Devices per account.
pub const MAX_DEVICES: i64 = 32;
/// The feed kinds a device may ask for.
pub const KINDS: &[&str] = &[
    "your_turn",
    "deadline_near",
    "game_finished",
    "game_started",
    "game_cancelled",
    "player_joined",
    "invited",
];
/// What a device gets when it names no kinds.
pub const DEFAULT_KINDS: &[&str] = &["your_turn", "deadline_near", "game_finished", "invited"];
const MAX_ENDPOINT: usize = 2000;
const MAX_TOKEN: usize = 4096;
const LOG_LIMIT: i64 = 100;

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
    fn name(self) -> &'static str {
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

fn invalid(detail: impl Into<String>) -> ServiceError {
    ServiceError::new(Code::InvalidDevice, detail)
}

fn not_configured(provider: &str) -> ServiceError {
    ServiceError::new(
        Code::PushNotConfigured,
        format!("this server does not push through {provider}"),
    )
}

/// Base64url of exactly `len` bytes (padding allowed).
fn key_of(what: &str, text: &str, len: usize) -> Result<(), ServiceError> {
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(text.trim_end_matches('='))
        .map_err(|_| invalid(format!("keys.{what} is not base64url")))?;
    if bytes.len() != len {
        return Err(invalid(format!("keys.{what} must be {len} bytes")));
    }
    Ok(())
}

fn minutes(what: &str, hhmm: &str) -> Result<i32, ServiceError> {
    let bad = || invalid(format!("quiet_hours.{what} must be HH:MM (00:00 to 23:59)"));
    let (h, m) = hhmm.split_once(':').ok_or_else(bad)?;
    if h.len() != 2 || m.len() != 2 {
        return Err(bad());
    }
    let (h, m): (i32, i32) = (h.parse().map_err(|_| bad())?, m.parse().map_err(|_| bad())?);
    if !(0..24).contains(&h) || !(0..60).contains(&m) {
        return Err(bad());
    }
    Ok(h * 60 + m)
}

/// Web Push endpoints are https: the payload is encrypted, but the VAPID token and the
/// headers are not. Plain http only when `http` (a local push service in development).
pub fn secure_enough(endpoint: &str, http: bool) -> bool {
    let scheme = endpoint
        .split_once("://")
        .map(|(s, _)| s.to_ascii_lowercase());
    match scheme.as_deref() {
        Some("https") => true,
        Some("http") => http,
        _ => false,
    }
}

fn hhmm(minutes: i32) -> String {
    format!("{:02}:{:02}", minutes / 60, minutes % 60)
}

/// The device the request describes, checked; blocks (a Web Push endpoint's host is resolved).
fn device_of(
    caller: &Caller,
    request: DeviceRequest,
    providers: Providers,
    guard: &Guard,
) -> Result<NewDevice, ServiceError> {
    let mut new = NewDevice {
        account_id: caller.id,
        provider: String::new(),
        address: String::new(),
        p256dh: None,
        auth: None,
        topic: None,
        sandbox: false,
        kinds: Vec::new(),
        language: match request.language {
            Language::En => "en".into(),
            Language::De => "de".into(),
        },
        quiet: None,
        utc_offset: 0,
    };
    match (request.web_push, request.apns, request.fcm) {
        (Some(web), None, None) => {
            if !providers.web_push {
                return Err(not_configured("Web Push"));
            }
            if web.endpoint.len() > MAX_ENDPOINT {
                return Err(invalid(format!(
                    "the endpoint is longer than {MAX_ENDPOINT} characters"
                )));
            }
            if !secure_enough(&web.endpoint, providers.web_push_http) {
                return Err(invalid(
                    "the endpoint must be an https URL (a browser's push service)",
                ));
            }
            key_of("p256dh", &web.keys.p256dh, 65)?;
            key_of("auth", &web.keys.auth, 16)?;
            guard.check(&web.endpoint).map_err(|e| match e.code {
                Code::WebhookAddressRefused => {
                    ServiceError::new(Code::DeviceAddressRefused, e.detail)
                }
                _ => invalid(format!("endpoint: {}", e.detail)),
            })?;
            new.provider = "web_push".into();
            new.address = web.endpoint;
            new.p256dh = Some(web.keys.p256dh.trim_end_matches('=').to_string());
            new.auth = Some(web.keys.auth.trim_end_matches('=').to_string());
        }
        (None, Some(apns), None) => {
            if !providers.apns {
                return Err(not_configured("APNs"));
            }
            let hex = apns.token.len() >= 64
                && apns.token.len() <= 200
                && apns.token.bytes().all(|b| b.is_ascii_hexdigit());
            if !hex {
                return Err(invalid("apns.token must be 64 to 200 hex digits"));
            }
            let topic = !apns.topic.is_empty()
                && apns.topic.len() <= 255
                && apns
                    .topic
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-');
            if !topic {
                return Err(invalid("apns.topic must be the app's bundle id"));
            }
            new.provider = "apns".into();
            new.address = apns.token.to_ascii_lowercase();
            new.topic = Some(apns.topic);
            new.sandbox = apns.environment == ApnsEnvironment::Sandbox;
        }
        (None, None, Some(fcm)) => {
            if !providers.fcm {
                return Err(not_configured("FCM"));
            }
            let token = !fcm.token.is_empty()
                && fcm.token.len() <= MAX_TOKEN
                && fcm
                    .token
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"_:.-".contains(&b));
            if !token {
                return Err(invalid(
                    "fcm.token must be 1 to 4096 letters, digits or _:.-",
                ));
            }
            new.provider = "fcm".into();
            new.address = fcm.token;
        }
        _ => return Err(invalid("give exactly one of web_push, apns and fcm")),
    }
    let mut kinds: Vec<String> = match request.kinds {
        Some(kinds) => kinds.into_iter().map(|k| k.name().to_string()).collect(),
        None => DEFAULT_KINDS.iter().map(|k| k.to_string()).collect(),
    };
    kinds.sort();
    kinds.dedup();
    new.kinds = kinds;
    if let Some(quiet) = request.quiet_hours {
        if !(-840..=840).contains(&quiet.utc_offset_minutes) {
            return Err(invalid(
                "quiet_hours.utc_offset_minutes must be from -840 to 840",
            ));
        }
        new.quiet = Some((
            minutes("from", &quiet.from)?,
            minutes("until", &quiet.until)?,
        ));
        new.utc_offset = quiet.utc_offset_minutes;
    }
    Ok(new)
}

pub fn view(d: Device) -> DeviceView {
    let address = &d.device.address;
    let tail = address
        .char_indices()
        .rev()
        .nth(7)
        .map_or(address.as_str(), |(i, _)| &address[i..]);
    DeviceView {
        id: d.id,
        provider: d.device.provider.clone(),
        label: tail.to_string(),
        kinds: d.device.kinds.clone(),
        language: if d.device.language == "de" {
            Language::De
        } else {
            Language::En
        },
        quiet_hours: d.device.quiet.map(|(from, until)| QuietHours {
            from: hhmm(from),
            until: hhmm(until),
            utc_offset_minutes: d.device.utc_offset,
        }),
        created_at: d.created_at,
    }
}

fn not_found(e: StoreError) -> ServiceError {
    match e {
        StoreError::NotFound => {
            ServiceError::new(Code::DeviceNotFound, "you have no device with this id")
        }
        StoreError::Conflict(Code::TooManyDevices) => ServiceError::new(
            Code::TooManyDevices,
            format!("an account has at most {MAX_DEVICES} devices"),
        ),
        other => other.into(),
    }
}

/// Registers a device (or updates the same one); blocks.
pub fn register(
    store: &Store,
    caller: &Caller,
    request: DeviceRequest,
    providers: Providers,
    guard: &Guard,
) -> Result<DeviceView, ServiceError> {
    let new = device_of(caller, request, providers, guard)?;
    let device = store.put_device(&new, MAX_DEVICES).map_err(not_found)?;
    Ok(view(device))
}

pub fn list(store: &Store, caller: &Caller) -> Result<DeviceList, ServiceError> {
    let devices = store.devices(caller.id)?.into_iter().map(view).collect();
    Ok(DeviceList { devices })
}

pub fn delete(store: &Store, caller: &Caller, id: Uuid) -> Result<(), ServiceError> {
    store.delete_device(caller.id, id).map_err(not_found)
}

pub fn deliveries(
    store: &Store,
    caller: &Caller,
    id: Uuid,
) -> Result<PushDeliveryLog, ServiceError> {
    let deliveries = store
        .push_deliveries(caller.id, id, LOG_LIMIT)
        .map_err(not_found)?
        .into_iter()
        .map(|d: PushDelivery| PushDeliveryView {
            next_at: (d.status == "pending").then_some(d.next_at),
            id: d.id,
            feed_seq: d.feed_seq,
            kind: d.kind,
            status: d.status,
            attempts: d.attempts,
            last_status: d.last_status,
            last_error: d.last_error,
            created_at: d.created_at,
            finished_at: d.finished_at,
        })
        .collect();
    Ok(PushDeliveryLog { deliveries })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_kinds_are_the_accepted_kinds() {
        let all = [
            PushKind::YourTurn,
            PushKind::DeadlineNear,
            PushKind::GameFinished,
            PushKind::GameStarted,
            PushKind::GameCancelled,
            PushKind::PlayerJoined,
            PushKind::Invited,
        ];
        let names: Vec<&str> = all.iter().map(|k| k.name()).collect();
        assert_eq!(names, KINDS);
        for k in all {
            assert_eq!(serde_json::to_value(k).ok(), Some(k.name().into()));
        }
    }

    #[test]
    fn quiet_hours_read_as_minutes() {
        assert_eq!(minutes("from", "22:30").ok(), Some(22 * 60 + 30));
        for bad in ["24:00", "7:00", "12:60", "aa:bb", "1200"] {
            assert!(minutes("from", bad).is_err(), "{bad}");
        }
        assert_eq!(hhmm(7 * 60 + 5), "07:05");
    }

    #[test]
    fn web_push_endpoints_are_https_unless_told() {
        assert!(secure_enough("https://push.example/x", false));
        assert!(secure_enough("HTTPS://push.example/x", false));
        assert!(!secure_enough("http://push.example/x", false));
        assert!(secure_enough("http://localhost:8090/x", true));
        assert!(!secure_enough("ftp://push.example/x", true));
        assert!(!secure_enough("push.example/x", true));
    }
}
