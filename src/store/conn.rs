//! Connections: which backend a URL names, how a connection is opened (SQLite's pragmas), the
//! pool, and the write transaction (serialized on SQLite).

use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use diesel::connection::{
    AnsiTransactionManager, InstrumentationEvent, SimpleConnection, TransactionManager,
};
use diesel::prelude::*;
use diesel::r2d2::{self, R2D2Connection};

use super::StoreError;

/// One connection type for both backends, so every query is written once.
#[derive(diesel::MultiConnection)]
pub enum AnyConnection {
    Pg(PgConnection),
    Sqlite(SqliteConnection),
}

/// Where the data lives, parsed from the URL given to `Store::open`.
#[derive(Clone, Debug)]
pub enum Target {
    Pg(String),
    Sqlite(PathBuf, Durability),
}

/// When an SQLite commit is acknowledged (its `synchronous` pragma).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Durability {
    /// `FULL`, the default: the commit is on disk (fsynced) before it is acknowledged, so an
    /// acknowledged action survives a power failure, as on PostgreSQL with fsync on.
    Full,
    /// `NORMAL`, asked for with `?synchronous=normal`: the last commits before a power failure
    /// (not a crash of the process) may be lost; faster on slow disks.
    Normal,
}

impl Target {
    pub fn parse(url: &str) -> Result<Target, StoreError> {
        let keywords = super::conninfo::is_keywords(url);
        if keywords || url.starts_with("postgres://") || url.starts_with("postgresql://") {
            return Ok(Target::Pg(url.to_string()));
        }
        let rest = url
            .strip_prefix("sqlite://")
            .or_else(|| url.strip_prefix("sqlite:"))
            .unwrap_or(url);
        let (path, durability) = match rest.split_once('?') {
            None => (rest, Durability::Full),
            Some((path, "synchronous=full")) => (path, Durability::Full),
            Some((path, "synchronous=normal")) => (path, Durability::Normal),
            Some((_, other)) => {
                return Err(StoreError::Internal(format!(
                    "unknown SQLite URL option {other:?} (only synchronous=full or \
                     synchronous=normal)"
                )))
            }
        };
        if path.is_empty() {
            return Err(StoreError::Internal(format!(
                "no SQLite file path in database URL {url:?}"
            )));
        }
        Ok(Target::Sqlite(PathBuf::from(path), durability))
    }

    /// Where the data lives, without credentials.
    pub fn describe(&self) -> String {
        match self {
            Target::Pg(url) if super::conninfo::is_keywords(url) => {
                format!("PostgreSQL at {}", super::conninfo::describe_keywords(url))
            }
            Target::Pg(url) => {
                let rest = url.split_once("://").map_or(url.as_str(), |(_, r)| r);
                let rest = rest.split('?').next().unwrap_or(rest);
                let place = rest.rsplit_once('@').map_or(rest, |(_, p)| p);
                format!("PostgreSQL at {place}")
            }
            Target::Sqlite(path, _) => format!("SQLite file {}", path.display()),
        }
    }

    /// Opens one connection of the concrete backend type, so that a failure reports the
    /// backend's own error (MultiConnection's `establish` hides it).
    /// Used for migrations: no statement timeout (building an index may take long), and the
    /// usual 5 s wait for another process's SQLite write lock.
    pub fn connect(&self) -> Result<AnyConnection, StoreError> {
        match self {
            Target::Pg(url) => PgConnection::establish(url)
                .map(AnyConnection::Pg)
                .map_err(|e| StoreError::Unavailable(format!("cannot connect to PostgreSQL: {e}"))),
            Target::Sqlite(path, durability) => {
                open_sqlite(path, Duration::from_secs(5), *durability).map(AnyConnection::Sqlite)
            }
        }
    }

    /// A connection for requests: every wait bounded by `waits`.
    pub fn connect_with(
        &self,
        waits: &Waits,
        statements: &Arc<AtomicU64>,
    ) -> Result<AnyConnection, StoreError> {
        match self {
            Target::Pg(url) => {
                let url = with_connect_timeout(url, waits.connect);
                let mut conn = PgConnection::establish(&url).map_err(|e| {
                    StoreError::Unavailable(format!("cannot connect to PostgreSQL: {e}"))
                })?;
                let statements = statements.clone();
                conn.set_instrumentation(move |event: InstrumentationEvent<'_>| {
                    watch_statement(&statements, event)
                });
                // Every wait of a request is bounded: a row another transaction holds, a
                // statement that runs away. Both errors answer the client quickly.
                // Each prepared statement is planned once, not for each run's values: the
                // write of several games (`pg_write`) was planned anew on every run, about 8 %
                // of PostgreSQL's CPU per action. Partial indexes need `literal`.
                conn.batch_execute(&format!(
                    "SET lock_timeout = {}; SET statement_timeout = {}; \
                     SET plan_cache_mode = force_generic_plan;",
                    waits.lock.as_millis(),
                    waits.statement.as_millis()
                ))?;
                Ok(AnyConnection::Pg(conn))
            }
            Target::Sqlite(path, durability) => {
                open_sqlite(path, waits.lock, *durability).map(AnyConnection::Sqlite)
            }
        }
    }
}

/// How long a connection may wait for each thing, from the configuration.
#[derive(Clone, Copy, Debug)]
pub struct Waits {
    /// For a lock: a game row on PostgreSQL, the file's write lock on SQLite.
    pub lock: Duration,
    /// For one statement (PostgreSQL).
    pub statement: Duration,
    /// For a new connection, and for a free pooled connection.
    pub connect: Duration,
}

impl Default for Waits {
    fn default() -> Waits {
        Waits {
            lock: Duration::from_secs(2),
            statement: Duration::from_secs(10),
            connect: Duration::from_secs(2),
        }
    }
}

/// libpq waits for a TCP connection as long as the OS does (minutes, for a host that drops
/// packets) unless the URL says otherwise; a URL that sets `connect_timeout` keeps its own.
/// With several hosts the wait is per host: a dead primary costs this much before the next.
pub(super) fn with_connect_timeout(url: &str, wait: Duration) -> String {
    use super::conninfo::{sets, with};
    if sets(url, "connect_timeout") {
        return url.to_string();
    }
    // libpq counts whole seconds and treats anything below 2 as 2.
    with(url, "connect_timeout", &wait.as_secs().max(2).to_string())
}

/// Opens an SQLite file (creating it and its folder) with the pragmas every connection needs;
/// `busy` bounds how long a statement waits for another process's write lock.
pub fn open_sqlite(
    path: &Path,
    busy: Duration,
    durability: Durability,
) -> Result<SqliteConnection, StoreError> {
    let fail = |e: &dyn std::fmt::Display| {
        StoreError::Internal(format!("cannot open SQLite file {}: {e}", path.display()))
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| fail(&e))?;
    }
    let name = path
        .to_str()
        .ok_or_else(|| fail(&"the path is not UTF-8"))?;
    let mut conn = SqliteConnection::establish(name).map_err(|e| fail(&e))?;
    // The log is copied into the file every 10,000 pages (40 MB) instead of SQLite's 1,000:
    // the committer does that copy under the write lock, and a page written many times in
    // between is copied once (1.05x the actions/s at 50 games). Temporary files in memory:
    // each writer of a shared commit works in a savepoint, whose sub-journal SQLite otherwise
    // writes to a new temporary file (opened, written, unlinked under the write lock).
    conn.batch_execute(&format!(
        "PRAGMA wal_autocheckpoint = 10000; PRAGMA temp_store = MEMORY; \
         PRAGMA busy_timeout = {}; PRAGMA synchronous = {}; PRAGMA foreign_keys = ON;",
        busy.as_millis(),
        match durability {
            Durability::Full => "FULL",
            Durability::Normal => "NORMAL",
        }
    ))
    .map_err(|e| fail(&e))?;
    use_wal(&mut conn).map_err(|e| fail(&e))?;
    Ok(conn)
}

/// Switches the file to WAL (persistent, so usually already done). Switching needs an
/// exclusive lock, and SQLite answers "database is locked" at once, without the busy
/// timeout, when another connection of a new file is writing (its deadlock avoidance). So
/// this retries for a while, the way a busy timeout would.
fn use_wal(conn: &mut SqliteConnection) -> Result<(), diesel::result::Error> {
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut pause = Duration::from_millis(2);
    loop {
        match conn.batch_execute("PRAGMA journal_mode = WAL;") {
            Err(e) if is_busy(&e) && Instant::now() < deadline => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(100));
            }
            other => return other,
        }
    }
}

fn is_busy(e: &diesel::result::Error) -> bool {
    let text = e.to_string();
    text.contains("database is locked") || text.contains("database table is locked")
}

/// The pool's connection factory: connects with the concrete type (see `Target::connect`)
/// and remembers whether the last try failed, so that requests during an outage are answered
/// at once instead of each waiting out the pool's timeout.
pub struct Manager {
    pub target: Target,
    pub waits: Waits,
    pub down: Arc<AtomicBool>,
    /// Statements sent by the pool's connections (PostgreSQL), see [`super::Store::statements`].
    pub statements: Arc<AtomicU64>,
}

impl r2d2::ManageConnection for Manager {
    type Connection = AnyConnection;
    type Error = StoreError;

    fn connect(&self) -> Result<AnyConnection, StoreError> {
        let conn = self.target.connect_with(&self.waits, &self.statements);
        self.down.store(conn.is_err(), Ordering::Relaxed);
        conn
    }

    fn is_valid(&self, conn: &mut AnyConnection) -> Result<(), StoreError> {
        conn.ping().map_err(StoreError::from)
    }

    fn has_broken(&self, conn: &mut AnyConnection) -> bool {
        LOST.take() || conn.is_broken()
    }
}

thread_local! {
    /// A statement on this thread found its connection lost. The pool no longer checks each
    /// connection with a query of its own at checkout (a round trip per request), so
    /// the connection that failed is dropped when it goes back (`has_broken`, on this thread).
    static LOST: Cell<bool> = const { Cell::new(false) };
}

/// Watches every statement of a PostgreSQL connection: counts it, and notes a lost connection.
fn watch_statement(statements: &AtomicU64, event: InstrumentationEvent<'_>) {
    match event {
        InstrumentationEvent::StartQuery { .. } => {
            statements.fetch_add(1, Ordering::Relaxed);
        }
        InstrumentationEvent::FinishQuery { error: Some(e), .. } => {
            if matches!(StoreError::from_ref(e), StoreError::Unavailable(_)) {
                LOST.set(true);
            }
        }
        _ => {}
    }
}

/// Marks `conn` broken: the pool drops it instead of handing it out again.
pub fn mark_broken(conn: &mut AnyConnection) {
    match conn {
        AnyConnection::Pg(c) => {
            AnsiTransactionManager::transaction_manager_status_mut(c).set_in_error()
        }
        AnyConnection::Sqlite(c) => {
            AnsiTransactionManager::transaction_manager_status_mut(c).set_in_error()
        }
    }
}

/// Begins a transaction meant to write (see [`write_tx`], which then runs in it).
pub fn begin_write(conn: &mut AnyConnection) -> Result<(), StoreError> {
    Ok(begin(conn)?)
}

fn begin(conn: &mut AnyConnection) -> Result<(), diesel::result::Error> {
    match conn {
        AnyConnection::Sqlite(c) => {
            AnsiTransactionManager::begin_transaction_sql(c, "BEGIN IMMEDIATE")
        }
        AnyConnection::Pg(c) => AnsiTransactionManager::begin_transaction(c),
    }
}

/// Runs `f` in a transaction meant to write. On SQLite it begins with `BEGIN IMMEDIATE`, which
/// takes the write lock up front (waiting up to busy_timeout): a deferred transaction that
/// reads first can fail with "database is locked" when it later tries to write.
#[cfg(test)]
pub fn write_tx<T, E>(
    conn: &mut AnyConnection,
    f: impl FnOnce(&mut AnyConnection) -> Result<T, E>,
) -> Result<T, E>
where
    E: From<diesel::result::Error>,
{
    begin(conn)?;
    in_begun_tx(conn, f)
}

/// As [`write_tx`], in the transaction [`begin_write`] began on `conn`.
pub fn in_begun_tx<T, E>(
    conn: &mut AnyConnection,
    f: impl FnOnce(&mut AnyConnection) -> Result<T, E>,
) -> Result<T, E>
where
    E: From<diesel::result::Error>,
{
    type Tm = <AnyConnection as Connection>::TransactionManager;
    match f(conn) {
        Ok(value) => {
            Tm::commit_transaction(conn)?;
            Ok(value)
        }
        Err(e) => match Tm::rollback_transaction(conn) {
            // The caller's error explains more than a failed rollback, which also marks the
            // connection broken so the pool drops it.
            Ok(()) | Err(_) => Err(e),
        },
    }
}
