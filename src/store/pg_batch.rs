//! PostgreSQL: the changes of games that come together are written by one statement.
//!
//! The cost of PostgreSQL's one-statement write is mostly the statement's own (setting up
//! its parts, the commit), not its rows. So a writer that finds the statements in flight at
//! their bound ([`IN_FLIGHT`]) queues its game's rows; the next writer free to lead takes every
//! queued game (one change per game, at most [`MOST_IN_A_STATEMENT`]) and writes them in one
//! statement on its own connection, then hands each writer its game's outcome. A lone writer
//! leads at once, so a single action waits for no one. Each game's compare-and-set is decided
//! on its own: a game that lost it is told so, and the others are written. When the
//! statement fails as a whole (a taken key of one game fails them all), each writer of more
//! than one writes its game again alone, so one game's refusal is never another's.

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::{Condvar, Mutex};

use super::conn::AnyConnection;
use super::pg_write::{write_games, GameRows, Written};
use super::{GroupCommits, StoreError};

/// Statements of one process in flight at once: more would only queue in PostgreSQL.
const IN_FLIGHT: usize = 2;

/// At most this many games in one statement.
const MOST_IN_A_STATEMENT: usize = 32;

#[derive(Default)]
pub struct Batcher {
    queue: Mutex<Queue>,
    done: Condvar,
    /// Games written by the shared statements, and those statements.
    written: AtomicU64,
    statements: AtomicU64,
}

#[derive(Default)]
struct Queue {
    waiting: Vec<Arc<Writer>>,
    leaders: usize,
}

/// A writer's game and, once its statement ran, the outcome.
struct Writer {
    rows: GameRows,
    outcome: Mutex<Option<Outcome>>,
}

enum Outcome {
    Done(Result<Written, StoreError>),
    /// The statement of several games failed: write this one alone.
    Alone,
}

impl Batcher {
    /// Writes `rows` (with whatever other games' rows are waiting) and returns what the
    /// statement did for this game; `conn` is used when this writer leads.
    pub fn write(&self, conn: &mut AnyConnection, rows: GameRows) -> Result<Written, StoreError> {
        let AnyConnection::Pg(pg) = conn else {
            return Err(StoreError::Internal("not a PostgreSQL connection".into()));
        };
        let me = Arc::new(Writer {
            rows,
            outcome: Mutex::new(None),
        });
        let mut queue = self.queue.lock();
        queue.waiting.push(me.clone());
        loop {
            if let Some(outcome) = me.outcome.lock().take() {
                drop(queue);
                return match outcome {
                    Outcome::Done(written) => written,
                    Outcome::Alone => Ok(write_games(pg, &[&me.rows])?.pop().flatten()),
                };
            }
            let queued = queue.waiting.iter().any(|w| Arc::ptr_eq(w, &me));
            if queued && queue.leaders < IN_FLIGHT {
                let batch = take_batch(&mut queue.waiting);
                queue.leaders += 1;
                drop(queue);
                let ran = catch_unwind(AssertUnwindSafe(|| self.lead(pg, &batch)));
                queue = self.queue.lock();
                queue.leaders -= 1;
                self.done.notify_all();
                if let Err(panic) = ran {
                    for writer in &batch {
                        let failed = StoreError::Internal("the batch's writer panicked".into());
                        *writer.outcome.lock() = Some(Outcome::Done(Err(failed)));
                    }
                    drop(queue);
                    resume_unwind(panic);
                }
                continue;
            }
            self.done.wait(&mut queue);
        }
    }
}

impl Batcher {
    /// Writes the batch's games in one statement and gives each writer its outcome.
    fn lead(&self, pg: &mut diesel::PgConnection, batch: &[Arc<Writer>]) {
        let rows: Vec<&GameRows> = batch.iter().map(|w| &w.rows).collect();
        match write_games(pg, &rows) {
            Ok(written) => {
                let games = written.iter().filter(|w| w.is_some()).count() as u64;
                self.written.fetch_add(games, Ordering::Relaxed);
                self.statements.fetch_add(1, Ordering::Relaxed);
                for (writer, written) in batch.iter().zip(written) {
                    *writer.outcome.lock() = Some(Outcome::Done(Ok(written)));
                }
            }
            Err(e) if batch.len() == 1 => {
                *batch[0].outcome.lock() = Some(Outcome::Done(Err(e)));
            }
            Err(_) => {
                for writer in batch {
                    *writer.outcome.lock() = Some(Outcome::Alone);
                }
            }
        }
    }

    /// The games written by shared statements so far, and the statements.
    pub fn committed(&self) -> GroupCommits {
        GroupCommits {
            writes: self.written.load(Ordering::Relaxed),
            commits: self.statements.load(Ordering::Relaxed),
        }
    }
}

/// Takes the queued writers of distinct games, first come first, at most a statement's worth;
/// a second change of a game waits for the next statement.
fn take_batch(waiting: &mut Vec<Arc<Writer>>) -> Vec<Arc<Writer>> {
    let mut batch: Vec<Arc<Writer>> = Vec::new();
    waiting.retain(|writer| {
        let take = batch.len() < MOST_IN_A_STATEMENT
            && !batch.iter().any(|w| w.rows.game == writer.rows.game);
        if take {
            batch.push(writer.clone());
        }
        !take
    });
    batch
}
