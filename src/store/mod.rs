//! Persistence behind one narrow interface. Two backends share it: PostgreSQL (production) and
//! an embedded SQLite file (the default when no `DATABASE_URL` is set). Callers never learn which
//! one they talk to; backend differences (SQLite's WAL, busy timeout, write serialization) are
//! handled in here.
//!
//! TODO(store): implement with diesel (MultiConnection over PgConnection + SqliteConnection, r2d2
//! pool), embedded migrations per backend (`migrations/postgres`, `migrations/sqlite`) applied on
//! `Store::open` under a lock (PostgreSQL advisory lock) so several processes can start at once.

mod types;

pub use types::*;

use uuid::Uuid;

/// The store. Cheap to clone (shares the pool).
#[derive(Clone)]
pub struct Store {}

impl Store {
    /// Opens the store named by `url`: `postgres://…` / `postgresql://…` selects PostgreSQL;
    /// `sqlite://PATH` or a plain file path selects SQLite (the file and its folder are created).
    /// Applies pending migrations. A connection failure reports the backend's real error.
    pub fn open(url: &str, pool_size: u32) -> Result<Store, StoreError> {
        todo!("{url} {pool_size}")
    }

    /// Applies pending migrations only (the `migrate` subcommand); `open` also does this.
    pub fn migrate(url: &str) -> Result<(), StoreError> {
        todo!("{url}")
    }

    pub fn backend(&self) -> Backend {
        todo!()
    }

    /// A human description of where the data lives, for the start-up log line (no password).
    pub fn describe(&self) -> String {
        todo!()
    }

    /// For `/readyz`: one round trip to the database.
    pub fn ping(&self) -> Result<(), StoreError> {
        todo!()
    }

    // ---- settings (e.g. the embedded store's generated token secret) ----

    /// Returns the value stored under `key`, or stores `make()` under it and returns that;
    /// safe against concurrent callers (the first writer wins, everyone gets its value).
    pub fn setting_or_insert(
        &self,
        key: &str,
        make: impl FnOnce() -> String,
    ) -> Result<String, StoreError> {
        todo!("{key} {}", make())
    }

    // ---- accounts ----

    /// `StoreError::Conflict("username_taken")` when the username exists (case-insensitive).
    pub fn insert_account(&self, account: &NewAccount) -> Result<Account, StoreError> {
        todo!("{account:?}")
    }

    pub fn account(&self, id: Uuid) -> Result<Option<Account>, StoreError> {
        todo!("{id}")
    }

    /// Case-insensitive.
    pub fn account_by_username(&self, username: &str) -> Result<Option<Account>, StoreError> {
        todo!("{username}")
    }

    /// Turns a guest into a registered account (new username and password hash). Conflict
    /// `username_taken` as above; NotFound for an unknown id.
    pub fn upgrade_guest(
        &self,
        id: Uuid,
        username: &str,
        password_hash: &str,
    ) -> Result<Account, StoreError> {
        todo!("{id} {username} {password_hash}")
    }

    // ---- games ----

    /// Inserts a game, its seats and its first events (seq 1..), in one transaction.
    /// Conflict("invite_code_taken") if the invite code exists (the caller retries with another).
    pub fn insert_game(
        &self,
        game: &NewGame,
        events: &[NewEvent],
    ) -> Result<GameRecord, StoreError> {
        todo!("{game:?} {}", events.len())
    }

    pub fn game(&self, id: Uuid) -> Result<Option<GameRecord>, StoreError> {
        todo!("{id}")
    }

    pub fn game_by_invite_code(&self, code: &str) -> Result<Option<GameRecord>, StoreError> {
        todo!("{code}")
    }

    /// Games matching `query`, newest activity first, with a stable cursor for the next page.
    pub fn list_games(&self, query: &GameQuery) -> Result<GamePage, StoreError> {
        todo!("{query:?}")
    }

    /// The one write path of a game, in ONE transaction: loads the game (with its seats), calls
    /// `decide`, and when it returns a change: writes the new state/status/seats with a
    /// compare-and-set on `version` (`UPDATE … WHERE id = ? AND version = ?`, the new version
    /// is the old + 1; no row → `StoreError::StaleVersion { current }` and nothing is written),
    /// appends the events with gapless per-game sequence numbers continuing the log (unique
    /// (game_id, seq)), and stores the idempotency record if any. When `decide` fails nothing
    /// is written. Concurrent calls on one game never both apply. NotFound (via `E::from`) for
    /// an unknown game.
    pub fn update_game<T, E>(
        &self,
        id: Uuid,
        decide: impl FnOnce(&GameRecord) -> Result<(GameChange, T), E>,
    ) -> Result<T, E>
    where
        E: From<StoreError>,
    {
        let _ = (id, decide);
        todo!()
    }

    /// Events of a game with seq > `after`, ascending, at most `limit`.
    pub fn events(
        &self,
        game: Uuid,
        after: i64,
        limit: i64,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        todo!("{game} {after} {limit}")
    }

    // ---- idempotency ----

    /// The stored response for (account, key), if any.
    pub fn idempotency_record(
        &self,
        account: Uuid,
        key: &str,
    ) -> Result<Option<IdempotencyRecord>, StoreError> {
        todo!("{account} {key}")
    }
}
