//! Attempts are recorded in batches: one write transaction for every attempt that finished
//! while the previous write ran, rather than one per push, so that pushing takes the store's
//! write lock (SQLite) or a commit (PostgreSQL) far less often than the actions that cause
//! the pushes. A send's slot is held until its attempt is written, so a process has no more
//! than its share of pushes between send and record. A batch that cannot be written leaves
//! its pushes to their leases: they are sent again (at least once).

use tokio::sync::{mpsc, OwnedSemaphorePermit};

use crate::blocking::blocking;
use crate::store::{ClaimedPush, PushAttempt, Store};

/// Attempts written in one transaction at most.
const BATCH: usize = 64;

/// An attempt to write, and the slot of its send.
pub(super) struct Finished {
    pub push: ClaimedPush,
    pub attempt: PushAttempt,
    pub slot: OwnedSemaphorePermit,
}

/// Starts the recorder of this process's attempts; send it each attempt as it finishes.
pub(super) fn start(store: Store) -> mpsc::UnboundedSender<Finished> {
    let (tx, mut rx) = mpsc::unbounded_channel::<Finished>();
    actix_web::rt::spawn(async move {
        let mut batch = Vec::with_capacity(BATCH);
        while rx.recv_many(&mut batch, BATCH).await > 0 {
            let (rows, slots): (Vec<_>, Vec<_>) = batch
                .drain(..)
                .map(|f| ((f.push, f.attempt), f.slot))
                .unzip();
            let n = rows.len();
            if let Err(e) = blocking(&store, move |s| s.finish_pushes(&rows)).await {
                // The leases run out and the pushes are tried again: at least once.
                tracing::warn!(pushes = n, error = %e, "cannot record push attempts");
            }
            drop(slots);
        }
    });
    tx
}
