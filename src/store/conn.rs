//! Connections: which backend a URL names, how a connection is opened (SQLite's pragmas), the
//! pool, and the write transaction (serialized on SQLite).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use diesel::connection::{AnsiTransactionManager, SimpleConnection, TransactionManager};
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
    Sqlite(PathBuf),
}

impl Target {
    pub fn parse(url: &str) -> Result<Target, StoreError> {
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            return Ok(Target::Pg(url.to_string()));
        }
        let path = url
            .strip_prefix("sqlite://")
            .or_else(|| url.strip_prefix("sqlite:"))
            .unwrap_or(url);
        if path.is_empty() {
            return Err(StoreError::Internal(format!(
                "no SQLite file path in database URL {url:?}"
            )));
        }
        Ok(Target::Sqlite(PathBuf::from(path)))
    }

    /// Where the data lives, without credentials.
    pub fn describe(&self) -> String {
        match self {
            Target::Pg(url) => {
                let rest = url.split_once("://").map_or(url.as_str(), |(_, r)| r);
                let rest = rest.split('?').next().unwrap_or(rest);
                let place = rest.rsplit_once('@').map_or(rest, |(_, p)| p);
                format!("PostgreSQL at {place}")
            }
            Target::Sqlite(path) => format!("SQLite file {}", path.display()),
        }
    }

    /// Opens one connection of the concrete backend type, so that a failure reports the
    /// backend's own error (MultiConnection's `establish` hides it).
    pub fn connect(&self) -> Result<AnyConnection, StoreError> {
        match self {
            Target::Pg(url) => PgConnection::establish(url)
                .map(AnyConnection::Pg)
                .map_err(|e| StoreError::Internal(format!("cannot connect to PostgreSQL: {e}"))),
            Target::Sqlite(path) => open_sqlite(path).map(AnyConnection::Sqlite),
        }
    }
}

/// Opens an SQLite file (creating it and its folder) with the pragmas every connection needs.
pub fn open_sqlite(path: &Path) -> Result<SqliteConnection, StoreError> {
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
    conn.batch_execute(
        "PRAGMA busy_timeout = 5000; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;",
    )
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

/// The pool's connection factory: connects with the concrete type (see `Target::connect`).
pub struct Manager(pub Target);

impl r2d2::ManageConnection for Manager {
    type Connection = AnyConnection;
    type Error = StoreError;

    fn connect(&self) -> Result<AnyConnection, StoreError> {
        self.0.connect()
    }

    fn is_valid(&self, conn: &mut AnyConnection) -> Result<(), StoreError> {
        conn.ping().map_err(StoreError::from)
    }

    fn has_broken(&self, conn: &mut AnyConnection) -> bool {
        conn.is_broken()
    }
}

/// The in-process write lock of an SQLite file. SQLite allows one writer at a time; taking
/// this lock before a pooled connection makes writers queue here instead of spinning on
/// SQLITE_BUSY, and one lock per file also covers two `Store`s opened on the same file.
pub fn sqlite_write_lock(path: &Path) -> Arc<Mutex<()>> {
    static LOCKS: OnceLock<Mutex<HashMap<PathBuf, Arc<Mutex<()>>>>> = OnceLock::new();
    let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let mut locks = LOCKS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    locks.entry(key).or_default().clone()
}

/// Takes a write lock. A panic of another holder poisons it, but what it guards is the
/// database, whose transaction was rolled back, so the lock is still good.
pub fn lock(m: &Mutex<()>) -> MutexGuard<'_, ()> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Runs `f` in a transaction meant to write. On SQLite it begins with `BEGIN IMMEDIATE`, which
/// takes the write lock up front (waiting up to busy_timeout): a deferred transaction that
/// reads first can fail with "database is locked" when it later tries to write.
pub fn write_tx<T, E>(
    conn: &mut AnyConnection,
    f: impl FnOnce(&mut AnyConnection) -> Result<T, E>,
) -> Result<T, E>
where
    E: From<diesel::result::Error>,
{
    match conn {
        AnyConnection::Sqlite(c) => {
            AnsiTransactionManager::begin_transaction_sql(c, "BEGIN IMMEDIATE")?
        }
        AnyConnection::Pg(c) => AnsiTransactionManager::begin_transaction(c)?,
    }
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
