//! What a decision of a game's change writes: the record as it reads afterwards and every row
//! written with it, made once per decision and handed to whichever path writes it.

use chrono::{DateTime, Utc};
use racko_rules::Game;

use super::{
    GameRecord, GameStatus, IdempotencyRecord, NewEvent, NewFeedItem, SeatRecord, StoreError,
};

impl GameRecord {
    /// The change `changed` with its `events` and `feed`, and the record as it reads after it:
    /// the one place where the version, the last seq and the time of a change are worked out,
    /// once per decision (the answer is built from this record, and the store writes it).
    pub fn after(
        &self,
        changed: Changed,
        events: Vec<NewEvent>,
        feed: Vec<NewFeedItem>,
    ) -> GameChange {
        let next = GameRecord {
            id: self.id,
            created_by: self.created_by,
            invite_code: self.invite_code.clone(),
            options: self.options.clone(),
            rules_version: self.rules_version,
            state: changed.state,
            status: changed.status,
            seats: changed.seats,
            test_mode: self.test_mode,
            stacked: self.stacked.clone(),
            version: self.version + 1,
            last_seq: self.last_seq + events.len() as i64,
            created_at: self.created_at,
            updated_at: changed.at,
            due_at: changed.due_at,
            rematch_id: self.rematch_id,
            access: self.access.clone(),
        };
        GameChange {
            next,
            events,
            feed,
            idempotency: None,
        }
    }
}

/// What a decision sets on a game (the rest of the record stays as it is).
#[derive(Clone, Debug)]
pub struct Changed {
    pub state: Game,
    pub status: GameStatus,
    /// The complete new list of seats (replaces the old one).
    pub seats: Vec<SeatRecord>,
    /// From [`now`]: the game's `updated_at` and the time of its new events.
    pub at: DateTime<Utc>,
    /// The game's `due_at` after the change.
    pub due_at: Option<DateTime<Utc>>,
}

/// What `Store::update_game`'s decision writes: the game as it reads afterwards and every row
/// written with it. Made by [`GameRecord::after`] only, so the record cannot disagree with the
/// game it was decided on. Both write paths (PostgreSQL's one statement, the transaction) take
/// their rows from here; a new kind of row is one more field.
#[derive(Clone, Debug)]
pub struct GameChange {
    next: GameRecord,
    pub events: Vec<NewEvent>,
    pub idempotency: Option<IdempotencyRecord>,
    /// Account feed items this change causes (each with its webhook and push rows), written
    /// in its transaction.
    pub feed: Vec<NewFeedItem>,
}

impl GameChange {
    /// The game as it reads after the change: what the store writes and returns.
    pub fn next(&self) -> &GameRecord {
        &self.next
    }

    /// The change is one decided on `current` (the store writes it over no other record).
    pub(super) fn check_base(&self, current: &GameRecord) -> Result<(), StoreError> {
        if self.next.id == current.id && self.next.version == current.version + 1 {
            return Ok(());
        }
        Err(StoreError::Internal(format!(
            "game {}: a change decided on version {} written over version {}",
            current.id,
            self.next.version - 1,
            current.version
        )))
    }

    /// The record as written, the events and the feed items, for what the store returns.
    pub(super) fn into_written(self) -> (GameRecord, Vec<NewEvent>, Vec<NewFeedItem>) {
        (self.next, self.events, self.feed)
    }
}

/// Why `Store::update_game` wrote nothing: the store failed, or the decision refused.
#[derive(Debug)]
pub enum UpdateError<E> {
    Store(StoreError),
    Decide(E),
}

impl<E> From<StoreError> for UpdateError<E> {
    fn from(e: StoreError) -> Self {
        UpdateError::Store(e)
    }
}

impl<E> From<diesel::result::Error> for UpdateError<E> {
    fn from(e: diesel::result::Error) -> Self {
        UpdateError::Store(e.into())
    }
}
