//! Push devices of the caller's account: register (a Web Push subscription, an APNs device
//! token or an FCM registration token), list, delete, and read the delivery log. Pushes are
//! written to the outbox with the feed items (`store::feed`) and sent by `workers::push`.

use base64::Engine;
use uuid::Uuid;

mod forms;

pub use forms::*;

use super::Caller;
use crate::error::{Code, ServiceError};
use crate::notify::address::Guard;
use crate::store::{Conflict, Device, NewDevice, PushDelivery, Store, StoreError};

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
        StoreError::Conflict(Conflict::TooManyDevices) => ServiceError::new(
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
