//! What a commit changed, as the layers above need to hear it: which log grew to which seq
//! ([`Wake`]), and the new entries themselves ([`Committed`]) so that caches of recent log
//! tails can follow without reading them back. The store only reports; the service's
//! post-commit step feeds its caches and wakes the hub.

use std::sync::Arc;

use uuid::Uuid;

use super::{GameRecord, NewEvent, StoredFeedItem};

/// Which log a wake-up is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Topic {
    /// A game's event log.
    Game(Uuid),
    /// An account's feed.
    Account(Uuid),
    /// A game's table talk (its own seqs, apart from the event log).
    Chat(Uuid),
}

/// "`topic` has entries up to `seq`".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wake {
    pub topic: Topic,
    pub seq: i64,
}

impl Wake {
    /// The `pg_notify` payload: `g:<game id>:<seq>`, `a:<account id>:<seq>` or
    /// `c:<game id>:<seq>` (its chat).
    pub fn payload(&self) -> String {
        match self.topic {
            Topic::Game(id) => format!("g:{id}:{}", self.seq),
            Topic::Account(id) => format!("a:{id}:{}", self.seq),
            Topic::Chat(id) => format!("c:{id}:{}", self.seq),
        }
    }

    /// Reads a payload written by [`Wake::payload`]; None for anything else.
    pub fn parse(payload: &str) -> Option<Wake> {
        let mut parts = payload.splitn(3, ':');
        let (kind, id, seq) = (parts.next()?, parts.next()?, parts.next()?);
        let id = Uuid::parse_str(id).ok()?;
        let seq = seq.parse().ok()?;
        let topic = match kind {
            "g" => Topic::Game(id),
            "a" => Topic::Account(id),
            "c" => Topic::Chat(id),
            _ => return None,
        };
        Some(Wake { topic, seq })
    }
}

/// What a commit made known, for whoever keeps copies or waits in this process.
#[derive(Debug, Default)]
pub struct News {
    /// The logs that grew: the game's, and one per account whose feed grew.
    pub wakes: Vec<Wake>,
    /// The game as written with the events it gained, in seq order.
    pub tail: Option<(Arc<GameRecord>, Vec<NewEvent>)>,
    /// The feed items written, with their seqs.
    pub feed: Vec<StoredFeedItem>,
    /// Accounts whose tokens or sessions changed: their streams check theirs again.
    pub sessions: Vec<Uuid>,
    /// A person's name was replaced in stored games and feeds: every copy goes.
    pub names_changed: bool,
}

impl News {
    /// An account's tokens or sessions changed.
    pub fn sessions_of(account: Uuid) -> News {
        News {
            sessions: vec![account],
            ..News::default()
        }
    }
}

/// A commit's result and what it made known. Hand it to the service's post-commit step,
/// which returns `value`.
#[must_use = "the post-commit step wakes the streams"]
#[derive(Debug)]
pub struct Committed<T> {
    pub value: T,
    pub news: News,
}

impl<T> Committed<T> {
    pub(super) fn new(value: T, news: News) -> Committed<T> {
        Committed { value, news }
    }

    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Committed<U> {
        Committed {
            value: f(self.value),
            news: self.news,
        }
    }
}

/// What the relay heard from the other processes (PostgreSQL).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Heard {
    /// Another process committed up to this seq.
    Wake(Wake),
    /// Wake-ups may have been missed (the relay reconnected): every waiter reads again.
    Reset,
    /// An account's tokens or sessions changed.
    Sessions(Uuid),
    /// An account's name was replaced everywhere (it was erased).
    NamesChanged(Uuid),
}
