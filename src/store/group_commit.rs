//! SQLite's group commit: writers that queue for the file share one transaction and one
//! commit.
//!
//! SQLite has one writer at a time, and with `synchronous = FULL` every commit waits for the
//! disk. One commit per action made those waits the limit: the disk was flushed once per
//! action while the other writers queued behind it. Here a writer that finds others queued
//! behind it leaves its work in the open transaction, releases the file's lock and waits for
//! the commit; the next writer adds its work to the same transaction, and the last one in
//! line (or the 32nd) commits for all of them. A writer with nobody behind it commits at
//! once, so a lone action waits for no one.
//!
//! Each writer's work runs in a savepoint of its own: a writer whose work fails (a refused
//! move, a taken key) rolls back to its savepoint and leaves the others' work alone. Nobody is
//! answered before the commit that holds their work: if it fails, every writer in it gets the
//! error, and none of their work was applied. A savepoint that cannot be rolled back, or work
//! that panics, abandons the whole transaction in the same way.

use std::collections::HashMap;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use diesel::connection::{SimpleConnection, TransactionManager};
use diesel::r2d2::PooledConnection;
use diesel::Connection;
use parking_lot::{Condvar, Mutex, MutexGuard};

use super::conn::{mark_broken, AnyConnection, Manager};
use super::{Store, StoreError};

/// At most this many writers share a commit, so the first of them waits a bounded time.
pub const MOST_IN_A_COMMIT: usize = 32;

/// How often a writer waiting for its commit looks whether it has to make it itself (when the
/// writer queued behind it gave up waiting for the lock).
const LOOK_AGAIN: Duration = Duration::from_millis(20);

type Tm = <AnyConnection as Connection>::TransactionManager;
type Pooled = PooledConnection<Manager>;

/// The in-process writers of an SQLite file. SQLite allows one writer at a time; taking the
/// group's lock before a pooled connection makes writers queue here instead of spinning on
/// SQLITE_BUSY, and one group per file also covers two `Store`s opened on the same file.
/// A writer waits at most the lock timeout for it (see `group_commit`).
pub fn sqlite_write_group(path: &Path) -> Arc<WriteGroup> {
    static GROUPS: OnceLock<std::sync::Mutex<HashMap<PathBuf, Arc<WriteGroup>>>> = OnceLock::new();
    let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let mut groups = GROUPS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    groups.entry(key).or_default().clone()
}

impl Store {
    /// Writes and the commits they shared: on SQLite every write (`group_commit`), on
    /// PostgreSQL the game changes written by shared statements (`pg_batch`).
    pub fn shared_commits(&self) -> GroupCommits {
        match self.write_group.as_deref() {
            Some(group) => group.committed(),
            None => self.batcher.committed(),
        }
    }
}

/// One SQLite file's writers (see the module docs). One per file in a process.
#[derive(Default)]
pub struct WriteGroup {
    open: Mutex<Option<Batch>>,
    /// Told when a transaction ends. Its mutex is not the file's lock: a writer woken to
    /// learn its outcome would otherwise take the file's lock once more, one after another,
    /// in the way of the writers with work to add.
    ended: Mutex<()>,
    committed: Condvar,
    /// Writers waiting for `open`'s lock.
    queued: AtomicUsize,
    /// Writes whose work committed, and the commits that held them.
    written: AtomicU64,
    commits: AtomicU64,
}

/// How many writes committed, in how many commits (see [`WriteGroup::committed`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GroupCommits {
    pub writes: u64,
    pub commits: u64,
}

/// The open transaction and the writers whose work is in it.
pub struct Batch {
    conn: Pooled,
    writers: usize,
    outcome: Arc<OnceLock<Result<(), StoreError>>>,
}

impl WriteGroup {
    /// Runs `f` in the file's shared write transaction, waiting at most `wait` for the lock;
    /// `begin` gives a connection with a write transaction begun, when none is open. Returns
    /// once the transaction that holds `f`'s work has committed (or `f` failed: then its
    /// work was rolled back and its error is the answer).
    pub fn write<T, E>(
        &self,
        wait: Duration,
        begin: impl FnOnce() -> Result<Pooled, StoreError>,
        f: impl FnOnce(&mut AnyConnection) -> Result<T, E>,
    ) -> Result<T, E>
    where
        E: From<StoreError>,
    {
        self.queued.fetch_add(1, Ordering::SeqCst);
        let taken = self.open.try_lock_for(wait);
        self.queued.fetch_sub(1, Ordering::SeqCst);
        let mut open = taken.ok_or_else(|| {
            StoreError::Locked(format!(
                "another writer held the SQLite file for over {} ms",
                wait.as_millis()
            ))
        })?;
        if open.is_none() {
            *open = Some(Batch {
                conn: begin()?,
                writers: 0,
                outcome: Arc::default(),
            });
        }
        let Some(batch) = open.as_mut() else {
            return Err(StoreError::Internal("no open write transaction".into()).into());
        };
        let outcome = batch.outcome.clone();
        // The first writer of a transaction needs no savepoint: should its work fail, nobody
        // else's is there, and the whole transaction is rolled back.
        let first = batch.writers == 0;
        let ran = catch_unwind(AssertUnwindSafe(|| {
            if first {
                Ok(f(&mut batch.conn))
            } else {
                in_savepoint(&mut batch.conn, f)
            }
        }));
        let done = match ran {
            Ok(Ok(done)) => done,
            Ok(Err(e)) => {
                let e = StoreError::from(e);
                self.abandon(&mut open, copy(&e));
                return Err(e.into());
            }
            Err(panic) => {
                self.abandon(&mut open, StoreError::Internal("a writer panicked".into()));
                drop(open);
                resume_unwind(panic)
            }
        };
        if first && done.is_err() {
            self.roll_back(&mut open);
            return done;
        }
        let writers = open.as_ref().map_or(0, |batch| batch.writers + 1);
        if let Some(batch) = open.as_mut() {
            batch.writers = writers;
        }
        if self.queued.load(Ordering::SeqCst) > 0 && writers < MOST_IN_A_COMMIT {
            drop(open);
            self.await_commit(&outcome);
        } else {
            self.commit(&mut open);
            drop(open);
        }
        match (done, outcome.get()) {
            (Err(e), _) => Err(e),
            (Ok(value), Some(Ok(()))) => {
                self.written.fetch_add(1, Ordering::Relaxed);
                Ok(value)
            }
            (Ok(_), Some(Err(e))) => Err(copy(e).into()),
            (Ok(_), None) => Err(StoreError::Internal("the write was not committed".into()).into()),
        }
    }

    /// The writes committed so far, and the commits they took.
    pub fn committed(&self) -> GroupCommits {
        GroupCommits {
            writes: self.written.load(Ordering::Relaxed),
            commits: self.commits.load(Ordering::Relaxed),
        }
    }

    /// The file's write lock with no transaction open (an open one is committed first): for
    /// work outside [`WriteGroup::write`], such as the migrations.
    pub fn lock_alone(&self) -> MutexGuard<'_, Option<Batch>> {
        self.queued.fetch_add(1, Ordering::SeqCst);
        let mut open = self.open.lock();
        self.queued.fetch_sub(1, Ordering::SeqCst);
        if open.is_some() {
            self.commit(&mut open);
        }
        open
    }

    /// Waits, without the file's lock, until the transaction that holds this writer's work has
    /// ended. The writer queued behind commits it or leaves it to the one behind it; should
    /// nobody be left in line, the waiting writer commits it itself.
    fn await_commit(&self, outcome: &OnceLock<Result<(), StoreError>>) {
        loop {
            {
                let mut ended = self.ended.lock();
                if outcome.get().is_some() {
                    return;
                }
                let timed_out = self
                    .committed
                    .wait_until(&mut ended, Instant::now() + LOOK_AGAIN)
                    .timed_out();
                if !timed_out || outcome.get().is_some() {
                    continue;
                }
            }
            if self.queued.load(Ordering::SeqCst) == 0 {
                let mut open = self.open.lock();
                // Batches end in order, so an unfinished outcome is that of the open batch.
                if outcome.get().is_none() {
                    self.commit(&mut open);
                }
            }
        }
    }

    /// Wakes the writers waiting for a transaction whose outcome was just set. (Taking
    /// `ended` first: a writer that found no outcome under it is then asleep, and hears this.)
    fn tell_ended(&self) {
        drop(self.ended.lock());
        self.committed.notify_all();
    }

    /// Commits the open transaction and tells its writers how it went.
    fn commit(&self, open: &mut Option<Batch>) {
        let Some(mut batch) = open.take() else {
            return;
        };
        let result = Tm::commit_transaction(&mut batch.conn).map_err(StoreError::from);
        if result.is_ok() {
            self.commits.fetch_add(1, Ordering::Relaxed);
        } else {
            // A failed commit leaves the transaction open; the pool drops the connection.
            let _ = batch.conn.batch_execute("ROLLBACK");
            mark_broken(&mut batch.conn);
        }
        let _ = batch.outcome.set(result);
        self.tell_ended();
    }

    /// Rolls back the open transaction, which holds no writer's work.
    fn roll_back(&self, open: &mut Option<Batch>) {
        let Some(mut batch) = open.take() else {
            return;
        };
        if Tm::rollback_transaction(&mut batch.conn).is_err() {
            mark_broken(&mut batch.conn);
        }
    }

    /// Rolls the open transaction back: every writer in it gets `cause`.
    fn abandon(&self, open: &mut Option<Batch>, cause: StoreError) {
        let Some(mut batch) = open.take() else {
            return;
        };
        let _ = batch.conn.batch_execute("ROLLBACK");
        // Diesel still counts the savepoints: the pool drops the connection.
        mark_broken(&mut batch.conn);
        let _ = batch.outcome.set(Err(cause));
        self.tell_ended();
    }
}

/// Runs `f` in a savepoint: released when `f` succeeds, rolled back to when it fails. The
/// outer error: the savepoint itself failed, and the transaction cannot go on.
fn in_savepoint<T, E>(
    conn: &mut AnyConnection,
    f: impl FnOnce(&mut AnyConnection) -> Result<T, E>,
) -> Result<Result<T, E>, diesel::result::Error> {
    Tm::begin_transaction(conn)?;
    let done = f(conn);
    match done {
        Ok(_) => Tm::commit_transaction(conn)?,
        Err(_) => Tm::rollback_transaction(conn)?,
    }
    Ok(done)
}

/// The same error for another writer of the batch (store errors are not `Clone`: their
/// causes are not).
pub(super) fn copy(e: &StoreError) -> StoreError {
    match e {
        StoreError::Unavailable(s) => StoreError::Unavailable(s.clone()),
        StoreError::Busy(s) => StoreError::Busy(s.clone()),
        StoreError::Locked(s) => StoreError::Locked(s.clone()),
        other => StoreError::Internal(other.to_string()),
    }
}

#[cfg(test)]
mod tests;
