//! Persistence behind one narrow interface. Two backends share it: PostgreSQL (production) and
//! an embedded SQLite file (the default when no `DATABASE_URL` is set). Callers never learn which
//! one they talk to; backend differences (SQLite's WAL, busy timeout, write serialization) are
//! handled in here.
//!
//! One diesel `MultiConnection` over both backends ([`conn::AnyConnection`]) keeps one query
//! code path; one migrations folder per backend (`migrations/postgres`, `migrations/sqlite`),
//! embedded and applied on `Store::open` under a lock so several processes can start at once.

mod accounts;
mod audit;
mod backlog;
mod conn;
mod conninfo;
mod devices;
mod erase;
mod error;
mod feed;
mod friends;
mod games;
mod invitations;
mod list;
mod migrate;
mod outbox;
mod pg_write;
mod push_outbox;
mod recent;
mod replica;
mod retention;
mod rows;
mod schema;
mod sessions;
mod signed_in;
#[cfg(test)]
mod tests;
mod types;
mod wake;
mod webhook_body;
mod webhooks;

pub use audit::{AuditEventQuery, PlayerGamesPage, StoredEventPage};
pub use backlog::{Backlog, PoolUsage};
pub use devices::{Device, NewDevice, PushDelivery};
pub use feed::{NewFeedItem, StoredFeedItem};
pub use friends::{Accepted, Befriended, Bound, Circle, FriendLimits, Related, Unfriend};
pub use outbox::{Attempt, Claimed};
pub use push_outbox::{ClaimedPush, PushAttempt};
pub use recent::RecentGames;
pub use replica::ReplicaReads;
pub use sessions::{LiveSession, NewSession, Refreshed, SessionRecord, SignedInAccount};
pub use types::*;
pub use wake::{Relay, APPLICATION_NAME as RELAY_APPLICATION_NAME, RECHECK};
pub use webhooks::{Delivery, NewWebhook, Webhook};

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use diesel::connection::SimpleConnection;
use diesel::r2d2::{Pool, PooledConnection};
use uuid::Uuid;

pub use conn::Waits;
use conn::{begin_write, in_begun_tx, lock, sqlite_write_lock, AnyConnection, Manager, Target};

use crate::notify::{Hub, Topic, Wake};

/// libpq is built here with its own OpenSSL, which by default cleans up in an `atexit` handler:
/// a pool thread still holding a TLS connection when the process exits then crashes it
/// (SIGSEGV or abort after `main` returned). Initialising OpenSSL first, without that handler,
/// avoids it. Call before the first connection; `Store::open` does. Idempotent.
pub fn prepare_tls() {
    openssl_sys::init();
}

/// Six hours: a correspondence player checks in a few times a day.
pub const DEFAULT_REMINDER_LEAD: Duration = Duration::from_secs(6 * 3600);

/// The store. Cheap to clone (shares the pool).
#[derive(Clone)]
pub struct Store {
    pool: Pool<Manager>,
    target: Target,
    /// SQLite only: writers take it before a connection (see `conn::sqlite_write_lock`).
    write_lock: Option<Arc<parking_lot::Mutex<()>>>,
    waits: Waits,
    /// The last try to connect failed (shared with the pool's [`Manager`]).
    down: Arc<AtomicBool>,
    /// Who waits for which game or feed in this process; woken after each commit.
    hub: Arc<Hub>,
    /// The sweeper of this process waits on it (see `due_signal`).
    due: Arc<tokio::sync::Notify>,
    /// How far game time is ahead of the system's, in microseconds (see [`Store::now`]).
    clock_offset: Arc<AtomicI64>,
    /// How long before a deadline its player is reminded (see [`Store::with_reminder_lead`]).
    reminder_lead: Duration,
    /// Statements the pool's connections sent (PostgreSQL only).
    statements: Arc<AtomicU64>,
    /// Accounts as token checks read them, for a few seconds (PostgreSQL only).
    signed_in: Arc<signed_in::SignedIn>,
    /// Wake-ups committed here, for the relay to send to the other processes (PostgreSQL).
    announcements: Arc<wake::Announcements>,
    /// A hot standby for the reads that may go there (`replica`).
    replica: Option<Arc<replica::Replica>>,
}

/// A request waiting for a connection checks this often whether the database is known to be
/// down (then it is told so; the pool keeps trying in the background and recovers by itself).
const WAIT_SLICE: Duration = Duration::from_millis(250);

impl Store {
    /// Opens the store named by `url`: `postgres://…` / `postgresql://…` selects PostgreSQL;
    /// `sqlite://PATH` or a plain file path selects SQLite (the file and its folder are created).
    /// Applies pending migrations. A connection failure reports the backend's real error.
    pub fn open(url: &str, pool_size: u32) -> Result<Store, StoreError> {
        Store::open_with(url, pool_size, Waits::default())
    }

    /// As [`Store::open`], with every wait of a request bounded by `waits`.
    pub fn open_with(url: &str, pool_size: u32, waits: Waits) -> Result<Store, StoreError> {
        prepare_tls();
        let target = Target::parse(url)?;
        migrate::run(&target)?;
        let write_lock = match &target {
            Target::Sqlite(path, _) => Some(sqlite_write_lock(path)),
            Target::Pg(_) => None,
        };
        let down = Arc::new(AtomicBool::new(false));
        let statements = Arc::new(AtomicU64::new(0));
        let manager = Manager {
            target: target.clone(),
            waits,
            down: down.clone(),
            statements: statements.clone(),
        };
        let pool = Pool::builder()
            .max_size(pool_size.max(1))
            .min_idle(Some(1))
            // No `SELECT 1` before each use (a round trip per request): a connection found
            // lost is dropped when it goes back instead (`conn::mark_broken`).
            .test_on_check_out(false)
            .connection_timeout(waits.connect)
            .build(manager)
            .map_err(|e| {
                StoreError::Unavailable(format!("cannot open the connection pool: {e}"))
            })?;
        Ok(Store {
            pool,
            target,
            write_lock,
            waits,
            down,
            hub: wake::new_hub(),
            due: Arc::new(tokio::sync::Notify::new()),
            clock_offset: Arc::new(AtomicI64::new(0)),
            reminder_lead: DEFAULT_REMINDER_LEAD,
            statements,
            signed_in: Arc::default(),
            announcements: Arc::default(),
            replica: None,
        })
    }

    /// Applies pending migrations only (the `migrate` subcommand); `open` also does this.
    pub fn migrate(url: &str) -> Result<(), StoreError> {
        prepare_tls();
        migrate::run(&Target::parse(url)?)
    }

    pub fn backend(&self) -> Backend {
        match self.target {
            Target::Pg(_) => Backend::Postgres,
            Target::Sqlite(..) => Backend::Sqlite,
        }
    }

    /// A human description of where the data lives, for the start-up log line (no password).
    pub fn describe(&self) -> String {
        self.target.describe()
    }

    /// How many statements (round trips) this store has sent to PostgreSQL so far: the
    /// `racko_db_statements_total` metric, and what tests count a request's round trips with.
    /// Always 0 on SQLite, which is in the process.
    pub fn statements(&self) -> u64 {
        self.statements.load(Ordering::Relaxed)
    }

    /// For `/readyz`: one round trip to the database.
    pub fn ping(&self) -> Result<(), StoreError> {
        self.read(|c| Ok(c.batch_execute("SELECT 1")?))
    }

    // ---- settings (e.g. the embedded store's generated token secret) ----

    /// Returns the value stored under `key`, or stores `make()` under it and returns that;
    /// safe against concurrent callers (the first writer wins, everyone gets its value).
    pub fn setting_or_insert(
        &self,
        key: &str,
        make: impl FnOnce() -> String,
    ) -> Result<String, StoreError> {
        self.setting_or_insert_impl(key, make)
    }

    // ---- accounts ----

    /// `StoreError::Conflict(Code::UsernameTaken)` when the username exists (case-insensitive).
    pub fn insert_account(&self, account: &NewAccount) -> Result<Account, StoreError> {
        self.insert_account_impl(account)
    }

    pub fn account(&self, id: Uuid) -> Result<Option<Account>, StoreError> {
        self.account_where(Some(id), None)
    }

    /// The account and its live sessions as a token check needs them, if this process read
    /// them within the last few seconds and they have not changed since (see `signed_in`);
    /// None: ask [`Store::account_for_token`]. Never waits.
    pub fn recent_account(&self, id: Uuid) -> Option<SignedInAccount> {
        self.signed_in.get(id)
    }

    /// The account and its live sessions, for a token check (one statement): kept for
    /// [`Store::recent_account`] on PostgreSQL.
    pub fn account_for_token(&self, id: Uuid) -> Result<Option<SignedInAccount>, StoreError> {
        let ticket = self.signed_in.ticket();
        let signed_in = self.signed_in_account(id)?;
        if let (Some(signed_in), Target::Pg(_)) = (&signed_in, &self.target) {
            self.signed_in.put(ticket, signed_in.clone());
        }
        Ok(signed_in)
    }

    /// Case-insensitive.
    pub fn account_by_username(&self, username: &str) -> Result<Option<Account>, StoreError> {
        self.account_where(None, Some(username))
    }

    /// "Sign out everywhere": tokens issued so far stop working and every session ends.
    /// NotFound for no such account.
    pub fn revoke_tokens(&self, id: Uuid) -> Result<(), StoreError> {
        self.revoke_tokens_impl(id)
    }

    /// The first step of leaving for good, in one commit: every token is revoked, the password
    /// hash erased and the account marked deleted, so that from here on nothing can sign in
    /// as it or seat it in a game (the seat check refuses it inside the seating transaction).
    /// Repeatable; NotFound for an unknown id.
    pub fn begin_deletion(&self, id: Uuid) -> Result<(), StoreError> {
        self.begin_deletion_impl(id)
    }

    /// Accounts whose deletion began but whose name is not erased yet (a deletion cut short),
    /// at most `limit`. `erased_prefix` starts every erased name.
    pub fn unfinished_deletions(
        &self,
        erased_prefix: &str,
        limit: i64,
    ) -> Result<Vec<Uuid>, StoreError> {
        self.unfinished_deletions_impl(erased_prefix, limit)
    }

    /// The last step of leaving for good, in one transaction: the username becomes `username`
    /// (a pseudonym) on the account and everywhere a reader sees the old one (seats, lobby
    /// facts, feed items, webhook bodies; see `store::erase`), the password hash is erased,
    /// the tokens revoked and the sessions ended. The row stays: seats and logs refer to it.
    /// `Conflict(UsernameTaken)` when `username` exists; NotFound for an unknown id.
    pub fn erase_account(&self, id: Uuid, username: &str) -> Result<(), StoreError> {
        self.erase_account_impl(id, username)
    }

    /// Turns a guest into a registered account (new username and password hash); the guest's
    /// tokens are revoked and its sessions ended.
    /// `Conflict(UsernameTaken)` as above; `Conflict(NotAGuest)` when the account is registered
    /// already (also when two upgrades of one guest race); NotFound for an unknown id.
    pub fn upgrade_guest(
        &self,
        id: Uuid,
        username: &str,
        password_hash: &str,
    ) -> Result<Account, StoreError> {
        self.upgrade_guest_impl(id, username, password_hash)
    }

    // ---- games ----

    /// Inserts a game, its seats, its first events (seq 1..) and the answer for its
    /// Idempotency-Key if any, in one transaction; returns the record as written.
    /// `Conflict(InviteCodeTaken)` if the invite code exists (the caller retries with another),
    /// `Conflict(IdempotencyKeyTaken)` if another request with the key won.
    pub fn insert_game(
        &self,
        game: &NewGame,
        events: &[NewEvent],
        idempotency: Option<&IdempotencyRecord>,
    ) -> Result<GameRecord, StoreError> {
        let record = self.write(|conn| games::insert_game(conn, game, events, idempotency))?;
        self.woke(&[game_wake(&record)]);
        self.wake_sweeper_if_due(&record);
        Ok(record)
    }

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

    fn wake_sweeper_if_due(&self, game: &GameRecord) {
        if game.due_at.is_some_and(|due| due <= self.now()) {
            self.due.notify_one();
        }
    }

    pub fn game(&self, id: Uuid) -> Result<Option<GameRecord>, StoreError> {
        self.read(|c| games::read_game(c, Some(id), None))
    }

    pub fn game_by_invite_code(&self, code: &str) -> Result<Option<GameRecord>, StoreError> {
        self.read(|c| games::read_game(c, None, Some(code)))
    }

    /// Games matching `query`, newest activity first, with a stable cursor for the next page.
    /// The limit is clamped to 1..=100; `awaiting_player` needs `player` (ignored without);
    /// a cursor that does not decode is `BadInput(InvalidCursor)`.
    pub fn list_games(&self, query: &GameQuery) -> Result<GameRecordPage, StoreError> {
        self.read(|c| list::list_games(c, query))
    }

    /// The games waiting for `player`, the nearest deadline first (no deadline last).
    pub fn awaiting_by_deadline(
        &self,
        player: Uuid,
        limit: i64,
        cursor: Option<&str>,
    ) -> Result<GameRecordPage, StoreError> {
        self.read(|c| list::awaiting_by_deadline(c, player, limit, cursor))
    }

    /// A game's change, all or nothing (the store's half of `service::write`): loads the game
    /// (with its seats), calls `decide`, and when it returns a change: writes the record
    /// `GameRecord::after` gives with a compare-and-set on `version` (`UPDATE … WHERE id = ?
    /// AND version = ?`; no row → `StaleVersion { current }` and nothing is written), appends
    /// the events with gapless per-game sequence numbers continuing the log (unique (game_id,
    /// seq)), the feed items and outbox rows, and stores the idempotency record if any.
    /// Returns the record as written and `decide`'s answer. When `decide` fails nothing is
    /// written. `decide` may run more than once: on PostgreSQL the change is first decided on
    /// the game as this process last wrote it (`recent`), else on the game read without a
    /// lock, and written in one statement (`update_game_in_one_statement`); when another
    /// writer came in between, it is decided again on the game read, and then in a
    /// transaction that holds the game's row lock, as on SQLite (under the file's write
    /// lock). So concurrent calls on one game queue, each `decide` sees the state the previous
    /// one left, and the compare-and-set stays as the guard. Keep `decide` pure and quick.
    /// `Store(NotFound)` for an unknown game.
    pub fn update_game<T, E>(
        &self,
        id: Uuid,
        decide: impl Fn(&GameRecord) -> Result<(GameChange, T), E>,
    ) -> Result<(GameRecord, T), UpdateError<E>> {
        self.update_game_locking(id, false, decide)
    }

    /// As [`Store::update_game`], but a game another transaction holds is skipped at once
    /// (`Locked`) instead of waited for: for the sweepers, which share out due games.
    pub fn update_game_unless_held<T, E>(
        &self,
        id: Uuid,
        decide: impl Fn(&GameRecord) -> Result<(GameChange, T), E>,
    ) -> Result<(GameRecord, T), UpdateError<E>> {
        self.update_game_locking(id, true, decide)
    }

    fn update_game_locking<T, E>(
        &self,
        id: Uuid,
        skip_locked: bool,
        decide: impl Fn(&GameRecord) -> Result<(GameChange, T), E>,
    ) -> Result<(GameRecord, T), UpdateError<E>> {
        let in_one_statement = match self.target {
            Target::Pg(_) if !skip_locked => self.update_game_in_one_statement(id, &decide)?,
            _ => None,
        };
        // None: SQLite, the sweeper, or another writer came between the read and the write.
        // Then queue behind the game's lock and decide on what is there.
        let Updated {
            written,
            answer,
            wakes,
            events,
            feed,
        } = match in_one_statement {
            Some(done) => done,
            None => self.update_game_in_transaction(id, skip_locked, &decide)?,
        };
        if let Target::Pg(_) = self.target {
            self.hub.recent.keep(&written);
        }
        // Before the wake-ups: the streams they wake here then find what is new in memory.
        self.hub
            .feeds
            .follow(feed::as_stored(&written, &wakes, feed));
        self.hub.tails.follow(&written, events);
        self.woke(&wakes);
        self.wake_sweeper_if_due(&written);
        Ok((written, answer))
    }

    /// Replaces the accounts invited to game `id` with what `decide` makes of the game as it
    /// is (read under the game's lock, in one transaction). The version moves on; no event is
    /// logged (an invitation is not a move of the game). `Store(NotFound)` for an unknown game.
    pub fn update_invited<E>(
        &self,
        id: Uuid,
        decide: impl Fn(&GameRecord) -> Result<Vec<Invitee>, E>,
    ) -> Result<GameRecord, UpdateError<E>> {
        let at = self.now();
        let written = self.write(|conn| {
            games::lock_game(conn, id, false)?;
            let current = games::read_game(conn, Some(id), None)?.ok_or(StoreError::NotFound)?;
            let invited = decide(&current).map_err(UpdateError::Decide)?;
            Ok::<_, UpdateError<E>>(games::set_invited(conn, &current, &invited, at)?)
        })?;
        if let Target::Pg(_) = self.target {
            self.hub.recent.keep(&written);
        }
        Ok(written)
    }

    /// The locking form of [`Store::update_game`]: one transaction that holds the game's row
    /// (PostgreSQL) or the file's write lock (SQLite). Returns the wake-ups to send.
    fn update_game_in_transaction<T, E>(
        &self,
        id: Uuid,
        skip_locked: bool,
        decide: &impl Fn(&GameRecord) -> Result<(GameChange, T), E>,
    ) -> Result<Updated<T>, UpdateError<E>> {
        self.write(|conn| {
            games::lock_game(conn, id, skip_locked)?;
            let current = games::read_game(conn, Some(id), None)?.ok_or(StoreError::NotFound)?;
            let (change, answer) = decide(&current).map_err(UpdateError::Decide)?;
            let written = games::apply_change(conn, &current, &change)?;
            // The feed items commit (or roll back) with the change.
            let mut wakes = feed::append(conn, &written, &change.feed)?;
            wakes.push(game_wake(&written));
            Ok::<_, UpdateError<E>>(Updated {
                written,
                answer,
                wakes,
                events: change.events,
                feed: change.feed,
            })
        })
    }

    /// PostgreSQL's form of [`Store::update_game`] (issue 14): the game and its seats are read
    /// in one query, with no transaction and no lock, and the change is written in one
    /// statement whose compare-and-set on the version makes it apply only to the game as
    /// read (`pg_write`). Two round trips where the locking transaction took about a dozen.
    /// Another writer between the two: `None`, and nothing written (the caller then takes
    /// the locking path, where writers queue). The connection goes back to the pool first.
    fn update_game_in_one_statement<T, E>(
        &self,
        id: Uuid,
        decide: &impl Fn(&GameRecord) -> Result<(GameChange, T), E>,
    ) -> Result<Option<Updated<T>>, UpdateError<E>> {
        let mut conn = self.conn()?;
        // The game as read after a failed write on the kept game, if it came to that.
        let mut read = None;
        // The game as this process wrote it last: if that is still the game, the write's
        // compare-and-set says so, and the action took one round trip. A refusal, by the
        // compare-and-set or by `decide`, is never the last word: the game is read and the
        // action decided again on what is there.
        if let Some(kept) = self.hub.recent.get(id) {
            if let Ok((change, answer)) = decide(&kept) {
                match mark_if_lost(&mut conn, |c| {
                    write_in_one_statement(c, &kept, change, answer)
                }) {
                    Ok(Some(done)) => return Ok(Some(done)),
                    Ok(None) => {}
                    // A failed write may have committed all the same (the connection broke
                    // after it) or not have run at all (the connection had died while idle).
                    // Only when the game is still at the kept version is it sure not to have
                    // happened, and safe to decide again.
                    Err(e @ StoreError::Unavailable(_)) => {
                        conn = self.conn()?;
                        let now = self.fresh(&mut conn, |c| games::read_game(c, Some(id), None))?;
                        match now {
                            Some(game) if game.version == kept.version => read = Some(game),
                            _ => return Err(e.into()),
                        }
                    }
                    Err(e) => return Err(e.into()),
                }
            }
        }
        let current = match read {
            Some(game) => game,
            None => self
                .fresh(&mut conn, |c| games::read_game(c, Some(id), None))?
                .ok_or(StoreError::NotFound)?,
        };
        let (change, answer) = decide(&current).map_err(UpdateError::Decide)?;
        // (A lost connection is dropped by the pool: see `conn::watch_statement`.)
        Ok(write_in_one_statement(&mut conn, &current, change, answer)?)
    }

    /// Runs `read` on a pooled connection, once more on a new one when that one was lost
    /// (see [`Store::fresh`]).
    pub(super) fn read<T>(
        &self,
        read: impl Fn(&mut AnyConnection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mut conn = self.conn()?;
        self.fresh(&mut conn, read)
    }

    /// Runs `read` on `conn`, a pooled connection that may have died while it sat idle (the
    /// pool no longer checks each one with a query of its own, issue 14): when it did, the
    /// connection is marked for the pool to drop, and `read` runs again on another. After a
    /// restart of the database every idle connection is dead, so this goes on through the
    /// pool (each dead one fails at once) until a new connection answers or cannot be made.
    pub(super) fn fresh<T>(
        &self,
        conn: &mut PooledConnection<Manager>,
        read: impl Fn(&mut AnyConnection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mut tries = self.pool.max_size() + 1;
        loop {
            match mark_if_lost(conn, &read) {
                Err(StoreError::Unavailable(_)) if tries > 0 => {
                    tries -= 1;
                    *conn = self.conn()?;
                }
                other => return other,
            }
        }
    }

    // ---- the server's own moves (issues 11 and 12) ----

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

    /// Stores `value` under `key`, replacing what was there.
    pub fn put_setting(&self, key: &str, value: &str) -> Result<(), StoreError> {
        self.write(|conn| accounts::put_setting(conn, key, value))
    }

    /// The value stored under `key`, if any.
    pub fn setting(&self, key: &str) -> Result<Option<String>, StoreError> {
        self.read(|c| accounts::setting(c, key))
    }

    // ---- notifications ----

    /// After a commit: wakes this process's waiters on `wakes` at once, and queues them for the
    /// other processes (see `wake`).
    fn woke(&self, wakes: &[Wake]) {
        for wake in wakes {
            self.hub.wake(*wake);
        }
        self.announcements.push(wakes);
    }

    /// This process's hub: subscribe to a game or an account feed before reading it.
    pub fn hub(&self) -> &Arc<Hub> {
        &self.hub
    }

    /// PostgreSQL: what relays other processes' commits to this hub (run it on a thread);
    /// None on SQLite, where every writer is in this process and wakes the hub itself.
    pub fn relay(&self) -> Option<Relay> {
        match &self.target {
            Target::Pg(url) => Some(Relay {
                url: conn::with_connect_timeout(url, self.waits.connect),
                hub: Arc::downgrade(&self.hub),
                signed_in: Arc::downgrade(&self.signed_in),
                announcements: self.announcements.clone(),
            }),
            Target::Sqlite(..) => None,
        }
    }

    /// Items of `account`'s feed with seq > `after`, ascending, at most `limit`.
    pub fn feed(
        &self,
        account: Uuid,
        after: i64,
        limit: i64,
    ) -> Result<Vec<StoredFeedItem>, StoreError> {
        self.read(|c| feed::read(c, account, after, limit))
    }

    /// Events of a game with seq > `after`, ascending, at most `limit`.
    pub fn events(
        &self,
        game: Uuid,
        after: i64,
        limit: i64,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        self.read(|c| games::events(c, game, after, limit))
    }

    // ---- idempotency ----

    /// The stored response for (account, key), if any.
    pub fn idempotency_record(
        &self,
        account: Uuid,
        key: &str,
    ) -> Result<Option<IdempotencyRecord>, StoreError> {
        self.read(|c| games::idempotency_record(c, account, key))
    }

    /// Deletes at most `batch` idempotency records stored before `before`; returns how many.
    pub fn delete_idempotency_records(
        &self,
        before: chrono::DateTime<chrono::Utc>,
        batch: i64,
    ) -> Result<usize, StoreError> {
        self.write(|conn| games::delete_idempotency_before(conn, before.naive_utc(), batch))
    }

    /// A pooled connection, waiting at most the connect wait. The wait is cut into short
    /// slices so that, once a try to connect has failed (the database is down), the request
    /// is told so at once instead of waiting out the whole time. No connection in time:
    /// `Unavailable` when connecting fails, else `Busy` (every connection is in use).
    fn conn(&self) -> Result<PooledConnection<Manager>, StoreError> {
        let deadline = std::time::Instant::now() + self.waits.connect;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self
                .pool
                .get_timeout(WAIT_SLICE.min(left).max(Duration::from_millis(1)))
            {
                Ok(conn) => return Ok(conn),
                Err(e) if self.down.load(Ordering::Relaxed) => {
                    return Err(StoreError::Unavailable(format!(
                        "no database connection: {e}"
                    )))
                }
                Err(e) if left <= WAIT_SLICE => {
                    return Err(StoreError::Busy(format!(
                        "no free database connection: {e}"
                    )))
                }
                Err(_) => {}
            }
        }
    }

    /// Runs `f` in a write transaction; on SQLite under the file's write lock, taken before
    /// the pooled connection so that waiting writers do not hold connections.
    fn write<T, E>(&self, f: impl FnOnce(&mut AnyConnection) -> Result<T, E>) -> Result<T, E>
    where
        E: From<StoreError> + From<diesel::result::Error>,
    {
        let _guard = match self.write_lock.as_deref() {
            Some(m) => Some(lock(m, self.waits.lock)?),
            None => None,
        };
        let mut conn = self.conn()?;
        // A connection lost while it sat idle fails at BEGIN, before anything is sent that
        // could be applied: then the write begins again on another (see `fresh`).
        self.fresh(&mut conn, begin_write)?;
        in_begun_tx(&mut conn, f)
    }
}

/// A committed change of a game.
struct Updated<T> {
    /// The game as written.
    written: GameRecord,
    /// What the decision gives the caller.
    answer: T,
    /// The wake-ups to send: the game's, and one per account whose feed grew.
    wakes: Vec<Wake>,
    /// The new events, in seq order.
    events: Vec<NewEvent>,
    /// The new feed items, in the order of their seqs within each account.
    feed: Vec<NewFeedItem>,
}

/// A connection whose database went away (`Unavailable`) is marked broken, so that the pool
/// drops it when it comes back instead of handing it out again.
fn mark_if_lost<T>(
    conn: &mut AnyConnection,
    f: impl FnOnce(&mut AnyConnection) -> Result<T, StoreError>,
) -> Result<T, StoreError> {
    let result = f(conn);
    if let Err(StoreError::Unavailable(_)) = &result {
        conn::mark_broken(conn);
    }
    result
}

/// Writes `change` over `current` in PostgreSQL's one statement (`pg_write`): None when the
/// compare-and-set found another version.
fn write_in_one_statement<T>(
    conn: &mut AnyConnection,
    current: &GameRecord,
    change: GameChange,
    answer: T,
) -> Result<Option<Updated<T>>, StoreError> {
    let AnyConnection::Pg(pg) = conn else {
        return Err(StoreError::Internal("not a PostgreSQL connection".into()));
    };
    Ok(
        pg_write::write_change(pg, current, &change)?.map(|(written, mut wakes)| {
            wakes.push(game_wake(&written));
            Updated {
                written,
                answer,
                wakes,
                events: change.events,
                feed: change.feed,
            }
        }),
    )
}

fn game_wake(game: &GameRecord) -> Wake {
    Wake {
        topic: Topic::Game(game.id),
        seq: game.last_seq,
    }
}
