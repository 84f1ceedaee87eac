//! Persistence behind one narrow interface over two backends: PostgreSQL (production) and an
//! embedded SQLite file (the default when no `DATABASE_URL` is set). Callers never learn which;
//! backend differences (SQLite's WAL, busy timeout, write serialization) are handled in here.
//!
//! One diesel `MultiConnection` over both backends ([`conn::AnyConnection`]) keeps one query
//! code path; one migrations folder per backend (`migrations/postgres`, `migrations/sqlite`),
//! embedded and applied on `Store::open` under a lock so several processes can start at once.

mod accounts;
mod audit;
mod backlog;
mod change;
mod chat;
mod conn;
mod conninfo;
mod deadlines;
mod delivery_bodies;
mod devices;
mod erase;
mod error;
mod feed;
mod friend_reads;
mod friends;
mod games;
mod group_commit;
mod idempotency;
mod invitations;
mod list;
mod literal;
mod migrate;
mod on_demand;
mod outbox;
mod pg_batch;
mod pg_write;
mod prepared;
mod probes;
mod push_outbox;
mod ratings;
mod recent;
mod replica;
mod retention;
mod rows;
mod schema;
mod seek_pairing;
mod seeks;
mod sessions;
mod signed_in;
#[cfg(test)]
mod tests;
mod topic;
mod types;
mod update;
mod wake;
mod webhooks;

pub use audit::{AuditEventQuery, PlayerGamesPage, StoredEventPage};
pub use backlog::{Backlog, PoolUsage};
pub use chat::{ChatMessage, ChatPosted, ChatRate, ChatReport, ChatReported, NewChatMessage};
pub use devices::{Device, NewDevice, PushDelivery};
pub use feed::{NewFeedItem, StoredFeedItem};
pub use friends::{Accepted, Befriended, Bound, Circle, FriendLimits, Related, Unfriend};
pub use group_commit::GroupCommits;
pub use outbox::{Attempt, Claimed};
pub use push_outbox::{ClaimedPush, PushAttempt};
pub use recent::RecentGames;
pub use replica::ReplicaReads;
pub use seek_pairing::{Candidates, Pairing, PASS_SEEKS};
pub use seeks::{NewSeek, SeekRecord, SeekStatus};
pub use sessions::{LiveSession, NewSession, Refreshed, SessionRecord, SignedInAccount};
pub use topic::{Committed, Heard, News, Topic, Wake};
pub use types::*;
pub use wake::{Listener, Relay, APPLICATION_NAME as RELAY_APPLICATION_NAME, RECHECK};
pub use webhooks::{Delivery, NewWebhook, Webhook};

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use diesel::connection::SimpleConnection;
use diesel::r2d2::{Pool, PooledConnection};
use uuid::Uuid;

pub use conn::Waits;
use conn::{begin_write, in_begun_tx, AnyConnection, Manager, Target};
pub use error::{BadInput, Conflict, StoreError};
use group_commit::sqlite_write_group;
use update::mark_if_lost;

/// libpq's own OpenSSL cleans up in an `atexit` handler by default, which crashes a process
/// whose pool thread still holds a TLS connection at exit. Initialising OpenSSL first, without
/// that handler, avoids it. Call before the first connection (`Store::open` does).
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
    /// SQLite only: the file's writers, who share commits (see `group_commit`).
    write_group: Option<Arc<group_commit::WriteGroup>>,
    waits: Waits,
    /// The last try to connect failed (shared with the pool's [`Manager`]).
    down: Arc<AtomicBool>,
    /// PostgreSQL: the writers whose games' changes share a statement (`pg_batch`).
    batcher: Arc<pg_batch::Batcher>,
    /// PostgreSQL: the readers whose kept games' version checks share a query (`probes`).
    probes: Arc<probes::Probes>,
    /// The games this process wrote or read last, for the next action or read (`recent`).
    recent: Arc<RecentGames>,
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

/// A waiting request checks this often whether the database is known down (then it is told so).
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
        let write_group = match &target {
            Target::Sqlite(path, _) => Some(sqlite_write_group(path)),
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
            write_group,
            waits,
            down,
            batcher: Arc::default(),
            probes: Arc::default(),
            recent: Arc::default(),
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

    /// Statements (round trips) sent to PostgreSQL so far: `racko_db_statements_total`, and
    /// what tests count a request's round trips with. Always 0 on SQLite.
    pub fn statements(&self) -> u64 {
        self.statements.load(Ordering::Relaxed)
    }

    /// For `/readyz`: one round trip to the database.
    pub fn ping(&self) -> Result<(), StoreError> {
        self.read(|c| Ok(c.batch_execute("SELECT 1")?))
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
    ) -> Result<Committed<GameRecord>, StoreError> {
        let record = self.write(|conn| games::insert_game(conn, game, events, idempotency))?;
        let news = News {
            wakes: vec![game_wake(&record)],
            tail: Some((Arc::new(record.clone()), events.to_vec())),
            ..News::default()
        };
        Ok(self.committed(record, news))
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
    /// pool no longer checks each one with a query of its own): when it did, the
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

    // ---- notifications ----

    /// After a commit: queues its wake-ups for the other processes (see `wake`), wakes this
    /// process's sweeper when the game is due now, and hands the news to the caller, whose
    /// post-commit step wakes this process's waiters.
    fn committed<T>(&self, value: T, news: News) -> Committed<T> {
        self.announcements.push(&news.wakes);
        if let Some((game, _)) = &news.tail {
            self.wake_sweeper_if_due(game);
        }
        Committed::new(value, news)
    }

    /// PostgreSQL: what relays other processes' commits to this process (run it on a
    /// thread); None on SQLite, where every writer is in this process.
    pub fn relay(&self) -> Option<Relay> {
        match &self.target {
            Target::Pg(url) => Some(Relay {
                url: conn::with_connect_timeout(url, self.waits.connect),
                recent: Arc::downgrade(&self.recent),
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

    /// Runs `f` in a write transaction. On SQLite the file's writers share transactions and
    /// commits (`group_commit`): `f` runs in a savepoint of the transaction open when its turn
    /// comes, and this returns once that transaction has committed.
    fn write<T, E>(&self, f: impl FnOnce(&mut AnyConnection) -> Result<T, E>) -> Result<T, E>
    where
        E: From<StoreError> + From<diesel::result::Error>,
    {
        // A connection lost while it sat idle fails at BEGIN, before anything is sent that
        // could be applied: then the write begins again on another (see `fresh`).
        let begin = || {
            let mut conn = self.conn()?;
            self.fresh(&mut conn, begin_write)?;
            Ok(conn)
        };
        match self.write_group.as_deref() {
            Some(group) => group.write(self.waits.lock, begin, f),
            None => {
                let mut conn = begin()?;
                in_begun_tx(&mut conn, f)
            }
        }
    }
}

pub(super) fn game_wake(game: &GameRecord) -> Wake {
    Wake {
        topic: Topic::Game(game.id),
        seq: game.last_seq,
    }
}
