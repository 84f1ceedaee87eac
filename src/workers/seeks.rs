//! The seek pool's housekeeping: pairing the pools where two accounts or more still seek
//! (a seek pairs when it is made; this makes up for a pass that failed then), and deleting
//! seeks that ended or expired more than [`SEEK_RETENTION`] ago.

use std::time::Duration;

use crate::service::{seek_pairing, Service};

/// How long an ended or expired seek stays readable by its seeker.
pub const SEEK_RETENTION: Duration = Duration::from_secs(24 * 3600);

/// One pass (blocking: run it off the async workers).
pub fn sweep(store: &Service) {
    match seek_pairing::sweep(store) {
        Ok(0) => {}
        Ok(n) => tracing::info!(games = n, "paired waiting seeks"),
        Err(e) => tracing::warn!(error = %e, "seek pairing sweep failed"),
    }
    let before = store.now() - chrono::Duration::from_std(SEEK_RETENTION).unwrap_or_default();
    match super::housekeeping::in_batches(|| {
        store.delete_old_seeks(before, super::housekeeping::BATCH)
    }) {
        Ok(0) => {}
        Ok(n) => tracing::info!(deleted = n, "deleted old seeks"),
        Err(e) => tracing::warn!(error = %e, "seek deletion failed"),
    }
}
