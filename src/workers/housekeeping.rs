//! Work the server does on its own, on a timer, in every process: deleting Idempotency-Key
//! answers older than their time to live (`RACKO_IDEMPOTENCY_TTL_SECS`) and webhook
//! deliveries finished more than [`DELIVERY_RETENTION`] ago, and sessions that expired unused,
//! in bounded batches so that one sweep never holds the database for long; pairing and
//! deleting seeks (`seeks`); and finishing account deletions that were cut short. Several processes sweeping at once only share the
//! work.

use std::time::Duration;

use chrono::{DateTime, Utc};

use crate::service::Service;
use crate::store::{Store, StoreError};

/// Rows deleted per statement.
pub(super) const BATCH: i64 = 1000;

/// How long a delivered or failed webhook delivery stays in the delivery log: a week, time
/// to look into a failure, while the outbox does not grow without end.
pub const DELIVERY_RETENTION: Duration = Duration::from_secs(7 * 24 * 3600);

/// Runs forever (until the runtime stops): a sweep every `every`.
pub async fn run(store: Service, ttl: Duration, every: Duration) {
    let mut ticks = tokio::time::interval(every);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        let keys = store.clone();
        match tokio::task::spawn_blocking(move || expire_idempotency(&keys, ttl)).await {
            Ok(Ok(0)) => {}
            Ok(Ok(n)) => tracing::info!(deleted = n, "expired idempotency records"),
            Ok(Err(e)) => tracing::warn!(error = %e, "idempotency sweep failed"),
            Err(e) => tracing::warn!(error = %e, "idempotency sweep panicked"),
        }
        let deliveries = store.clone();
        let expire = move || expire_deliveries(&deliveries, DELIVERY_RETENTION);
        match tokio::task::spawn_blocking(expire).await {
            Ok(Ok(0)) => {}
            Ok(Ok(n)) => tracing::info!(deleted = n, "deleted finished webhook deliveries"),
            Ok(Err(e)) => tracing::warn!(error = %e, "delivery sweep failed"),
            Err(e) => tracing::warn!(error = %e, "delivery sweep panicked"),
        }
        let sessions = store.clone();
        let expire = move || in_batches(|| sessions.delete_expired_sessions(BATCH));
        match tokio::task::spawn_blocking(expire).await {
            Ok(Ok(0)) => {}
            Ok(Ok(n)) => tracing::info!(deleted = n, "deleted expired sessions"),
            Ok(Err(e)) => tracing::warn!(error = %e, "session sweep failed"),
            Err(e) => tracing::warn!(error = %e, "session sweep panicked"),
        }
        let seeks = store.clone();
        if let Err(e) = tokio::task::spawn_blocking(move || super::seeks::sweep(&seeks)).await {
            tracing::warn!(error = %e, "seek sweep panicked");
        }
        match crate::service::accounts::finish_unfinished_deletions(&store).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(finished = n, "finished account deletions cut short"),
            Err(e) => tracing::warn!(error = %e, "deletion sweep failed"),
        }
    }
}

/// Deletes the webhook deliveries finished more than `kept` ago; returns how many.
pub fn expire_deliveries(store: &Store, kept: Duration) -> Result<usize, StoreError> {
    let before = ago(kept);
    let webhooks = in_batches(|| store.delete_finished_deliveries(before, BATCH))?;
    Ok(webhooks + in_batches(|| store.delete_finished_pushes(before, BATCH))?)
}

/// Deletes the answers stored more than `ttl` ago; returns how many.
pub fn expire_idempotency(store: &Store, ttl: Duration) -> Result<usize, StoreError> {
    let before = ago(ttl);
    in_batches(|| store.delete_idempotency_records(before, BATCH))
}

/// The moment `span` ago (the start of time for a span too long to subtract).
fn ago(span: Duration) -> DateTime<Utc> {
    let span = chrono::Duration::from_std(span).unwrap_or(chrono::Duration::MAX);
    Utc::now()
        .checked_sub_signed(span)
        .unwrap_or(DateTime::<Utc>::MIN_UTC)
}

/// Runs `delete` (one batch) until a batch is not full; the rows deleted in all.
pub(super) fn in_batches(
    mut delete: impl FnMut() -> Result<usize, StoreError>,
) -> Result<usize, StoreError> {
    let mut total = 0;
    loop {
        let deleted = delete()?;
        total += deleted;
        if deleted < BATCH as usize {
            return Ok(total);
        }
    }
}
