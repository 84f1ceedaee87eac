//! Game time and due games: the store's clock (movable in test mode), the reminder lead,
//! and the due games the sweepers share out.

pub(super) mod vacations;

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use uuid::Uuid;

use super::{games, now, GameRecord, Store, StoreError};

impl Store {
    /// The service's one clock for game time: deadlines, `due_at`, the times of changes and
    /// events. In production it is the system's time ([`now`]); a server in test mode may be
    /// moved forward (`POST /v1/test/clock`) so that tests never sleep through a deadline.
    /// Each store has its own, so test servers in one process do not share a clock.
    pub fn now(&self) -> chrono::DateTime<chrono::Utc> {
        let now = now();
        // The offset only grows by test requests; past chrono's range the clock stops there
        // rather than panic.
        now.checked_add_signed(chrono::Duration::microseconds(self.clock_offset()))
            .unwrap_or(chrono::DateTime::<chrono::Utc>::MAX_UTC)
    }

    /// How far (microseconds) this store's clock is ahead of the system's.
    pub fn clock_offset(&self) -> i64 {
        self.clock_offset.load(Ordering::Relaxed)
    }

    /// Moves this store's clock to `micros` ahead of the system's, never back (test mode
    /// only: its callers check). Other processes learn it from the settings table.
    pub fn raise_clock_offset(&self, micros: i64) {
        self.clock_offset.fetch_max(micros, Ordering::Relaxed);
    }

    /// The store, reminding players this long before a deadline (at most half the turn
    /// time). The write path reads it when it works out when a game is due.
    pub fn with_reminder_lead(mut self, lead: Duration) -> Store {
        self.reminder_lead = lead;
        self
    }

    pub fn reminder_lead(&self) -> Duration {
        self.reminder_lead
    }

    pub(super) fn wake_sweeper_if_due(&self, game: &GameRecord) {
        if game.due_at.is_some_and(|due| due <= self.now()) {
            self.due.notify_one();
        }
    }

    /// Ids of the games whose `due_at` has come by `at`, most overdue first, at most `limit`.
    pub fn due_games(
        &self,
        at: chrono::DateTime<chrono::Utc>,
        limit: i64,
    ) -> Result<Vec<Uuid>, StoreError> {
        self.read(|c| games::due_games(c, at.naive_utc(), limit))
    }

    /// Sets game `id`'s `due_at` if it is still at `version`.
    pub fn set_due(
        &self,
        id: Uuid,
        version: i64,
        due_at: Option<chrono::DateTime<chrono::Utc>>,
    ) -> Result<(), StoreError> {
        self.write(|conn| games::set_due(conn, id, version, due_at.map(|d| d.naive_utc())))
    }

    /// Woken when a change leaves a game due now: this process's sweeper waits on it.
    pub fn due_signal(&self) -> &Arc<tokio::sync::Notify> {
        &self.due
    }
}
