//! PostgreSQL: the changes of games that come together are written by one statement.
//!
//! The cost of PostgreSQL's one-statement write is mostly the statement's own (setting up
//! its parts, the commit), not its rows. So a writer that finds a statement in flight queues
//! its game's rows; when that statement ends, the writers queued meanwhile (at most
//! [`MOST_IN_A_STATEMENT`]) are the next statement, led by the first of them on its own
//! connection. The leader of a statement that ended wakes the next leader first, then hands
//! each of its writers their game's outcome. A second statement starts beside
//! the first only once the first has run [`SECOND_AFTER`], and never a third: one at a
//! time shares more games per statement, and a statement held up (a row another transaction
//! holds) delays the others by no more than that. A change of a game that is already
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
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use super::group_commit::copy;
use super::on_demand::{pg, OnDemand};
use super::pg_write::{write_game, write_games, GameRows, Written};
use super::{GroupCommits, StoreError};

/// How long a statement runs before a second may start beside it: far above a statement's
/// usual time even on a busy machine, so that writers mostly share one and seldom wake to look
/// (at 10 ms, those wake-ups cost more CPU than the sharing saved); far below a lock wait.
const SECOND_AFTER: Duration = Duration::from_millis(50);

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
    /// When each statement in flight, or told to start, began.
    started: Vec<Instant>,
}

impl Queue {
    /// Whether the queued writers may start a statement now: none is in flight, or the one in
    /// flight has run long enough for a second. (More than two would only queue in
    /// PostgreSQL.)
    fn may_lead(&self, now: Instant) -> bool {
        match self.started[..] {
            [] => true,
            [since] => now.duration_since(since) >= SECOND_AFTER,
            _ => false,
        }
    }

    /// When a writer queued now looks again whether it may lead.
    fn next_look(&self, now: Instant) -> Instant {
        match self.started[..] {
            [since] => (since + SECOND_AFTER).max(now),
            _ => now + SECOND_AFTER,
        }
    }

    /// Takes the queued writers, first come first, at most a statement's worth, counts their
    /// games in flight and the statement as begun. (Each game is queued once: see
    /// [`Batcher::write`].)
    fn take_batch(&mut self, now: Instant) -> Batch {
        let taken = self.waiting.len().min(MOST_IN_A_STATEMENT);
        let writers: Vec<Arc<Writer>> = self.waiting.drain(..taken).collect();
        for writer in &writers {
            self.in_flight.insert(writer.rows.game.clone());
        }
        self.started.push(now);
        Batch {
            writers,
            since: now,
        }
    }

    /// What `me`, whose wait timed out, does next.
    fn look_again(&mut self, me: &Arc<Writer>, now: Instant) -> Late {
        if !self.waiting.iter().any(|w| Arc::ptr_eq(w, me)) {
            return Late::Taken;
        }
        if self.may_lead(now) {
            Late::Lead(self.take_batch(now))
        } else {
            Late::LookAt(self.next_look(now))
        }
    }
}

/// What a queued writer finds when it looks again.
enum Late {
    /// It leads a second statement.
    Lead(Batch),
    /// It still waits, and looks again then.
    LookAt(Instant),
    /// A statement took it meanwhile: it waits to be told, however long that statement runs.
    Taken,
}

/// The writers of one statement, and when it began.
struct Batch {
    writers: Vec<Arc<Writer>>,
    since: Instant,
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
    Lead(Batch),
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
        let (mut batch, mut look) = {
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
            let now = Instant::now();
            let batch = queue.may_lead(now).then(|| queue.take_batch(now));
            (batch, Some(queue.next_look(now)))
        };
        loop {
            if let Some(batch) = batch.take() {
                let ran = catch_unwind(AssertUnwindSafe(|| match pg(conn) {
                    Ok(pg) => self.lead(pg, &batch.writers),
                    Err(e) => batch
                        .writers
                        .iter()
                        .map(|_| Outcome::Written(Err(copy(&e))))
                        .collect(),
                }));
                // The next statement's leader is woken before this one's writers: it is what
                // every queued game waits for.
                self.hand_on(&batch);
                let outcomes = match ran {
                    Ok(outcomes) => outcomes,
                    Err(panic) => {
                        for writer in &batch.writers {
                            let failed = StoreError::Internal("the batch's writer panicked".into());
                            writer.tell(Told::Done(Outcome::Written(Err(failed))));
                        }
                        resume_unwind(panic);
                    }
                };
                for (writer, outcome) in batch.writers.iter().zip(outcomes) {
                    writer.tell(Told::Done(outcome));
                }
            }
            let mut told = me.told.lock();
            loop {
                match std::mem::replace(&mut *told, Told::Wait) {
                    Told::Wait => {
                        let Some(at) = look else {
                            me.wake.wait(&mut told);
                            continue;
                        };
                        if !me.wake.wait_until(&mut told, at).timed_out() {
                            continue;
                        }
                        // The statement ahead runs long: lead a second one, if still queued.
                        drop(told);
                        let late = self.queue.lock().look_again(&me, Instant::now());
                        match late {
                            Late::Lead(second) => {
                                batch = Some(second);
                                break;
                            }
                            Late::LookAt(then) => look = Some(then),
                            Late::Taken => look = None,
                        }
                        told = me.told.lock();
                    }
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
    /// writer, unless another statement is still in flight and has not run long (its end
    /// hands them on).
    fn hand_on(&self, done: &Batch) {
        let mut queue = self.queue.lock();
        for writer in &done.writers {
            queue.in_flight.remove(&writer.rows.game);
        }
        if let Some(i) = queue.started.iter().position(|&s| s == done.since) {
            queue.started.swap_remove(i);
        }
        let now = Instant::now();
        if queue.waiting.is_empty() || !queue.may_lead(now) {
            return;
        }
        let next = queue.take_batch(now);
        drop(queue);
        if let Some(first) = next.writers.first().cloned() {
            first.tell(Told::Lead(next));
        }
    }

    /// Writes the batch's games in one statement: each writer's outcome, in the batch's order.
    fn lead(&self, pg: &mut diesel::PgConnection, batch: &[Arc<Writer>]) -> Vec<Outcome> {
        let rows: Vec<&GameRows> = batch.iter().map(|w| &w.rows).collect();
        match write_games(pg, &rows) {
            Ok(written) => {
                let games = written.iter().filter(|w| w.is_some()).count() as u64;
                self.written.fetch_add(games, Ordering::Relaxed);
                self.statements.fetch_add(1, Ordering::Relaxed);
                written
                    .into_iter()
                    .map(|written| Outcome::Written(Ok(written)))
                    .collect()
            }
            Err(e) if batch.len() == 1 => vec![Outcome::Written(Err(e))],
            // The connection failed: the statement may have committed. Each writer is told so,
            // and finds out from its game, as a writer alone would.
            Err(e @ StoreError::Unavailable(_)) => batch
                .iter()
                .map(|_| Outcome::Written(Err(copy(&e))))
                .collect(),
            // PostgreSQL refused the statement: nothing of it was written.
            Err(_) => batch.iter().map(|_| Outcome::Alone).collect(),
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
