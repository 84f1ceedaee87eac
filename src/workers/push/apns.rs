//! APNs (Apple Push Notification service), token-based: HTTP/2 POST to
//! `/3/device/<token>` with an ES256 provider token (`kid` the key id, `iss` the team id,
//! `iat`) that is reused for 40 minutes, as Apple asks (refreshed no more often than every
//! 20 minutes, and at most an hour old), and `apns-topic`, `apns-push-type: alert`,
//! `apns-expiration`, `apns-priority`, `apns-collapse-id` and `apns-id`. Answers follow
//! Apple's list: 410 `Unregistered` and 400 `BadDeviceToken` mean the device is gone; 429
//! and 5xx are retried; 403 `ExpiredProviderToken` makes a new token.

use std::time::{Duration, Instant};

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::json;
use tokio::sync::Mutex;

use super::text::Notification;
use super::{no_answer, retry_after, Outcome};
use crate::config::{ApnsKey, PushConfig};
use crate::store::ClaimedPush;

/// How long one provider token is used.
const TOKEN_LIFE: Duration = Duration::from_secs(40 * 60);
/// APNs refuses a payload larger than this.
pub const MAX_PAYLOAD: usize = 4096;

pub struct Apns {
    client: reqwest::Client,
    key: EncodingKey,
    key_id: String,
    team_id: String,
    production: String,
    sandbox: String,
    token: Mutex<Option<(String, Instant)>>,
}

impl Apns {
    pub fn new(key: &ApnsKey, settings: &PushConfig) -> anyhow::Result<Apns> {
        let pem = std::fs::read(&key.key_file)?;
        Ok(Apns {
            client: super::provider_client(settings, true)?,
            key: EncodingKey::from_ec_pem(&pem)?,
            key_id: key.key_id.clone(),
            team_id: key.team_id.clone(),
            production: settings.apns_url.trim_end_matches('/').to_string(),
            sandbox: settings.apns_sandbox_url.trim_end_matches('/').to_string(),
            token: Mutex::new(None),
        })
    }

    /// The provider token, made anew once it is [`TOKEN_LIFE`] old or `stale`.
    async fn token(&self, stale: bool) -> Result<String, jsonwebtoken::errors::Error> {
        let mut held = self.token.lock().await;
        if let Some((token, made)) = held.as_ref() {
            if !stale && made.elapsed() < TOKEN_LIFE {
                return Ok(token.clone());
            }
        }
        let mut header = Header::new(Algorithm::ES256);
        header.kid = Some(self.key_id.clone());
        let claims = json!({ "iss": self.team_id, "iat": chrono::Utc::now().timestamp() });
        let token = jsonwebtoken::encode(&header, &claims, &self.key)?;
        *held = Some((token.clone(), Instant::now()));
        Ok(token)
    }

    pub async fn send(&self, push: &ClaimedPush, note: &Notification, ttl: Duration) -> Outcome {
        let first = self.send_once(push, note, ttl, false).await;
        match &first {
            Outcome::Refused {
                status: 403,
                reason,
            } if reason == "ExpiredProviderToken" => self.send_once(push, note, ttl, true).await,
            _ => first,
        }
    }

    async fn send_once(
        &self,
        push: &ClaimedPush,
        note: &Notification,
        ttl: Duration,
        stale: bool,
    ) -> Outcome {
        let device = &push.device.device;
        let token = match self.token(stale).await {
            Ok(t) => t,
            Err(e) => {
                return Outcome::Refused {
                    status: 0,
                    reason: format!("provider token: {e}"),
                }
            }
        };
        let payload = json!({
            "aps": {
                "alert": { "title": note.title, "body": note.body },
                "sound": "default",
                "thread-id": note.game_id,
            },
            "data": note,
        })
        .to_string();
        if payload.len() > MAX_PAYLOAD {
            return Outcome::Refused {
                status: 0,
                reason: "PayloadTooLarge".into(),
            };
        }
        let base = if device.sandbox {
            &self.sandbox
        } else {
            &self.production
        };
        let expiration = chrono::Utc::now().timestamp() + ttl.as_secs() as i64;
        let mut request = self
            .client
            .post(format!("{base}/3/device/{}", device.address))
            .bearer_auth(token)
            .header("apns-topic", device.topic.clone().unwrap_or_default())
            .header("apns-push-type", "alert")
            .header("apns-priority", "10")
            .header("apns-expiration", expiration.to_string())
            .header("apns-id", apns_id(&push.id))
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(payload);
        if let Some(collapse) = note.collapse_key() {
            request = request.header("apns-collapse-id", collapse);
        }
        let res = match request.send().await {
            Ok(res) => res,
            Err(e) => return no_answer(&e),
        };
        let status = res.status().as_u16();
        let after = retry_after(res.headers());
        if status == 200 {
            return Outcome::Delivered(status);
        }
        let reason = res
            .json::<serde_json::Value>()
            .await
            .ok()
            .and_then(|b| b.get("reason").and_then(|r| r.as_str()).map(str::to_string))
            .unwrap_or_else(|| format!("HTTP {status}"));
        match (status, reason.as_str()) {
            (410, _) | (400, "BadDeviceToken") => Outcome::Gone { status, reason },
            (429, _) | (500..=599, _) => Outcome::Retry {
                status: Some(status),
                reason,
                after,
            },
            _ => Outcome::Refused { status, reason },
        }
    }
}

/// The push's id as the UUID `apns-id` wants (the same on every attempt).
fn apns_id(push: &str) -> String {
    let hex = push.trim_start_matches("push_");
    uuid::Uuid::try_parse(hex)
        .map(|u| u.hyphenated().to_string())
        .unwrap_or_else(|_| uuid::Uuid::new_v4().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_apns_id_is_the_push_id_as_a_uuid() {
        let id = "push_0b0c3c5e8a434a4e9a551f2d3c4b5a69";
        assert_eq!(apns_id(id), "0b0c3c5e-8a43-4a4e-9a55-1f2d3c4b5a69");
    }
}
