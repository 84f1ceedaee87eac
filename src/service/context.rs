//! What the service works with: the store, and beside it what this process keeps of the
//! store's logs (the streams' caches) and who waits on them (the hub). After each commit the
//! one post-commit step ([`Service::after`]) feeds the caches and then wakes the hub, so a
//! stream woken here finds what is new in memory. What other processes committed arrives the
//! same way, through the store's relay ([`Service::listener`]).

use std::ops::Deref;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use super::{feed_tails::FeedTails, tails::Tails};
use crate::notify::Hub;
use crate::store::{Committed, Heard, Listener, News, Store, Topic};

/// The recent log tails and feed items the streams of this process share.
#[derive(Default)]
pub struct Caches {
    pub tails: Tails,
    pub feeds: FeedTails,
}

impl Caches {
    /// A person's name was replaced in stored games and feeds: every copy goes.
    fn forget_all(&self) {
        self.tails.forget_all();
        self.feeds.forget_all();
    }
}

/// The store with the hub and caches of this process. Cheap to clone. Reads go straight to
/// the store (it derefs to [`Store`]); a change's [`Committed`] goes through [`Service::after`].
#[derive(Clone)]
pub struct Service {
    store: Store,
    hub: Arc<Hub>,
    caches: Arc<Caches>,
    decisions: Arc<AtomicU64>,
}

impl Deref for Service {
    type Target = Store;

    fn deref(&self) -> &Store {
        &self.store
    }
}

impl Service {
    pub fn new(store: Store) -> Service {
        Service {
            store,
            hub: Arc::new(Hub::new()),
            caches: Arc::default(),
            decisions: Arc::default(),
        }
    }

    /// How many decisions of a game change this process has made: one per change, and one
    /// more for each compare-and-set a change lost to another writer (the
    /// `racko_game_decisions_total` metric; tests count an action's decisions with it).
    pub fn decisions(&self) -> u64 {
        self.decisions.load(Ordering::Relaxed)
    }

    pub(super) fn count_decision(&self) {
        self.decisions.fetch_add(1, Ordering::Relaxed);
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Subscribe to a game or an account feed here before reading it.
    pub fn hub(&self) -> &Arc<Hub> {
        &self.hub
    }

    pub fn caches(&self) -> &Caches {
        &self.caches
    }

    /// The post-commit step: feeds the caches, then wakes whoever waits in this process.
    pub fn after<T>(&self, committed: Committed<T>) -> T {
        let News {
            wakes,
            tail,
            feed,
            sessions,
            names_changed,
        } = committed.news;
        self.caches.feeds.follow(feed);
        if let Some((game, events)) = tail {
            self.caches.tails.follow(&game, events);
        }
        for wake in wakes {
            self.hub.wake(wake);
        }
        for account in sessions {
            self.hub.sessions_changed(account);
        }
        if names_changed {
            self.caches.forget_all();
            self.hub.wake_all();
        }
        committed.value
    }

    /// What the store's relay hands what other processes committed to (PostgreSQL). Holds
    /// the hub weakly: the relay stops once this process's service is gone.
    pub fn listener(&self) -> impl Listener + Send + 'static {
        Relayed {
            hub: Arc::downgrade(&self.hub),
            caches: Arc::downgrade(&self.caches),
        }
    }
}

struct Relayed {
    hub: Weak<Hub>,
    caches: Weak<Caches>,
}

impl Listener for Relayed {
    fn alive(&self) -> bool {
        self.hub.strong_count() > 0
    }

    fn heard(&self, heard: Heard) {
        let Some(hub) = self.hub.upgrade() else {
            return;
        };
        match heard {
            Heard::Wake(wake) => hub.wake(wake),
            Heard::Reset => hub.wake_all(),
            Heard::Sessions(account) => hub.sessions_changed(account),
            Heard::NamesChanged(account) => {
                if let Some(caches) = self.caches.upgrade() {
                    caches.forget_all();
                }
                hub.sessions_changed(account);
                hub.wake_all();
            }
        }
    }

    fn waited(&self) -> Vec<Topic> {
        self.hub
            .upgrade()
            .map(|hub| hub.waited())
            .unwrap_or_default()
    }
}
