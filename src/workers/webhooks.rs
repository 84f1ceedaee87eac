//! The webhook worker, spawned by `racko serve` in every process: claims due outbox rows
//! (with a lease, so a process that dies mid-delivery leaves them to another), POSTs each with
//! its Standard Webhooks signature and a timeout, and records the attempt: delivered on a 2xx,
//! else retried with exponential backoff and jitter until `retry_for` (24 h) has passed since
//! the change; then the delivery fails and its endpoint is disabled (the account is told on
//! its feed). Deliveries are at least once: a receiver deduplicates by `webhook-id`.
//!
//! Attempts do not wait for each other: each runs as a task of its own, at most
//! [`IN_FLIGHT`] per process, and a claim takes at most [`PER_ENDPOINT`] per endpoint (over
//! all processes) with the accounts in turn, so a receiver that hangs holds up only its own
//! deliveries. The delivery log gets a coarse reason for a failed attempt ("timeout",
//! "HTTP 500"); the receiver's words and the resolver's go to the server log only.

use std::error::Error;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use rand::Rng;
use tokio::sync::Semaphore;

use crate::blocking::blocking;
use crate::notify::address::{self, Guard, Host, Refusal};
use crate::notify::signing;
use crate::service::Service;
use crate::store::{Attempt, Claimed};

/// Deliveries claimed per round at most.
const BATCH: usize = 16;
/// Attempts in flight in one process at most.
pub const IN_FLIGHT: usize = 64;
/// Attempts in flight to one endpoint at most, over all processes.
pub const PER_ENDPOINT: i64 = 2;
/// The longest pause between two attempts.
const MAX_DELAY: Duration = Duration::from_secs(3600);

#[derive(Clone, Debug)]
pub struct Settings {
    /// How often an idle worker looks for due deliveries.
    pub poll: Duration,
    /// A receiver must answer within this.
    pub timeout: Duration,
    /// The pause after the first failed attempt; doubled after each.
    pub retry_base: Duration,
    /// Retries stop this long after the change.
    pub retry_for: Duration,
    /// Which addresses may be called, and the resolver that finds them.
    pub guard: Guard,
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
pub async fn run(store: Service, settings: Settings) {
    let client = match client(&settings) {
        Ok(client) => client,
        Err(e) => {
            tracing::error!(error = %e, "no webhook client: webhooks are not delivered");
            return;
        }
    };
    let settings = Arc::new(settings);
    let slots = Arc::new(Semaphore::new(IN_FLIGHT));
    loop {
        // All slots busy: claim nothing before one is free (a claim starts at once).
        if slots.available_permits() == 0 {
            drop(Arc::clone(&slots).acquire_owned().await);
        }
        let want = slots.available_permits().min(BATCH);
        let now = Utc::now();
        let until = now + settings.lease();
        let claimed = blocking(&store, move |s| {
            s.claim_deliveries(now, until, want as i64, PER_ENDPOINT)
        })
        .await;
        match claimed {
            Ok(claimed) => {
                let full = claimed.len() == want;
                for delivery in claimed {
                    // Never waits: only this loop takes slots, and it asked for no more.
                    let Ok(slot) = Arc::clone(&slots).acquire_owned().await else {
                        return;
                    };
                    let (store, client, settings) =
                        (store.clone(), client.clone(), Arc::clone(&settings));
                    actix_web::rt::spawn(async move {
                        deliver_one(&store, &client, delivery, &settings).await;
                        drop(slot);
                    });
                }
                // A full claim: more may be due at once.
                if full {
                    continue;
                }
            }
            Err(e) => tracing::warn!(error = %e, "cannot claim webhook deliveries"),
        }
        tokio::time::sleep(settings.poll).await;
    }
}

/// The HTTP client: it resolves names only through the guard, so it connects only to
/// addresses the guard has checked.
fn client(settings: &Settings) -> reqwest::Result<reqwest::Client> {
    reqwest::Client::builder()
        .timeout(settings.timeout)
        .dns_resolver(Arc::new(settings.guard.clone()))
        // A proxy would resolve the name itself, unchecked.
        .no_proxy()
        // A redirect could lead to an address the check refused.
        .redirect(reqwest::redirect::Policy::none())
        .user_agent("racko-webhooks")
        .build()
}

async fn deliver_one(
    store: &Service,
    client: &reqwest::Client,
    claimed: Claimed,
    settings: &Settings,
) {
    let attempt = match send(client, &settings.guard, &claimed).await {
        Ok(status) => Attempt::Delivered { status },
        Err(failure) => {
            let retry_at = settings.next_try(claimed.attempts + 1, claimed.created_at, Utc::now());
            tracing::info!(
                delivery = %claimed.id,
                status = ?failure.status,
                error = %failure.cause,
                retry = ?retry_at,
                "webhook attempt failed"
            );
            Attempt::Failed {
                status: failure.status,
                error: failure.shown.to_string(),
                retry_at,
            }
        }
    };
    let id = claimed.id.clone();
    if let Err(e) = blocking(store, move |s| {
        s.finish_delivery(&claimed, &attempt).map(|c| s.after(c))
    })
    .await
    {
        // The lease runs out and the delivery is tried again: at least once.
        tracing::warn!(delivery = %id, error = %e, "cannot record a webhook attempt");
    }
}

/// A failed attempt: what the delivery log shows, and the whole cause for the server log.
#[derive(Debug)]
struct Failure {
    status: Option<u16>,
    shown: String,
    cause: String,
}

impl Failure {
    fn new(shown: impl Into<String>, cause: impl Into<String>) -> Failure {
        Failure {
            status: None,
            shown: shown.into(),
            cause: cause.into(),
        }
    }
}

/// One POST; Ok with a 2xx status.
async fn send(client: &reqwest::Client, guard: &Guard, claimed: &Claimed) -> Result<u16, Failure> {
    // A literal address is connected to without a lookup, so it is checked here; a name is
    // checked by the client's resolver, answer by answer.
    match address::host(&claimed.url) {
        Ok(Host::Address(ip)) => guard
            .allowed(ip)
            .map_err(|e| Failure::new("refused address", e.to_string()))?,
        Ok(Host::Name(_)) => {}
        Err(e) => return Err(Failure::new("invalid URL", e.detail)),
    }
    let timestamp = Utc::now().timestamp();
    let signature = signing::signature(&claimed.secret, &claimed.id, timestamp, &claimed.body)
        .ok_or_else(|| Failure::new("internal error", "the stored key is not base64"))?;
    let res = client
        .post(&claimed.url)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .header("webhook-id", &claimed.id)
        .header("webhook-timestamp", timestamp.to_string())
        .header("webhook-signature", signature)
        .body(claimed.body.clone())
        .send()
        .await
        .map_err(|e| Failure::new(coarse(&e), causes(&e)))?;
    let status = res.status();
    if status.is_success() {
        return Ok(status.as_u16());
    }
    Err(Failure {
        status: Some(status.as_u16()),
        shown: format!("HTTP {}", status.as_u16()),
        cause: format!("the receiver answered {status}"),
    })
}

/// What the account is told of a failed request: a few words, never the details.
fn coarse(e: &reqwest::Error) -> &'static str {
    if e.is_timeout() {
        return "timeout";
    }
    let mut cause = e.source();
    while let Some(c) = cause {
        match c.downcast_ref::<Refusal>() {
            Some(Refusal::Internal(_)) => return "refused address",
            Some(Refusal::Unresolved(_)) => return "host not found",
            None => {}
        }
        if let Some(io) = c.downcast_ref::<std::io::Error>() {
            match io.kind() {
                std::io::ErrorKind::ConnectionRefused => return "connection refused",
                std::io::ErrorKind::TimedOut => return "timeout",
                _ => {}
            }
        }
        cause = c.source();
    }
    if e.is_connect() {
        "connection failed"
    } else {
        "no answer"
    }
}

/// An error with its causes, for the server log.
fn causes(e: &dyn Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
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
            guard: Guard::new(false, crate::config::WebhookLookup::default()),
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
