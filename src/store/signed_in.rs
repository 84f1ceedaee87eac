//! Accounts and their live sessions as the token check reads them, kept for a few seconds so
//! that a request's check costs no read (and no hop to a blocking thread) of its own.
//!
//! Whatever changes what a token check reads (the token generation: signing out everywhere, a
//! guest registering, leaving for good; a session ended) forgets the entry at once in its own
//! process. On PostgreSQL every other process forgets it when the change's notification
//! arrives (`x:<id>` on the wake-up channel, delivered at commit, within milliseconds); on
//! SQLite every writer is in this process, so nothing else has to hear of it. An entry lives
//! at most [`TTL`]: the bound on a stale check should a notification be lost, and the wake-up
//! listener forgets everything whenever it (re)connects, since it may have missed some.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use uuid::Uuid;

use super::SignedInAccount;

/// How long an entry is trusted without a notification.
pub const TTL: Duration = Duration::from_secs(5);
/// More entries than this and the cache starts again empty: a bound on memory.
const MAX_ENTRIES: usize = 100_000;

#[derive(Default)]
pub struct SignedIn {
    entries: Mutex<HashMap<Uuid, (Instant, SignedInAccount)>>,
    /// Counts forgets, so that an account read before a change cannot be kept after it.
    forgets: AtomicU64,
}

impl SignedIn {
    pub fn get(&self, id: Uuid) -> Option<SignedInAccount> {
        let entries = self.entries.lock();
        let (at, account) = entries.get(&id)?;
        (at.elapsed() < TTL).then(|| account.clone())
    }

    /// Call before reading an account from the database; pass the answer to [`SignedIn::put`].
    pub fn ticket(&self) -> u64 {
        self.forgets.load(Ordering::SeqCst)
    }

    /// Keeps `account` as read from the database, unless an account was forgotten since the
    /// read began (`ticket`): that read may predate the change.
    pub fn put(&self, ticket: u64, account: SignedInAccount) {
        let mut entries = self.entries.lock();
        if self.forgets.load(Ordering::SeqCst) != ticket {
            return;
        }
        if entries.len() >= MAX_ENTRIES {
            entries.clear();
        }
        entries.insert(account.account.id, (Instant::now(), account));
    }

    pub fn forget(&self, id: Uuid) {
        let mut entries = self.entries.lock();
        self.forgets.fetch_add(1, Ordering::SeqCst);
        entries.remove(&id);
    }

    pub fn forget_all(&self) {
        let mut entries = self.entries.lock();
        self.forgets.fetch_add(1, Ordering::SeqCst);
        entries.clear();
    }
}

/// The notification payload that makes other processes forget `id`.
pub fn payload(id: Uuid) -> String {
    format!("x:{id}")
}

/// The account a payload of [`payload`] names; None for any other payload.
pub fn parse(payload: &str) -> Option<Uuid> {
    Uuid::parse_str(payload.strip_prefix("x:")?).ok()
}

/// The notification payload of an erased account: forget it, and whatever names it.
pub fn names_payload(id: Uuid) -> String {
    format!("n:{id}")
}

/// The account a payload of [`names_payload`] names; None for any other payload.
pub fn parse_names(payload: &str) -> Option<Uuid> {
    Uuid::parse_str(payload.strip_prefix("n:")?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Role;

    fn account(generation: i64) -> SignedInAccount {
        let account = crate::store::Account {
            id: Uuid::from_u128(7),
            username: "ann".into(),
            password_hash: None,
            role: Role::Player,
            guest: true,
            created_at: chrono::Utc::now(),
            token_generation: generation,
        };
        SignedInAccount {
            account,
            sessions: Vec::new(),
        }
    }

    #[test]
    fn a_read_that_began_before_a_change_is_not_kept() {
        let cache = SignedIn::default();
        let ticket = cache.ticket();
        // The account changes (and is forgotten) while the read is under way.
        cache.forget(Uuid::from_u128(7));
        cache.put(ticket, account(1));
        assert!(cache.get(Uuid::from_u128(7)).is_none());
        // A read that began after it is kept, until forgotten.
        cache.put(cache.ticket(), account(2));
        assert_eq!(
            cache
                .get(Uuid::from_u128(7))
                .map(|a| a.account.token_generation),
            Some(2)
        );
        cache.forget(Uuid::from_u128(7));
        assert!(cache.get(Uuid::from_u128(7)).is_none());
    }

    #[test]
    fn payloads_read_back() {
        let id = Uuid::new_v4();
        assert_eq!(parse(&payload(id)), Some(id));
        assert_eq!(parse("g:x:1"), None);
        assert_eq!(parse("x:not-a-uuid"), None);
    }
}
