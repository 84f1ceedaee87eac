//! Push notifications: the worker spawned by `racko serve` in every process. It claims due
//! rows of the push outbox (written with the feed items, in the change's transaction) with a
//! lease, so a process that dies mid-send leaves them to another; sends each through its
//! device's provider (Web Push, APNs, FCM); and records the attempt: delivered on success,
//! retried with exponential backoff (honouring `Retry-After`) on 429 and 5xx until the
//! deadline or a day has passed, the device deleted when the provider says it is gone.
//! Pushes are at least once: each carries the feed item's seq, and the providers collapse
//! repeats by their collapse keys. Sends do not wait for each other: each runs as a task of
//! its own, at most [`IN_FLIGHT`] per process and [`PER_DEVICE`] per device, the accounts
//! taken in turn (`store::push_outbox`).
//!
//! - [`text`]: what a push says, from the feed item alone (never a card, R8).
//! - [`web`], [`apns`], [`fcm`]: the three protocols; [`vapid`]: the Web Push key.

pub mod apns;
pub mod fcm;
mod metrics;
mod record;
pub mod text;
pub mod vapid;
pub mod web;

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Timelike, Utc};
use rand::Rng;
use tokio::sync::Semaphore;

use crate::blocking::blocking;
use crate::config::Config;
use crate::notify::address::Guard;
use crate::service::Service;
use crate::store::{ClaimedPush, PushAttempt, Store};
pub use metrics::PushMetrics;
use text::Notification;

/// Pushes claimed per round at most (all free slots: every claim is a write transaction,
/// so fewer, larger claims cost the actions' writes less).
const BATCH: usize = 64;
/// Sends in flight in one process at most: more than an account's devices, so that one
/// account whose every device hangs leaves room for the others.
pub const IN_FLIGHT: usize = 64;
/// Sends in flight to one device at most, over all processes: a device that hangs or fails
/// holds up only its own pushes (which also reach it in order).
pub const PER_DEVICE: i64 = 1;
const _: () = assert!((crate::service::devices::MAX_DEVICES as usize) < IN_FLIGHT);
/// The longest pause between two attempts.
const MAX_DELAY: Duration = Duration::from_secs(3600);
/// A push lives at least this long at the provider, even right before a deadline.
const MIN_TTL: Duration = Duration::from_secs(60);

/// How one send went, as the provider said.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Delivered(u16),
    /// Try again (429, 5xx, no answer); `after` is the provider's `Retry-After`.
    Retry {
        status: Option<u16>,
        reason: String,
        after: Option<Duration>,
    },
    /// Refused for good (a bad request): not retried.
    Refused {
        status: u16,
        reason: String,
    },
    /// The device is gone (unregistered, expired): it is deleted.
    Gone {
        status: u16,
        reason: String,
    },
}

impl Outcome {
    fn label(&self) -> &'static str {
        match self {
            Outcome::Delivered(_) => "delivered",
            Outcome::Retry { .. } => "retry",
            Outcome::Refused { .. } => "refused",
            Outcome::Gone { .. } => "gone",
        }
    }
}

/// The `Retry-After` header: seconds or an HTTP date.
pub fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let value = headers.get(reqwest::header::RETRY_AFTER)?.to_str().ok()?;
    if let Ok(seconds) = value.trim().parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let at = DateTime::parse_from_rfc2822(value.trim()).ok()?;
    (at.with_timezone(&Utc) - Utc::now()).to_std().ok()
}

/// The senders this process has (a provider without its key has none).
struct Senders {
    web: Option<web::WebPush>,
    apns: Option<apns::Apns>,
    fcm: Option<fcm::Fcm>,
}

impl Senders {
    async fn send(&self, push: &ClaimedPush, note: &Notification, ttl: Duration) -> Outcome {
        let missing = |provider: &str| Outcome::Refused {
            status: 0,
            reason: format!("{provider} is not configured"),
        };
        match push.device.device.provider.as_str() {
            "web_push" => match &self.web {
                Some(web) => web.send(push, note, ttl).await,
                None => missing("Web Push"),
            },
            "apns" => match &self.apns {
                Some(apns) => apns.send(push, note, ttl).await,
                None => missing("APNs"),
            },
            "fcm" => match &self.fcm {
                Some(fcm) => fcm.send(push, note, ttl).await,
                None => missing("FCM"),
            },
            other => missing(other),
        }
    }
}

/// Which providers `config` gives keys for (blocking: may read the VAPID key from the store).
pub fn providers(config: &Config, store: &Store) -> crate::service::devices::Providers {
    crate::service::devices::Providers {
        web_push: matches!(vapid::private_key(config, store), Ok(Some(k)) if !k.is_empty()),
        apns: config.push.apns.is_some(),
        fcm: config.push.fcm_service_account_file.is_some(),
        web_push_http: config.push.allow_http,
    }
}

/// Runs forever (until the runtime stops).
pub async fn run(store: Service, config: Config, metrics: crate::metrics::Metrics) {
    let metrics = match PushMetrics::new(&metrics) {
        Ok(m) => m,
        Err(e) => {
            tracing::error!(error = %e, "no push metrics: pushes are not sent");
            return;
        }
    };
    let key = {
        let config = config.clone();
        blocking(&store, move |s| vapid::private_key(&config, s)).await
    };
    let guard = Guard::new(config.webhooks_allow_private, config.webhook_lookup.clone());
    let settings = &config.push;
    let senders = Arc::new(Senders {
        web: match key {
            Ok(Some(key)) => web::WebPush::new(&key, settings, guard)
                .map_err(|e| tracing::error!(error = %e, "no Web Push sender"))
                .ok(),
            Ok(None) => None,
            Err(e) => {
                tracing::error!(error = %e, "cannot read the VAPID key: no Web Push");
                None
            }
        },
        apns: settings.apns.as_ref().and_then(|key| {
            apns::Apns::new(key, settings)
                .map_err(|e| tracing::error!(error = %e, "no APNs sender"))
                .ok()
        }),
        fcm: settings.fcm_service_account_file.as_ref().and_then(|file| {
            fcm::Fcm::new(file, settings)
                .map_err(|e| tracing::error!(error = %e, "no FCM sender"))
                .ok()
        }),
    });
    let settings = Arc::new(settings.clone());
    let slots = Arc::new(Semaphore::new(IN_FLIGHT));
    let recorder = record::start(store.store().clone());
    let mut backlog_at = tokio::time::Instant::now();
    loop {
        if backlog_at.elapsed() >= Duration::from_secs(5) {
            backlog_at = tokio::time::Instant::now();
            if let Ok(backlog) = blocking(&store, |s| s.push_backlog()).await {
                metrics.backlog(backlog);
            }
        }
        if slots.available_permits() == 0 {
            drop(Arc::clone(&slots).acquire_owned().await);
        }
        let want = slots.available_permits().min(BATCH);
        let now = Utc::now();
        let lease = chrono::Duration::from_std(settings.timeout * 2 + Duration::from_secs(1))
            .unwrap_or(chrono::Duration::MAX);
        let until = now + lease;
        let claimed = blocking(&store, move |s| {
            s.claim_pushes(now, until, want as i64, PER_DEVICE)
        })
        .await;
        match claimed {
            Ok(claimed) => {
                let full = claimed.len() == want;
                for push in claimed {
                    let Ok(slot) = Arc::clone(&slots).acquire_owned().await else {
                        return;
                    };
                    let (recorder, senders, settings, metrics) = (
                        recorder.clone(),
                        Arc::clone(&senders),
                        Arc::clone(&settings),
                        metrics.clone(),
                    );
                    actix_web::rt::spawn(async move {
                        let attempt = send_one(&senders, &push, &settings, &metrics).await;
                        let finished = record::Finished {
                            push,
                            attempt,
                            slot,
                        };
                        if recorder.send(finished).is_err() {
                            tracing::warn!("the push recorder stopped: attempts are not recorded");
                        }
                    });
                }
                if full {
                    continue;
                }
            }
            Err(e) => tracing::warn!(error = %e, "cannot claim pushes"),
        }
        tokio::time::sleep(settings.poll).await;
    }
}

/// When quiet hours hold at `now` for the device: their end.
fn quiet_until(push: &ClaimedPush, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let (from, until) = push.device.device.quiet?;
    let offset = i64::from(push.device.device.utc_offset);
    let local = now + chrono::Duration::minutes(offset);
    let minute = i64::from(local.hour() * 60 + local.minute());
    let (from, until) = (i64::from(from), i64::from(until));
    let quiet = if from <= until {
        (from..until).contains(&minute)
    } else {
        minute >= from || minute < until
    };
    if !quiet {
        return None;
    }
    let wait = (until - minute).rem_euclid(24 * 60);
    let at = now + chrono::Duration::minutes(wait);
    Some(at.with_second(0).unwrap_or(at))
}

/// The backoff after failed attempt number `attempts`, or the provider's `Retry-After`;
/// None once the push would arrive after its deadline or after `retry_for`.
fn next_try(
    settings: &crate::config::PushConfig,
    push: &ClaimedPush,
    after: Option<Duration>,
    now: DateTime<Utc>,
) -> Option<DateTime<Utc>> {
    let doublings = u32::try_from(push.attempts.max(0)).unwrap_or(0).min(20);
    let backoff = settings
        .retry_base
        .saturating_mul(1 << doublings)
        .min(MAX_DELAY)
        .mul_f64(rand::rng().random_range(0.75..1.25));
    let delay = after.map_or(backoff, |a| a.max(backoff).min(MAX_DELAY));
    let at = now + chrono::Duration::from_std(delay).ok()?;
    let mut end = push.created_at + chrono::Duration::from_std(settings.retry_for).ok()?;
    if let Some(deadline) = push.deadline {
        end = end.min(deadline);
    }
    (at <= end).then_some(at)
}

/// One attempt at `push` (none in its device's quiet hours): how it went.
async fn send_one(
    senders: &Senders,
    push: &ClaimedPush,
    settings: &crate::config::PushConfig,
    metrics: &PushMetrics,
) -> PushAttempt {
    let now = Utc::now();
    let provider = push.device.device.provider.clone();
    if let Some(at) = quiet_until(push, now) {
        PushAttempt::Deferred { at }
    } else {
        let note = text::notification(&push.body, &push.device.device.language);
        let ttl = push
            .deadline
            .and_then(|d| (d - now).to_std().ok())
            .unwrap_or(settings.retry_for)
            .max(MIN_TTL);
        let outcome = senders.send(push, &note, ttl).await;
        metrics.sent(&provider, outcome.label());
        tracing::info!(push = %push.id, %provider, outcome = ?outcome, "push attempt");
        match outcome {
            Outcome::Delivered(status) => PushAttempt::Delivered { status },
            Outcome::Gone { .. } => PushAttempt::Gone,
            Outcome::Refused { status, reason } => PushAttempt::Failed {
                status: (status != 0).then_some(status),
                error: reason,
                retry_at: None,
            },
            Outcome::Retry {
                status,
                reason,
                after,
            } => PushAttempt::Failed {
                status,
                error: reason,
                retry_at: next_try(settings, push, after, Utc::now()),
            },
        }
    }
}

/// The HTTP client of APNs and FCM: their hosts are the operator's configuration, not a
/// user's, so no address guard; an extra root certificate for a private relay.
pub(crate) fn provider_client(
    settings: &crate::config::PushConfig,
    http2_only: bool,
) -> anyhow::Result<reqwest::Client> {
    let mut builder = reqwest::Client::builder()
        .timeout(settings.timeout)
        .redirect(reqwest::redirect::Policy::none())
        .user_agent("racko-push");
    if http2_only {
        builder = builder.http2_prior_knowledge();
    }
    if let Some(file) = &settings.ca_file {
        let pem = std::fs::read(file)?;
        builder = builder.add_root_certificate(reqwest::Certificate::from_pem(&pem)?);
    }
    Ok(builder.build()?)
}

/// A failed request, in a few words for the delivery log (the whole error goes to the log).
pub(crate) fn no_answer(e: &reqwest::Error) -> Outcome {
    let mut cause = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        cause.push_str(": ");
        cause.push_str(&s.to_string());
        source = s.source();
    }
    tracing::info!(error = %cause, "push request failed");
    Outcome::Retry {
        status: None,
        reason: if e.is_timeout() {
            "timeout".into()
        } else if e.is_connect() {
            "connection failed".into()
        } else {
            "no answer".into()
        },
        after: None,
    }
}

#[cfg(test)]
mod tests;
