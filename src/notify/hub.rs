//! The in-process hub: who waits for which game or account feed, and the newest seq known.
//! A `watch` channel per topic keeps one value (the highest seq announced), so a burst of
//! wake-ups costs a waiter one read of the log, and memory does not grow with traffic.

use std::collections::HashMap;
use std::sync::Mutex;

use tokio::sync::watch;
use uuid::Uuid;

pub use crate::store::{Topic, Wake};

/// What a topic's waiters are told: the highest seq announced, and how many times every
/// waiter was asked to re-read (`wake_all`). A stream that has sent up to `seq` and sees no
/// new `resets` has nothing to read: it waits without touching the store.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Mark {
    pub seq: i64,
    pub resets: u64,
}

/// Waiters by topic. Cheap to share (`Arc<Hub>`).
#[derive(Default)]
pub struct Hub {
    topics: Mutex<HashMap<Topic, watch::Sender<Mark>>>,
    /// By account: bumped whenever its tokens may have been revoked (`Session`).
    sessions: Mutex<HashMap<Uuid, watch::Sender<u64>>>,
    /// True once the process is stopping: streams and long-polls end at once.
    closing: watch::Sender<bool>,
}

/// Prune topics nobody waits for once the map holds this many (and twice as many after).
const PRUNE_FROM: usize = 1024;

impl Hub {
    pub fn new() -> Hub {
        Hub::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Topic, watch::Sender<Mark>>> {
        // A panic while holding the lock cannot leave the map inconsistent (single inserts and
        // removes), so a poisoned lock is still good.
        self.topics.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Starts waiting on `topic`. Subscribe BEFORE reading the log: a wake-up that comes
    /// between the read and the wait then still ends the wait.
    pub fn subscribe(&self, topic: Topic) -> watch::Receiver<Mark> {
        let mut topics = self.lock();
        if topics.len() >= PRUNE_FROM && topics.len().is_power_of_two() {
            topics.retain(|_, tx| tx.receiver_count() > 0);
        }
        topics
            .entry(topic)
            .or_insert_with(|| watch::channel(Mark::default()).0)
            .subscribe()
    }

    /// Wakes whoever waits on the wake's topic (if its seq is new to them).
    pub fn wake(&self, wake: Wake) {
        let mut topics = self.lock();
        let Some(tx) = topics.get(&wake.topic) else {
            return;
        };
        if tx.receiver_count() == 0 {
            topics.remove(&wake.topic);
            return;
        }
        let newer = tx.send_if_modified(|seen| {
            let newer = wake.seq > seen.seq;
            if newer {
                seen.seq = wake.seq;
            }
            newer
        });
        // A game's streams that carry its table talk read again on a new message. (The
        // others read nothing new: a message is rare beside the moves.)
        if let (true, Topic::Chat(game)) = (newer, wake.topic) {
            if let Some(game) = topics.get(&Topic::Game(game)) {
                game.send_modify(|mark| mark.resets += 1);
            }
        }
    }

    /// Wakes every waiter (they re-read their logs): after wake-ups may have been lost, e.g.
    /// while the `LISTEN` connection was down. Every session is checked again too.
    pub fn wake_all(&self) {
        let mut topics = self.lock();
        topics.retain(|_, tx| tx.receiver_count() > 0);
        for tx in topics.values() {
            tx.send_modify(|mark| mark.resets += 1);
        }
        drop(topics);
        let mut sessions = self.lock_sessions();
        sessions.retain(|_, tx| tx.receiver_count() > 0);
        for tx in sessions.values() {
            tx.send_modify(|n| *n += 1);
        }
    }

    /// Becomes true when the process stops (`close_streams`).
    pub fn closing(&self) -> watch::Receiver<bool> {
        self.closing.subscribe()
    }

    /// The process is stopping: every stream and long-poll ends now, and its client resumes
    /// from the log on another process (or this one once it is back).
    pub fn close_streams(&self) {
        self.closing.send_replace(true);
    }

    fn lock_sessions(&self) -> std::sync::MutexGuard<'_, HashMap<Uuid, watch::Sender<u64>>> {
        self.sessions.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Changes whenever `account`'s tokens may have been revoked.
    pub fn sessions(&self, account: Uuid) -> watch::Receiver<u64> {
        let mut sessions = self.lock_sessions();
        if sessions.len() >= PRUNE_FROM && sessions.len().is_power_of_two() {
            sessions.retain(|_, tx| tx.receiver_count() > 0);
        }
        sessions
            .entry(account)
            .or_insert_with(|| watch::channel(0).0)
            .subscribe()
    }

    /// `account`'s tokens may have been revoked: its streams and long-polls check theirs.
    pub fn sessions_changed(&self, account: Uuid) {
        let mut sessions = self.lock_sessions();
        let Some(tx) = sessions.get(&account) else {
            return;
        };
        if tx.receiver_count() == 0 {
            sessions.remove(&account);
            return;
        }
        tx.send_modify(|n| *n += 1);
    }

    /// The topics somebody waits on.
    pub fn waited(&self) -> Vec<Topic> {
        self.lock()
            .iter()
            .filter(|(_, tx)| tx.receiver_count() > 0)
            .map(|(topic, _)| *topic)
            .collect()
    }

    /// Topics with at least one waiter (for tests and metrics).
    pub fn waiting(&self) -> usize {
        self.lock()
            .values()
            .filter(|tx| tx.receiver_count() > 0)
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads_read_back() {
        let id = Uuid::new_v4();
        for wake in [
            Wake {
                topic: Topic::Game(id),
                seq: 7,
            },
            Wake {
                topic: Topic::Account(id),
                seq: 1,
            },
            Wake {
                topic: Topic::Chat(id),
                seq: 3,
            },
        ] {
            assert_eq!(Wake::parse(&wake.payload()), Some(wake));
        }
        assert_eq!(Wake::parse("x:1:2"), None);
        assert_eq!(Wake::parse("g:not-a-uuid:2"), None);
    }

    #[tokio::test]
    async fn a_wake_after_subscribing_ends_the_wait_and_old_seqs_do_not() {
        let hub = Hub::new();
        let game = Topic::Game(Uuid::new_v4());
        let mut rx = hub.subscribe(game);
        hub.wake(Wake {
            topic: game,
            seq: 3,
        });
        rx.changed().await.expect("woken");
        assert_eq!(rx.borrow_and_update().seq, 3);
        hub.wake(Wake {
            topic: game,
            seq: 2,
        });
        assert!(
            !rx.has_changed().expect("open"),
            "an older seq wakes nobody"
        );
        let account = Uuid::new_v4();
        let mut sessions = hub.sessions(account);
        hub.sessions_changed(Uuid::new_v4());
        assert!(!sessions.has_changed().expect("open"), "another account's");
        hub.sessions_changed(account);
        assert!(sessions.has_changed().expect("open"));
        sessions.borrow_and_update();
        hub.wake_all();
        assert!(rx.has_changed().expect("open"));
        assert!(
            sessions.has_changed().expect("open"),
            "a reset checks every session"
        );
        assert_eq!(rx.borrow_and_update().resets, 1);
        drop(rx);
        hub.wake(Wake {
            topic: game,
            seq: 9,
        });
        assert_eq!(hub.waiting(), 0, "a topic nobody waits for is dropped");
    }

    #[test]
    fn a_chat_message_makes_its_games_waiters_read_again() {
        let hub = Hub::new();
        let id = Uuid::new_v4();
        let mut game = hub.subscribe(Topic::Game(id));
        let _chat = hub.subscribe(Topic::Chat(id));
        let mut other = hub.subscribe(Topic::Game(Uuid::new_v4()));
        let chat = |seq| Wake {
            topic: Topic::Chat(id),
            seq,
        };
        hub.wake(chat(1));
        assert_eq!(game.borrow_and_update().resets, 1);
        assert_eq!(game.borrow().seq, 0, "the event log did not grow");
        hub.wake(chat(1));
        assert!(
            !game.has_changed().expect("open"),
            "an old message: no read"
        );
        assert!(!other.has_changed().expect("open"), "another game's");
        other.borrow_and_update();
    }
}
