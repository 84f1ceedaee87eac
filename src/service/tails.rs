//! The recent tail of a game's log, shared by the streams of one process: when an action wakes
//! a hundred streams of one game, one of them reads the game and its last events from the
//! store and the others project that same read for their viewers (R8), instead of a hundred
//! reads. A tail is used only when it is known to be fresh enough: it reaches at least the seq
//! of the wake-up being served (a later commit wakes the stream again).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use uuid::Uuid;

use super::load_game;
use crate::error::ServiceError;
use crate::store::{GameRecord, Store, StoredEvent};

/// Events a tail holds: a stream further behind reads the log itself.
pub const TAIL: i64 = 64;
/// Games with a tail at most; past it the map starts again empty.
const MAX_GAMES: usize = 4096;

/// A game as read, and its events up to its `last_seq` (at most [`TAIL`] of them).
pub struct Tail {
    pub record: GameRecord,
    pub events: Vec<StoredEvent>,
}

impl Tail {
    /// Whether this tail holds every event after `after`.
    pub fn covers(&self, after: i64) -> bool {
        let first = self
            .events
            .first()
            .map_or(self.record.last_seq + 1, |e| e.seq);
        first <= after + 1 && after <= self.record.last_seq
    }
}

type Slot = Arc<Mutex<Option<Arc<Tail>>>>;

#[derive(Default)]
pub struct Tails {
    games: Mutex<HashMap<Uuid, Slot>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // What the locks guard is a cache: a panic while holding one leaves nothing half-done.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Tails {
    /// The tail of game `id` that reaches at least seq `known` (a committed seq the caller
    /// was woken for), holding every event after `after`; read from the store when the cached
    /// one does not. Concurrent callers for one game wait for one read. None when `after` is
    /// too far behind for a tail.
    pub fn get(
        &self,
        store: &Store,
        id: Uuid,
        after: i64,
        known: i64,
    ) -> Result<Option<Arc<Tail>>, ServiceError> {
        if known - after > TAIL {
            return Ok(None);
        }
        let slot = {
            let mut games = lock(&self.games);
            if games.len() >= MAX_GAMES && !games.contains_key(&id) {
                games.clear();
            }
            games.entry(id).or_default().clone()
        };
        let mut cached = lock(&slot);
        if let Some(tail) = cached.as_ref() {
            if tail.record.last_seq >= known && tail.covers(after) {
                return Ok(Some(tail.clone()));
            }
        }
        // The record first, then events up to its last seq: events newer than the record are
        // left for the next wake-up, so each is projected with a state that knows its round.
        let record = load_game(store, id)?;
        let from = (record.last_seq - TAIL).max(0);
        let mut events = store.events(id, from, TAIL)?;
        events.retain(|e| e.seq <= record.last_seq);
        let tail = Arc::new(Tail { record, events });
        *cached = Some(tail.clone());
        Ok(tail.covers(after).then_some(tail))
    }
}
