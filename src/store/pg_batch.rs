//! PostgreSQL: the changes of games that come together are written by one statement.
//!
//! The cost of PostgreSQL's one-statement write is mostly the statement's own (setting up
//! its parts, the commit), not its rows. So a writer that finds the statements in flight at
//! their bound ([`IN_FLIGHT`]) queues its game's rows; the next writer free to lead takes every
//! queued game (at most [`MOST_IN_A_STATEMENT`]) and writes them in one statement on its own
//! connection, then hands each writer its game's outcome. A change of a game that is already
//! queued or in flight is written alone, as before statements were shared: so a game whose
//! row a slow transaction holds keeps at most one statement waiting, not every game behind it. A lone writer
//! leads at once, so a single action waits for no one. Each game's compare-and-set is decided
//! on its own: a game that lost it is told so, and the others are written. When the
//! statement is refused as a whole (a taken key of one game fails them all), each writer of
//! more than one writes its game again alone, so one game's refusal is never another's. When
//! the connection fails, the statement may have committed: each writer gets that error, as a
//! writer alone would, and its caller looks at the game before writing again.

use std::collections::HashSet;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::{Condvar, Mutex};

use super::group_commit::copy;
use super::on_demand::{pg, OnDemand};
use super::pg_write::{write_game, write_games, GameRows, Written};
use super::{GroupCommits, StoreError};

/// Statements of one process in flight at once: more would only queue in PostgreSQL.
const IN_FLIGHT: usize = 2;

/// At most this many games in one statement.
const MOST_IN_A_STATEMENT: usize = 32;

#[derive(Default)]
pub struct Batcher {
    queue: Mutex<Queue>,
    /// Games written by the shared statements, and those statements.
    written: AtomicU64,
    statements: AtomicU64,
}

#[derive(Default)]
struct Queue {
    waiting: Vec<Arc<Writer>>,
    /// The games of the statements in flight.
    in_flight: HashSet<String>,
    /// Writers leading a statement now, or told to lead the next.
    leaders: usize,
}

/// A writer's game, and what it is told: to lead a batch, or its game's outcome. Each writer
/// is woken alone, when there is something for it.
struct Writer {
    rows: GameRows,
    told: Mutex<Told>,
    wake: Condvar,
}

enum Told {
    Wait,
    Lead(Vec<Arc<Writer>>),
    Done(Outcome),
}

enum Outcome {
    Written(Result<Written, StoreError>),
    /// The statement of several games failed: write this one alone.
    Alone,
}

impl Writer {
    fn tell(&self, told: Told) {
        *self.told.lock() = told;
        self.wake.notify_one();
    }
}

impl Batcher {
    /// Writes `rows` (with whatever other games' rows are waiting) and returns what the
    /// statement did for this game. A connection is taken only when this writer leads a
    /// statement or writes alone: one waiting for another's statement holds none.
    pub fn write(&self, conn: &mut OnDemand<'_>, rows: GameRows) -> Result<Written, StoreError> {
        let me = Arc::new(Writer {
            rows,
            told: Mutex::new(Told::Wait),
            wake: Condvar::new(),
        });
        let mut batch = {
            let mut queue = self.queue.lock();
            // Another change of this game is queued or being written: this one writes alone
            // and waits for the game's row by itself, as it did before statements were
            // shared, so that a game held long (a slow transaction) holds up no other game.
            let game = &me.rows.game;
            if queue.in_flight.contains(game) || queue.waiting.iter().any(|w| &w.rows.game == game)
            {
                drop(queue);
                return write_game(pg(conn)?, &me.rows);
            }
            queue.waiting.push(me.clone());
            (queue.leaders < IN_FLIGHT).then(|| {
                queue.leaders += 1;
                take_batch(&mut queue)
            })
        };
        loop {
            if let Some(batch) = batch.take() {
                let ran = catch_unwind(AssertUnwindSafe(|| match pg(conn) {
                    Ok(pg) => self.lead(pg, &batch),
                    Err(e) => {
                        for writer in &batch {
                            writer.tell(Told::Done(Outcome::Written(Err(copy(&e)))));
                        }
                    }
                }));
                if let Err(panic) = ran {
                    for writer in &batch {
                        let failed = StoreError::Internal("the batch's writer panicked".into());
                        writer.tell(Told::Done(Outcome::Written(Err(failed))));
                    }
                    self.hand_on(&batch);
                    resume_unwind(panic);
                }
                self.hand_on(&batch);
            }
            let mut told = me.told.lock();
            loop {
                match std::mem::replace(&mut *told, Told::Wait) {
                    Told::Wait => me.wake.wait(&mut told),
                    Told::Lead(next) => {
                        batch = Some(next);
                        break;
                    }
                    Told::Done(Outcome::Written(written)) => return written,
                    Told::Done(Outcome::Alone) => {
                        drop(told);
                        return write_game(pg(conn)?, &me.rows);
                    }
                }
            }
        }
    }

    /// After a statement: the writers queued meanwhile are the next batch, led by its first
    /// writer; with none, one statement fewer is in flight.
    fn hand_on(&self, done: &[Arc<Writer>]) {
        let mut queue = self.queue.lock();
        for writer in done {
            queue.in_flight.remove(&writer.rows.game);
        }
        if queue.waiting.is_empty() {
            queue.leaders -= 1;
            return;
        }
        let next = take_batch(&mut queue);
        drop(queue);
        if let Some(first) = next.first().cloned() {
            first.tell(Told::Lead(next));
        }
    }

    /// Writes the batch's games in one statement and tells each writer its outcome.
    fn lead(&self, pg: &mut diesel::PgConnection, batch: &[Arc<Writer>]) {
        let rows: Vec<&GameRows> = batch.iter().map(|w| &w.rows).collect();
        match write_games(pg, &rows) {
            Ok(written) => {
                let games = written.iter().filter(|w| w.is_some()).count() as u64;
                self.written.fetch_add(games, Ordering::Relaxed);
                self.statements.fetch_add(1, Ordering::Relaxed);
                for (writer, written) in batch.iter().zip(written) {
                    writer.tell(Told::Done(Outcome::Written(Ok(written))));
                }
            }
            Err(e) if batch.len() == 1 => {
                batch[0].tell(Told::Done(Outcome::Written(Err(e))));
            }
            // The connection failed: the statement may have committed. Each writer is told so,
            // and finds out from its game, as a writer alone would.
            Err(e @ StoreError::Unavailable(_)) => {
                for writer in batch {
                    writer.tell(Told::Done(Outcome::Written(Err(copy(&e)))));
                }
            }
            // PostgreSQL refused the statement: nothing of it was written.
            Err(_) => {
                for writer in batch {
                    writer.tell(Told::Done(Outcome::Alone));
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

/// Takes the queued writers, first come first, at most a statement's worth, and counts their
/// games in flight. (Each game is queued once: see [`Batcher::write`].)
fn take_batch(queue: &mut Queue) -> Vec<Arc<Writer>> {
    let taken = queue.waiting.len().min(MOST_IN_A_STATEMENT);
    let batch: Vec<Arc<Writer>> = queue.waiting.drain(..taken).collect();
    for writer in &batch {
        queue.in_flight.insert(writer.rows.game.clone());
    }
    batch
}
