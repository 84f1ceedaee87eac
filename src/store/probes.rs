//! PostgreSQL: the version checks of kept games that come together are one query.
//!
//! A read of a game this process keeps asks the database for the version alone
//! (`recent::read_game`). At a few dozen busy games those checks were most of the statements
//! PostgreSQL ran, each with a pooled connection and a round trip of its own. So a reader that
//! finds a check in flight ([`IN_FLIGHT`]) queues its game; the next reader
//! free to lead asks for every queued game in one query and hands each reader its answer. A
//! lone reader asks at once, so a single read waits for no one. A failed query fails each
//! reader of it, as it would have failed each alone.

use std::collections::HashMap;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::Arc;

use chrono::NaiveDateTime;
use parking_lot::{Condvar, Mutex};
use uuid::Uuid;

use super::group_commit::copy;
use super::StoreError;

/// Checks of one process in flight at once. One shares more than two did (0.92× the CPU per
/// action at 50 games, 8 rounds); a reader waits for at most the query ahead of it.
const IN_FLIGHT: usize = 1;

/// At most this many games in one query.
const MOST_IN_A_QUERY: usize = 64;

/// A game's version and `due_at`; None when there is no such game.
pub type Version = Option<(i64, Option<NaiveDateTime>)>;

/// What the leader asks the database: the versions of the games that exist among `ids`.
pub type Versions = HashMap<Uuid, (i64, Option<NaiveDateTime>)>;

#[derive(Default)]
pub struct Probes {
    queue: Mutex<Queue>,
}

#[derive(Default)]
struct Queue {
    waiting: Vec<Arc<Reader>>,
    /// Readers asking now, or told to ask next.
    leaders: usize,
}

/// A reader's game, and what it is told: to ask for a batch, or its game's version.
struct Reader {
    id: Uuid,
    told: Mutex<Told>,
    wake: Condvar,
}

enum Told {
    Wait,
    Lead(Vec<Arc<Reader>>),
    Done(Result<Version, StoreError>),
}

impl Reader {
    fn tell(&self, told: Told) {
        *self.told.lock() = told;
        self.wake.notify_one();
    }
}

impl Probes {
    /// Game `id`'s version, asked together with whatever other games wait; `ask` runs the
    /// query when this reader leads.
    pub fn version(
        &self,
        id: Uuid,
        ask: impl Fn(&[Uuid]) -> Result<Versions, StoreError>,
    ) -> Result<Version, StoreError> {
        let me = Arc::new(Reader {
            id,
            told: Mutex::new(Told::Wait),
            wake: Condvar::new(),
        });
        let mut batch = {
            let mut queue = self.queue.lock();
            queue.waiting.push(me.clone());
            (queue.leaders < IN_FLIGHT).then(|| {
                queue.leaders += 1;
                take_batch(&mut queue)
            })
        };
        loop {
            if let Some(batch) = batch.take() {
                let ran = catch_unwind(AssertUnwindSafe(|| lead(&batch, &ask)));
                self.hand_on();
                if let Err(panic) = ran {
                    for reader in &batch {
                        let failed = StoreError::Internal("the version check panicked".into());
                        reader.tell(Told::Done(Err(failed)));
                    }
                    resume_unwind(panic);
                }
            }
            let mut told = me.told.lock();
            loop {
                match std::mem::replace(&mut *told, Told::Wait) {
                    Told::Wait => me.wake.wait(&mut told),
                    Told::Lead(next) => {
                        batch = Some(next);
                        break;
                    }
                    Told::Done(version) => return version,
                }
            }
        }
    }

    /// After a query: the readers queued meanwhile are the next batch, led by its first
    /// reader; with none, one query fewer is in flight.
    fn hand_on(&self) {
        let mut queue = self.queue.lock();
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
}

/// Asks for the batch's games in one query and tells each reader its game's version.
fn lead(batch: &[Arc<Reader>], ask: &impl Fn(&[Uuid]) -> Result<Versions, StoreError>) {
    let ids: Vec<Uuid> = batch.iter().map(|r| r.id).collect();
    match ask(&ids) {
        Ok(versions) => {
            for reader in batch {
                reader.tell(Told::Done(Ok(versions.get(&reader.id).copied())));
            }
        }
        Err(e) => {
            for reader in batch {
                reader.tell(Told::Done(Err(copy(&e))));
            }
        }
    }
}

/// Takes the queued readers, first come first, at most a query's worth.
fn take_batch(queue: &mut Queue) -> Vec<Arc<Reader>> {
    let taken = queue.waiting.len().min(MOST_IN_A_QUERY);
    queue.waiting.drain(..taken).collect()
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::mpsc;
    use std::thread;
    use std::time::Duration;

    use super::*;

    /// The checks in flight hold up their leaders until the test lets them go; the readers
    /// that come meanwhile are asked for in one query, and each gets its own game's answer.
    #[test]
    fn readers_that_come_while_checks_are_in_flight_share_one_query() {
        let probes = Arc::new(Probes::default());
        let asked = Arc::new(Mutex::new(Vec::<usize>::new()));
        let (go, gate) = mpsc::channel::<()>();
        let gate = Arc::new(Mutex::new(gate));
        let read = |n: u128| {
            let (probes, asked, gate) = (probes.clone(), asked.clone(), gate.clone());
            thread::spawn(move || {
                probes.version(Uuid::from_u128(n), |ids| {
                    asked.lock().push(ids.len());
                    // The first queries wait for the test; later ones answer at once.
                    if asked.lock().len() <= IN_FLIGHT {
                        let _ = gate.lock().recv();
                    }
                    // Odd games exist, at version n; even ones do not.
                    Ok(ids
                        .iter()
                        .filter(|id| id.as_u128() % 2 == 1)
                        .map(|id| (*id, (id.as_u128() as i64, None)))
                        .collect())
                })
            })
        };
        let leading = IN_FLIGHT as u128;
        let leaders: Vec<_> = (1..=leading).map(read).collect();
        while asked.lock().len() < IN_FLIGHT {
            thread::sleep(Duration::from_millis(1));
        }
        let queued: Vec<_> = (leading + 1..=leading + 10).map(read).collect();
        while probes.queue.lock().waiting.len() < 10 {
            thread::sleep(Duration::from_millis(1));
        }
        for _ in 0..IN_FLIGHT {
            go.send(()).unwrap();
        }
        for (n, reader) in (1..).zip(leaders.into_iter().chain(queued)) {
            let version = reader.join().expect("no panic").expect("answered");
            let expected = (n % 2 == 1).then_some((n as i64, None));
            assert_eq!(version, expected, "game {n}");
        }
        let mut sizes = vec![1; IN_FLIGHT];
        sizes.push(10);
        assert_eq!(*asked.lock(), sizes);
    }

    #[test]
    fn a_failed_query_fails_each_of_its_readers_and_the_next_reader_asks_again() {
        let probes = Probes::default();
        let calls = AtomicUsize::new(0);
        let ask = |_: &[Uuid]| -> Result<Versions, StoreError> {
            calls.fetch_add(1, Ordering::SeqCst);
            Err(StoreError::Unavailable("down".into()))
        };
        let failed = probes.version(Uuid::from_u128(1), ask);
        assert!(
            matches!(failed, Err(StoreError::Unavailable(_))),
            "{failed:?}"
        );
        let answered = probes.version(Uuid::from_u128(1), |_| Ok(Versions::new()));
        assert_eq!(answered.ok(), Some(None));
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        assert_eq!(probes.queue.lock().leaders, 0);
    }
}
