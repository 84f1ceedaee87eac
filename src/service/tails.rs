//! The recent tail of a game's log, shared by the streams of one process: when an action wakes
//! a thousand streams of one game, one of them reads the game and its last events from the
//! store, and each event is projected (R8) and serialized once per viewer class (each seat,
//! spectators, everyone), not once per stream: the streams share the encoded frames. A tail is
//! used only when it is known to be fresh enough: it reaches at least the seq of the wake-up
//! being served (a later commit wakes the stream again).
//!
//! Everything but the store read runs on the async workers: a cached tail costs a woken
//! stream a lock and a few reference counts, not a trip through the blocking pool.
//!
//! A write committed by this process hands its game and new events to the tail of a game
//! that streams here ([`Tails::follow`]) before it wakes the streams, so they need no store
//! read at all; a write of another process reaches them through the store, as before.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};

use racko_rules::Viewer;
use uuid::Uuid;

use super::{load_game, log_page::Projection};
use crate::blocking::blocking;
use crate::error::ServiceError;
use crate::notify::sse::{self, Frame};
use crate::store::{GameRecord, NewEvent, Store, StoredEvent};

/// Events a tail holds: a stream further behind reads the log itself.
pub const TAIL: i64 = 64;
/// Games with a tail at most; past it the map starts again empty.
const MAX_GAMES: usize = 4096;

/// A game as read, its events up to its `last_seq` (at most [`TAIL`] of them), and the frames
/// made of them so far, per viewer class.
pub struct Tail {
    pub record: GameRecord,
    /// Shared, so that a write's tail keeps the events before it without copying them.
    pub events: Vec<Arc<StoredEvent>>,
    /// Few classes (seats + spectator + everyone): a list beats a map.
    frames: Mutex<Vec<(Viewer, BTreeMap<i64, Frame>)>>,
}

impl Tail {
    pub fn new(record: GameRecord, events: Vec<Arc<StoredEvent>>) -> Tail {
        Tail {
            record,
            events,
            frames: Mutex::new(Vec::new()),
        }
    }

    /// Whether this tail holds every event after `after`.
    pub fn covers(&self, after: i64) -> bool {
        let first = self
            .events
            .first()
            .map_or(self.record.last_seq + 1, |e| e.seq);
        first <= after + 1 && after <= self.record.last_seq
    }

    /// The frames of the events after `after` (at most `limit`) as `viewer` may see them,
    /// projected with this tail's record (as `log_page::page` would with the same read).
    /// Each (viewer, event) is projected and serialized once; later callers share the bytes.
    pub fn frames(
        &self,
        viewer: Viewer,
        after: i64,
        limit: usize,
    ) -> Result<Vec<Frame>, ServiceError> {
        let mut classes = lock(&self.frames);
        let at = match classes.iter().position(|(v, _)| *v == viewer) {
            Some(at) => at,
            None => {
                classes.push((viewer, BTreeMap::new()));
                classes.len() - 1
            }
        };
        let made = &mut classes[at].1;
        let projection = Projection::for_viewer(&self.record, viewer);
        let mut out = Vec::new();
        for event in self.events.iter().filter(|e| e.seq > after).take(limit) {
            let frame = match made.get(&event.seq) {
                Some(frame) => frame.clone(),
                None => {
                    let entry = projection.stored(event)?;
                    let frame = sse::frame(entry.seq, &entry)?;
                    made.insert(event.seq, frame.clone());
                    frame
                }
            };
            out.push(frame);
        }
        Ok(out)
    }
}

/// One game's cached tail. An async lock: the streams woken together wait for the one store
/// read without holding a thread each.
type Slot = Arc<tokio::sync::Mutex<Option<Arc<Tail>>>>;

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
    pub async fn get(
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
        let mut cached = slot.lock().await;
        if let Some(tail) = cached.as_ref() {
            if tail.record.last_seq >= known && tail.covers(after) {
                return Ok(Some(tail.clone()));
            }
        }
        let tail = Arc::new(blocking(store, move |s| read(s, id)).await?);
        *cached = Some(tail.clone());
        Ok(tail.covers(after).then_some(tail))
    }

    /// Lets every cached tail go: the next read of each game goes to the store.
    pub fn forget_all(&self) {
        lock(&self.games).clear();
    }

    /// This process committed `record` with its new `events` (the last ones of its log): the
    /// cached tail of the game, if any stream here has one, moves on to it, keeping the
    /// events before when they join up. Never waits: while a stream is reading the store
    /// for this game the tail is left as that read makes it, and a stream woken for this
    /// commit that finds it behind reads again.
    pub fn follow(&self, record: &GameRecord, events: Vec<NewEvent>) {
        let Some(slot) = lock(&self.games).get(&record.id).cloned() else {
            return;
        };
        let Ok(mut cached) = slot.try_lock() else {
            return;
        };
        let first = record.last_seq + 1 - events.len() as i64;
        let mut kept = match cached.as_ref() {
            Some(tail) if tail.record.last_seq >= record.last_seq => return,
            Some(tail) if tail.record.last_seq + 1 == first => tail.events.clone(),
            _ => Vec::new(),
        };
        kept.extend((first..).zip(events).map(|(seq, e)| {
            Arc::new(StoredEvent {
                game_id: record.id,
                seq,
                round: e.round,
                kind: e.kind,
                actor: e.actor,
                payload: e.payload,
                created_at: record.updated_at,
            })
        }));
        let over = kept.len().saturating_sub(TAIL as usize);
        kept.drain(..over);
        *cached = Some(Arc::new(Tail::new(record.clone(), kept)));
    }
}

/// The record first, then events up to its last seq: events newer than the record are left
/// for the next wake-up, so each is projected with a state that knows its round.
fn read(store: &Store, id: Uuid) -> Result<Tail, ServiceError> {
    let record = load_game(store, id)?;
    let from = (record.last_seq - TAIL).max(0);
    let mut events = store.events(id, from, TAIL)?;
    events.retain(|e| e.seq <= record.last_seq);
    Ok(Tail::new(
        record,
        events.into_iter().map(Arc::new).collect(),
    ))
}
