//! The group commit's promises, with the order of the writers forced: a writer with another
//! queued behind it leaves the commit to that one; a failed or panicking writer takes only
//! its own work back, or, when the transaction cannot go on, everybody's; a writer learns of
//! its commit without taking the file's lock again.

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::thread;
use std::time::Duration;

use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::sql_types::BigInt;
use uuid::Uuid;

use super::super::{Store, StoreError};
use super::WriteGroup;

const WAIT: Duration = Duration::from_secs(10);

/// A folder removed when the test ends.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn store() -> (TempDir, Store) {
    let dir =
        TempDir(std::env::temp_dir().join(format!("racko-group-{}", Uuid::new_v4().simple())));
    let store = Store::open(&dir.0.join("g.db").display().to_string(), 4).expect("opens");
    let mut conn = store.conn().expect("a connection");
    conn.batch_execute("CREATE TABLE t (n BIGINT NOT NULL)")
        .expect("a table");
    (dir, store)
}

fn group(store: &Store) -> &WriteGroup {
    store
        .write_group
        .as_deref()
        .expect("SQLite has a write group")
}

/// The numbers committed, as another connection reads them.
fn committed(store: &Store) -> Vec<i64> {
    #[derive(QueryableByName)]
    struct Row {
        #[diesel(sql_type = BigInt)]
        n: i64,
    }
    let mut conn = store.conn().expect("a connection");
    let rows: Vec<Row> = diesel::sql_query("SELECT n FROM t ORDER BY n")
        .load(&mut *conn)
        .expect("reads");
    rows.into_iter().map(|r| r.n).collect()
}

/// Writes `n` in the group; `then` runs after the insert, inside the writer's savepoint.
fn insert(
    store: &Store,
    n: i64,
    then: impl FnOnce() -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    group(store).write(
        WAIT,
        || {
            let mut conn = store.conn()?;
            super::super::conn::begin_write(&mut conn)?;
            Ok(conn)
        },
        |conn| {
            conn.batch_execute(&format!("INSERT INTO t (n) VALUES ({n})"))?;
            then()
        },
    )
}

/// Runs writer 1, which waits inside its work until writer 2 queues behind it, then writer 2
/// with `second`; returns both answers.
fn two_writers(
    store: &Store,
    second: impl FnOnce() -> Result<(), StoreError> + Send,
) -> (Result<(), StoreError>, Result<(), StoreError>) {
    thread::scope(|s| {
        let first = s.spawn(|| {
            insert(store, 1, || {
                let mut waited = 0;
                while group(store).queued.load(Ordering::SeqCst) == 0 && waited < 10_000 {
                    thread::sleep(Duration::from_millis(1));
                    waited += 1;
                }
                // Nothing of this transaction is committed while writer 2 waits.
                assert_eq!(committed(store), Vec::<i64>::new());
                Ok(())
            })
        });
        // Writer 2 starts once writer 1 holds the lock (its work is under way).
        while group(store)
            .open
            .try_lock()
            .is_some_and(|open| open.is_none())
        {
            thread::yield_now();
        }
        let second = s.spawn(|| insert(store, 2, second));
        (
            first.join().expect("writer 1 does not panic"),
            second
                .join()
                .unwrap_or_else(|_| Err(StoreError::Internal("panicked".into()))),
        )
    })
}

#[test]
fn a_writer_with_another_behind_it_shares_that_ones_commit() {
    let (_dir, store) = store();
    let (first, second) = two_writers(&store, || Ok(()));
    assert!(first.is_ok() && second.is_ok(), "{first:?} {second:?}");
    assert_eq!(committed(&store), [1, 2]);
    // A lone writer commits at once.
    insert(&store, 3, || Ok(())).expect("written");
    assert_eq!(committed(&store), [1, 2, 3]);
}

#[test]
fn a_failed_writer_takes_back_its_own_work_only() {
    let (_dir, store) = store();
    let (first, second) = two_writers(&store, || Err(StoreError::NotFound));
    assert!(first.is_ok(), "{first:?}");
    assert!(matches!(second, Err(StoreError::NotFound)), "{second:?}");
    assert_eq!(committed(&store), [1]);
}

#[test]
fn a_lone_failed_writer_leaves_nothing() {
    let (_dir, store) = store();
    let failed = insert(&store, 1, || Err(StoreError::NotFound));
    assert!(matches!(failed, Err(StoreError::NotFound)), "{failed:?}");
    assert_eq!(committed(&store), Vec::<i64>::new());
    insert(&store, 2, || Ok(())).expect("written");
    assert_eq!(committed(&store), [2]);
}

#[test]
fn a_panicking_writer_takes_back_everybodys_work() {
    let (_dir, store) = store();
    let (first, second) = two_writers(&store, || panic!("a bug in a decision"));
    assert!(matches!(first, Err(StoreError::Internal(_))), "{first:?}");
    assert!(second.is_err());
    assert_eq!(committed(&store), Vec::<i64>::new());
    // The file takes writes again.
    insert(&store, 4, || Ok(())).expect("written");
    assert_eq!(committed(&store), [4]);
}

#[test]
fn a_writer_learns_of_its_commit_without_the_files_lock() {
    let (_dir, store) = store();
    let group = group(&store);
    let (done, heard) = std::sync::mpsc::channel();
    thread::scope(|s| {
        s.spawn(|| {
            let written = insert(&store, 1, || {
                // As if a writer were queued behind it: this one leaves the commit to that one.
                group.queued.fetch_add(1, Ordering::SeqCst);
                Ok(())
            });
            let _ = done.send(written);
        });
        // The file's lock once the writer's work is in the open transaction.
        let mut open = loop {
            let open = group.open.lock();
            if open.is_some() {
                break open;
            }
            drop(open);
            thread::yield_now();
        };
        // The writer "behind" commits, and the file's lock stays taken: the waiting writer
        // has its answer all the same.
        group.queued.fetch_sub(1, Ordering::SeqCst);
        group.commit(&mut open);
        let answer = heard.recv_timeout(Duration::from_secs(5));
        drop(open);
        assert!(matches!(answer, Ok(Ok(()))), "{answer:?}");
    });
    assert_eq!(committed(&store), [1]);
}
