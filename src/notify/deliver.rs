//! The webhook worker, spawned by `racko serve` in every process: claims due outbox rows
//! (with a lease, so a process that dies mid-delivery leaves them to another), POSTs each with
//! its Standard Webhooks signature and a timeout, and records the attempt: delivered on a 2xx,
//! else retried with exponential backoff and jitter until `retry_for` (24 h) has passed since
//! the change; then the delivery fails and its endpoint is disabled (the account is told on
//! its feed). Deliveries are at least once: a receiver deduplicates by `webhook-id`.

use std::time::Duration;

use chrono::{DateTime, Utc};
use rand::Rng;

use super::{address, signing};
use crate::app::blocking;
use crate::store::{Attempt, Claimed, Store};

/// Deliveries claimed per round.
const BATCH: i64 = 16;
/// The longest pause between two attempts.
const MAX_DELAY: Duration = Duration::from_secs(3600);

#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// How often an idle worker looks for due deliveries.
    pub poll: Duration,
    /// A receiver must answer within this.
    pub timeout: Duration,
    /// The pause after the first failed attempt; doubled after each.
    pub retry_base: Duration,
    /// Retries stop this long after the change.
    pub retry_for: Duration,
    /// Deliver to internal addresses (tests, a private deployment).
    pub allow_private: bool,
}

impl Settings {
    /// How long a claim holds: an attempt cannot take longer than the timeout.
    fn lease(&self) -> chrono::Duration {
        let lease = self.timeout * 2 + Duration::from_secs(1);
        chrono::Duration::from_std(lease).unwrap_or(chrono::Duration::MAX)
    }

    /// When to try again after failed attempt number `attempts` (1, 2, …) of a delivery
    /// created at `created`; None when the retries are over.
    pub fn next_try(
        &self,
        attempts: i32,
        created: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Option<DateTime<Utc>> {
        let doublings = u32::try_from(attempts.saturating_sub(1))
            .unwrap_or(0)
            .min(20);
        let delay = self
            .retry_base
            .saturating_mul(1 << doublings)
            .min(MAX_DELAY)
            .mul_f64(rand::rng().random_range(0.75..1.25));
        let at = now + chrono::Duration::from_std(delay).ok()?;
        let end = created + chrono::Duration::from_std(self.retry_for).ok()?;
        (at <= end).then_some(at)
    }
}

/// Runs forever (until the runtime stops).
pub async fn run(store: Store, settings: Settings) {
    let client = match reqwest::Client::builder()
        .timeout(settings.timeout)
        // A redirect could lead to an address the check refused.
        .redirect(reqwest::redirect::Policy::none())
        .user_agent("racko-webhooks")
        .build()
    {
        Ok(client) => client,
        Err(e) => {
            tracing::error!(error = %e, "no webhook client: webhooks are not delivered");
            return;
        }
    };
    loop {
        let now = Utc::now();
        let until = now + settings.lease();
        match blocking(&store, move |s| s.claim_deliveries(now, until, BATCH)).await {
            Ok(claimed) if !claimed.is_empty() => {
                let rounds = claimed
                    .into_iter()
                    .map(|c| deliver_one(&store, &client, c, settings));
                futures_util::future::join_all(rounds).await;
                continue;
            }
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "cannot claim webhook deliveries"),
        }
        tokio::time::sleep(settings.poll).await;
    }
}

async fn deliver_one(
    store: &Store,
    client: &reqwest::Client,
    claimed: Claimed,
    settings: Settings,
) {
    let attempt = match send(client, &claimed, &settings).await {
        Ok(status) => Attempt::Delivered { status },
        Err((status, error)) => {
            let retry_at = settings.next_try(claimed.attempts + 1, claimed.created_at, Utc::now());
            tracing::info!(delivery = %claimed.id, ?status, %error, retry = ?retry_at, "webhook attempt failed");
            Attempt::Failed {
                status,
                error,
                retry_at,
            }
        }
    };
    let id = claimed.id.clone();
    if let Err(e) = blocking(store, move |s| s.finish_delivery(&claimed, &attempt)).await {
        // The lease runs out and the delivery is tried again: at least once.
        tracing::warn!(delivery = %id, error = %e, "cannot record a webhook attempt");
    }
}

/// One POST; Ok with a 2xx status, else the status (if any) and why.
async fn send(
    client: &reqwest::Client,
    claimed: &Claimed,
    settings: &Settings,
) -> Result<u16, (Option<u16>, String)> {
    if !settings.allow_private {
        let url = claimed.url.clone();
        tokio::task::spawn_blocking(move || address::check(&url, false))
            .await
            .map_err(|e| (None, e.to_string()))?
            .map_err(|e| (None, e.detail))?;
    }
    let timestamp = Utc::now().timestamp();
    let signature = signing::signature(&claimed.secret, &claimed.id, timestamp, &claimed.body)
        .ok_or_else(|| (None, "the stored key is not base64".to_string()))?;
    let res = client
        .post(&claimed.url)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .header("webhook-id", &claimed.id)
        .header("webhook-timestamp", timestamp.to_string())
        .header("webhook-signature", signature)
        .body(claimed.body.clone())
        .send()
        .await
        .map_err(|e| (None, e.to_string()))?;
    let status = res.status();
    if status.is_success() {
        Ok(status.as_u16())
    } else {
        Err((
            Some(status.as_u16()),
            format!("the receiver answered {status}"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_back_off_and_stop_after_retry_for() {
        let settings = Settings {
            poll: Duration::from_millis(500),
            timeout: Duration::from_secs(10),
            retry_base: Duration::from_secs(5),
            retry_for: Duration::from_secs(24 * 3600),
            allow_private: false,
        };
        let created = Utc::now();
        let first = settings.next_try(1, created, created).expect("a retry");
        let delay = (first - created).num_milliseconds();
        assert!(
            (3750..=6250).contains(&delay),
            "{delay} ms: 5 s with jitter"
        );
        let tenth = settings.next_try(12, created, created).expect("a retry");
        assert!(
            tenth - created >= chrono::Duration::seconds(2700),
            "capped at an hour, jittered"
        );
        let late = created + chrono::Duration::hours(24);
        assert_eq!(settings.next_try(40, created, late), None, "24 h are over");
    }
}
