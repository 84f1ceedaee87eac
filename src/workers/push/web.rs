//! Web Push (RFC 8030): the payload encrypted with aes128gcm to the browser's keys (RFC 8291)
//! and signed with the VAPID key (RFC 8292), by the `web-push` crate; sent by our own client,
//! which resolves the subscription's host only through the address guard (the endpoint came
//! from a client, so it must not reach internal addresses), with `TTL`, `Urgency` and a
//! `Topic` that lets the push service replace an undelivered older push of the game.

use std::sync::Arc;
use std::time::Duration;

use web_push::{
    ContentEncoding, PartialVapidSignatureBuilder, SubscriptionInfo, Urgency,
    VapidSignatureBuilder, WebPushMessageBuilder,
};

use super::text::Notification;
use super::{no_answer, retry_after, Outcome};
use crate::config::PushConfig;
use crate::notify::address::{self, Guard, Host};
use crate::store::ClaimedPush;

pub struct WebPush {
    client: reqwest::Client,
    guard: Guard,
    vapid: PartialVapidSignatureBuilder,
    subject: String,
    allow_http: bool,
}

impl WebPush {
    pub fn new(private_key: &str, settings: &PushConfig, guard: Guard) -> anyhow::Result<WebPush> {
        let vapid = VapidSignatureBuilder::from_base64_no_sub(private_key)
            .map_err(|e| anyhow::anyhow!("the VAPID private key does not parse: {e:?}"))?;
        let client = reqwest::Client::builder()
            .timeout(settings.timeout)
            .dns_resolver(Arc::new(guard.clone()))
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .user_agent("racko-push")
            .build()?;
        Ok(WebPush {
            client,
            guard,
            vapid,
            subject: settings.vapid_subject.clone(),
            allow_http: settings.allow_http,
        })
    }

    pub async fn send(&self, push: &ClaimedPush, note: &Notification, ttl: Duration) -> Outcome {
        let device = &push.device.device;
        let refused = |reason: String| Outcome::Refused { status: 0, reason };
        // Checked at registration too; again here for a server restarted without the override.
        if !crate::service::devices::secure_enough(&device.address, self.allow_http) {
            return refused("not an https endpoint".into());
        }
        match address::host(&device.address) {
            Ok(Host::Address(ip)) => {
                if self.guard.allowed(ip).is_err() {
                    return refused("refused address".into());
                }
            }
            Ok(Host::Name(_)) => {}
            Err(_) => return refused("invalid endpoint".into()),
        }
        let subscription = SubscriptionInfo::new(
            device.address.clone(),
            device.p256dh.clone().unwrap_or_default(),
            device.auth.clone().unwrap_or_default(),
        );
        let payload = match serde_json::to_vec(note) {
            Ok(p) => p,
            Err(e) => return refused(format!("payload: {e}")),
        };
        let mut signature = self.vapid.clone().add_sub_info(&subscription);
        signature.add_claim("sub", self.subject.as_str());
        let signature = match signature.build() {
            Ok(s) => s,
            Err(e) => return refused(format!("VAPID: {e:?}")),
        };
        let mut builder = WebPushMessageBuilder::new(&subscription);
        builder.set_payload(ContentEncoding::Aes128Gcm, &payload);
        builder.set_vapid_signature(signature);
        builder.set_ttl(u32::try_from(ttl.as_secs()).unwrap_or(u32::MAX));
        builder.set_urgency(
            if note.kind == "your_turn" || note.kind == "deadline_near" {
                Urgency::High
            } else {
                Urgency::Normal
            },
        );
        if let Some(topic) = note.collapse_key() {
            builder.set_topic(topic);
        }
        let message = match builder.build() {
            Ok(m) => m,
            Err(e) => return refused(format!("message: {e:?}")),
        };
        let mut request = self
            .client
            .post(&device.address)
            .header("TTL", message.ttl.to_string());
        if let Some(urgency) = message.urgency {
            request = request.header("Urgency", urgency.to_string());
        }
        if let Some(topic) = message.topic {
            request = request.header("Topic", topic);
        }
        if let Some(payload) = message.payload {
            request = request
                .header("Content-Encoding", payload.content_encoding.to_str())
                .header("Content-Type", "application/octet-stream");
            for (name, value) in payload.crypto_headers {
                request = request.header(name, value);
            }
            request = request.body(payload.content);
        }
        let res = match request.send().await {
            Ok(res) => res,
            Err(e) => return no_answer(&e),
        };
        let status = res.status().as_u16();
        let after = retry_after(res.headers());
        // Read to its end, so that the connection goes back to the pool.
        let _ = res.bytes().await;
        match status {
            200..=299 => Outcome::Delivered(status),
            404 | 410 => Outcome::Gone {
                status,
                reason: format!("HTTP {status}"),
            },
            429 | 500..=599 => Outcome::Retry {
                status: Some(status),
                reason: format!("HTTP {status}"),
                after,
            },
            _ => Outcome::Refused {
                status,
                reason: format!("HTTP {status}"),
            },
        }
    }
}
