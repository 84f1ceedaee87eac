//! FCM HTTP v1: `POST {base}/v1/projects/{project_id}/messages:send` with an OAuth 2.0
//! access token got from the service account's key by the JWT bearer grant (RFC 7523: an
//! RS256 assertion with `iss` the account's email, `scope` firebase.messaging, `aud` its
//! `token_uri`), kept until a minute before it expires. Answers follow Google's error shape
//! (`error.status` and `details[].errorCode`): `UNREGISTERED` means the device is gone;
//! `UNAVAILABLE`, `INTERNAL`, `QUOTA_EXCEEDED` (429, 5xx) are retried; `UNAUTHENTICATED`
//! makes a new access token.

use std::path::Path;
use std::time::{Duration, Instant};

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::sync::Mutex;

use super::text::Notification;
use super::{no_answer, retry_after, Outcome};
use crate::config::PushConfig;
use crate::store::ClaimedPush;

const SCOPE: &str = "https://www.googleapis.com/auth/firebase.messaging";
/// An access token is not used in its last minute.
const MARGIN: Duration = Duration::from_secs(60);

/// The fields of a service account key file this client uses.
#[derive(Deserialize)]
struct ServiceAccount {
    project_id: String,
    client_email: String,
    private_key: String,
    token_uri: String,
}

#[derive(Deserialize)]
struct AccessToken {
    access_token: String,
    expires_in: u64,
}

pub struct Fcm {
    client: reqwest::Client,
    key: EncodingKey,
    email: String,
    token_uri: String,
    send_url: String,
    token: Mutex<Option<(String, Instant)>>,
}

impl Fcm {
    pub fn new(file: &Path, settings: &PushConfig) -> anyhow::Result<Fcm> {
        let account: ServiceAccount = serde_json::from_slice(&std::fs::read(file)?)?;
        Ok(Fcm {
            client: super::provider_client(settings, false)?,
            key: EncodingKey::from_rsa_pem(account.private_key.as_bytes())?,
            email: account.client_email,
            token_uri: account.token_uri,
            send_url: format!(
                "{}/v1/projects/{}/messages:send",
                settings.fcm_url.trim_end_matches('/'),
                account.project_id
            ),
            token: Mutex::new(None),
        })
    }

    /// The access token, fetched anew when it is about to expire or `stale`.
    async fn token(&self, stale: bool) -> Result<String, Outcome> {
        let mut held = self.token.lock().await;
        if let Some((token, until)) = held.as_ref() {
            if !stale && Instant::now() < *until {
                return Ok(token.clone());
            }
        }
        let now = chrono::Utc::now().timestamp();
        let claims = json!({
            "iss": self.email, "scope": SCOPE, "aud": self.token_uri,
            "iat": now, "exp": now + 3600,
        });
        let assertion = jsonwebtoken::encode(&Header::new(Algorithm::RS256), &claims, &self.key)
            .map_err(|e| Outcome::Refused {
                status: 0,
                reason: format!("assertion: {e}"),
            })?;
        let res = self
            .client
            .post(&self.token_uri)
            .form(&[
                ("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"),
                ("assertion", assertion.as_str()),
            ])
            .send()
            .await
            .map_err(|e| no_answer(&e))?;
        let status = res.status().as_u16();
        if !res.status().is_success() {
            let reason = format!("token endpoint: HTTP {status}");
            return Err(if status == 429 || status >= 500 {
                Outcome::Retry {
                    status: Some(status),
                    reason,
                    after: retry_after(res.headers()),
                }
            } else {
                Outcome::Refused { status, reason }
            });
        }
        let token: AccessToken = res.json().await.map_err(|e| no_answer(&e))?;
        let life = Duration::from_secs(token.expires_in).saturating_sub(MARGIN);
        *held = Some((token.access_token.clone(), Instant::now() + life));
        Ok(token.access_token)
    }

    pub async fn send(&self, push: &ClaimedPush, note: &Notification, ttl: Duration) -> Outcome {
        let first = self.send_once(push, note, ttl, false).await;
        match &first {
            Outcome::Refused { status: 401, .. } => self.send_once(push, note, ttl, true).await,
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
        let token = match self.token(stale).await {
            Ok(t) => t,
            Err(outcome) => return outcome,
        };
        // `data` values must be strings.
        let mut data = json!({ "kind": note.kind, "seq": note.seq.to_string() });
        if let Some(game) = &note.game_id {
            data["game_id"] = json!(game);
        }
        if let Some(deadline) = note.deadline {
            data["deadline"] = json!(deadline.to_rfc3339());
        }
        if let Some(at) = note.at {
            data["at"] = json!(at.to_rfc3339());
        }
        let mut android = json!({ "priority": "high", "ttl": format!("{}s", ttl.as_secs()) });
        if let Some(collapse) = note.collapse_key() {
            android["collapse_key"] = json!(collapse);
        }
        let message = json!({ "message": {
            "token": push.device.device.address,
            "notification": { "title": note.title, "body": note.body },
            "data": data,
            "android": android,
        }});
        let res = match self
            .client
            .post(&self.send_url)
            .bearer_auth(token)
            .json(&message)
            .send()
            .await
        {
            Ok(res) => res,
            Err(e) => return no_answer(&e),
        };
        let status = res.status().as_u16();
        let after = retry_after(res.headers());
        if res.status().is_success() {
            // Read to its end, so that the connection goes back to the pool (an HTTP/1.1
            // connection whose answer was left unread is closed: a new one, with its TLS
            // handshake, per push).
            let _ = res.bytes().await;
            return Outcome::Delivered(status);
        }
        let body: Value = res.json().await.unwrap_or(Value::Null);
        let error = &body["error"];
        let code = error["details"]
            .as_array()
            .and_then(|d| d.iter().find_map(|x| x["errorCode"].as_str()))
            .or_else(|| error["status"].as_str())
            .unwrap_or("")
            .to_string();
        let reason = if code.is_empty() {
            format!("HTTP {status}")
        } else {
            code.clone()
        };
        match (status, code.as_str()) {
            (_, "UNREGISTERED") => Outcome::Gone { status, reason },
            (429, _) | (500..=599, _) => Outcome::Retry {
                status: Some(status),
                reason,
                after,
            },
            _ => Outcome::Refused { status, reason },
        }
    }
}
