//! The newest items of the account feeds streamed by this process, as [`tails`](super::tails)
//! is for game logs: a write committed here hands over the items it appended
//! ([`FeedTails::follow`]) before it wakes the streams, so an account's stream woken for its
//! new item takes it from memory instead of reading the store. What a stream reads from the
//! store is kept too ([`FeedTails::remember`]), so the first write after it joins up.
//!
//! Each account's cache is one run of items with consecutive seqs, all committed; it answers
//! only when it holds every item a stream lacks up to the seq it was woken for, and the store
//! answers otherwise (a write of another process, an item written outside the game write
//! path, a stream far behind).

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use uuid::Uuid;

use super::feed::FeedEntry;
use crate::store::StoredFeedItem;

/// Items kept per account.
const KEEP: usize = 32;
/// Accounts kept at most; past it the map starts again empty.
const MAX_ACCOUNTS: usize = 4096;

#[derive(Default)]
pub struct FeedTails {
    /// By account: consecutive items, oldest first (empty: streamed here, nothing kept yet).
    accounts: Mutex<HashMap<Uuid, Vec<FeedEntry>>>,
}

impl FeedTails {
    fn lock(&self) -> MutexGuard<'_, HashMap<Uuid, Vec<FeedEntry>>> {
        // A cache: a panic while holding the lock leaves nothing half-done that matters.
        self.accounts.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The items of `account` after `after`, if the cache holds all of them up to `known` (a
    /// committed seq the stream was woken for); None: read the store.
    pub fn after(&self, account: Uuid, after: i64, known: i64) -> Option<Vec<FeedEntry>> {
        let accounts = self.lock();
        let run = accounts.get(&account)?;
        let (first, last) = (run.first()?.seq, run.last()?.seq);
        (first <= after + 1 && last >= known)
            .then(|| run.iter().filter(|i| i.seq > after).cloned().collect())
    }

    /// Items of `account` a stream read from the store: all those after some seq, in order.
    pub fn remember(&self, account: Uuid, items: &[FeedEntry]) {
        let mut accounts = self.lock();
        if accounts.len() >= MAX_ACCOUNTS && !accounts.contains_key(&account) {
            accounts.clear();
        }
        let run = accounts.entry(account).or_default();
        join(run, items.iter().cloned());
    }

    /// Lets every kept item go: the next read of each feed goes to the store.
    pub fn forget_all(&self) {
        self.lock().clear();
    }

    /// Items a write of this process committed, for the accounts streamed here.
    pub fn follow(&self, items: Vec<StoredFeedItem>) {
        if items.is_empty() {
            return;
        }
        let mut accounts = self.lock();
        for item in items {
            if let Some(run) = accounts.get_mut(&item.account_id) {
                join(run, std::iter::once(FeedEntry::from(item)));
            }
        }
    }
}

/// Adds `newer` (consecutive seqs, ascending) to `run`: appended where it goes on from the
/// run's last seq, in its place where it starts past it (the run was missing items), ignored
/// where the run already reaches as far.
fn join(run: &mut Vec<FeedEntry>, newer: impl Iterator<Item = FeedEntry>) {
    for item in newer {
        match run.last().map(|last| last.seq) {
            Some(last) if item.seq <= last => continue,
            Some(last) if item.seq == last + 1 => run.push(item),
            _ => {
                run.clear();
                run.push(item);
            }
        }
    }
    let over = run.len().saturating_sub(KEEP);
    run.drain(..over);
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Utc;

    fn item(account: Uuid, seq: i64) -> StoredFeedItem {
        StoredFeedItem {
            account_id: account,
            seq,
            kind: "your_turn".into(),
            game_id: None,
            game_version: None,
            payload: serde_json::json!({}),
            created_at: Utc::now(),
        }
    }

    fn seqs(items: Option<Vec<FeedEntry>>) -> Option<Vec<i64>> {
        items.map(|items| items.iter().map(|i| i.seq).collect())
    }

    #[test]
    fn answers_only_with_every_item_a_stream_lacks() {
        let (me, other) = (Uuid::new_v4(), Uuid::new_v4());
        let feeds = FeedTails::default();
        // Nobody streams `me` yet: a write's items are not kept.
        feeds.follow(vec![item(me, 1)]);
        assert_eq!(seqs(feeds.after(me, 0, 1)), None);
        // A stream read items 1..=2 from the store; a write appends 3, and one of another
        // account is not kept.
        let read: Vec<FeedEntry> = [1, 2].map(|s| FeedEntry::from(item(me, s))).into();
        feeds.remember(me, &read);
        feeds.follow(vec![item(me, 3), item(other, 9)]);
        assert_eq!(seqs(feeds.after(me, 2, 3)), Some(vec![3]));
        assert_eq!(seqs(feeds.after(me, 0, 3)), Some(vec![1, 2, 3]));
        assert_eq!(seqs(feeds.after(other, 8, 9)), None);
        // Woken for 4, written elsewhere: the store must answer.
        assert_eq!(seqs(feeds.after(me, 3, 4)), None);
        // A write past a gap starts the run again: only streams beyond the gap are answered.
        feeds.follow(vec![item(me, 5)]);
        assert_eq!(seqs(feeds.after(me, 4, 5)), Some(vec![5]));
        assert_eq!(seqs(feeds.after(me, 3, 5)), None);
        // An older read changes nothing.
        feeds.remember(me, &read);
        assert_eq!(seqs(feeds.after(me, 4, 5)), Some(vec![5]));
    }

    #[test]
    fn keeps_the_newest_items_only() {
        let me = Uuid::new_v4();
        let feeds = FeedTails::default();
        feeds.remember(me, &[]);
        feeds.follow((1..=100).map(|s| item(me, s)).collect());
        assert_eq!(seqs(feeds.after(me, 0, 100)), None);
        let newest = feeds.after(me, 100 - KEEP as i64, 100).expect("kept");
        assert_eq!(newest.len(), KEEP);
    }
}
