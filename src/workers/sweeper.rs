//! The sweeper every `racko serve` process runs: it finds the games whose
//! `due_at` has come, through the partial index on it, and makes the moves they are due
//! (`service::sweep`). It looks when a change in this process leaves a game due now (a
//! computer's turn: played at once) and every `every` otherwise (deadlines, and changes made
//! by other processes). `due_at` is stored with each change, so after a crash or `kill -9` the
//! next process to look finds the same work; several processes share it (a game one of them
//! holds is skipped by the others).

use std::collections::HashSet;
use std::time::Duration;

use uuid::Uuid;

use crate::service::sweep::{sweep_game, Swept};
use crate::service::Service;
use crate::store::Store;

/// Games fetched per look.
const BATCH: i64 = 32;

/// The settings key of the test clock's offset (microseconds), shared by every process.
pub const CLOCK_OFFSET_KEY: &str = "test_clock_offset_micros";

/// Runs until the runtime stops.
pub async fn run(store: Service, every: Duration, test_mode: bool) {
    loop {
        if test_mode {
            sync_clock(&store).await;
        }
        sweep_due(&store).await;
        let signal = store.due_signal().clone();
        tokio::select! {
            _ = signal.notified() => {}
            _ = tokio::time::sleep(every) => {}
        }
    }
}

/// Test mode: moves this process's clock to the offset another process may have set.
pub async fn sync_clock(store: &Store) {
    let s = store.clone();
    let read = tokio::task::spawn_blocking(move || s.setting(CLOCK_OFFSET_KEY)).await;
    if let Ok(Ok(Some(value))) = read {
        if let Ok(micros) = value.parse::<i64>() {
            store.raise_clock_offset(micros);
        }
    }
}

/// Sweeps due games until none is left that this process could move. A game that fails or is
/// held is not tried again in this pass, so a fault never turns into a busy loop.
pub async fn sweep_due(store: &Service) {
    let mut passed: HashSet<Uuid> = HashSet::new();
    loop {
        let s = store.clone();
        let due = match tokio::task::spawn_blocking(move || s.due_games(s.now(), BATCH)).await {
            Ok(Ok(ids)) => ids,
            Ok(Err(e)) => return tracing::warn!(error = %e, "cannot read the due games"),
            Err(e) => return tracing::warn!(error = %e, "due games read panicked"),
        };
        let fresh: Vec<Uuid> = due.into_iter().filter(|id| !passed.contains(id)).collect();
        if fresh.is_empty() {
            return;
        }
        for id in fresh {
            let s = store.clone();
            match tokio::task::spawn_blocking(move || sweep_game(&s, id)).await {
                // Moved: the game may be due again at once (the next computer): look again.
                Ok(Ok(Swept::Moved { .. })) => {}
                Ok(Ok(Swept::NothingDue | Swept::Held)) => {
                    passed.insert(id);
                }
                Ok(Err(e)) => {
                    tracing::warn!(game = %id, code = %e.code, error = %e.detail, "sweep failed");
                    passed.insert(id);
                }
                Err(e) => {
                    tracing::warn!(game = %id, error = %e, "sweep panicked");
                    passed.insert(id);
                }
            }
        }
    }
}
