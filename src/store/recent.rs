//! The games this process wrote last. An action on one of them is decided on the
//! record as written, and the write's compare-and-set on the version proves that record
//! current: the read before the write is saved, and the action is one round trip.
//!
//! Every change of a game moves its version on, so a record kept here is either the game as
//! it is or refused by the compare-and-set (then the game is read and the action decided
//! again). Another process's write makes an entry stale: its wake-up drops the entry when it
//! arrives (`Hub::wake`), so that the next action here does not first try a write that must
//! fail. Nothing here is ever sent to anyone: answers are built by the same code either way.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use uuid::Uuid;

use super::GameRecord;

/// How many games are kept; past it, one is let go for each new one. A record is a game's
/// state and seats: a few KB.
const KEEP: usize = 4096;

#[derive(Default)]
pub struct RecentGames {
    games: Mutex<HashMap<Uuid, Arc<GameRecord>>>,
}

impl RecentGames {
    fn lock(&self) -> MutexGuard<'_, HashMap<Uuid, Arc<GameRecord>>> {
        // Single inserts and removes: a panic elsewhere cannot leave the map inconsistent.
        self.games.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The game as this process last wrote it, if kept.
    pub fn get(&self, id: Uuid) -> Option<Arc<GameRecord>> {
        self.lock().get(&id).cloned()
    }

    /// Keeps `game` as just written (committed), unless a newer version is kept already.
    /// Shared: the streams' tail of the same commit holds the same record.
    pub fn keep(&self, game: &Arc<GameRecord>) {
        let mut games = self.lock();
        if games
            .get(&game.id)
            .is_some_and(|g| g.version >= game.version)
        {
            return;
        }
        if games.len() >= KEEP && !games.contains_key(&game.id) {
            if let Some(other) = games.keys().next().copied() {
                games.remove(&other);
            }
        }
        games.insert(game.id, Arc::clone(game));
    }

    /// Game `id` has events up to `seq`: a kept record with fewer is stale.
    pub fn heard(&self, id: Uuid, seq: i64) {
        let mut games = self.lock();
        if games.get(&id).is_some_and(|g| g.last_seq < seq) {
            games.remove(&id);
        }
    }

    /// Wake-ups may have been lost (the `LISTEN` connection was down): keep nothing.
    pub fn forget_all(&self) {
        self.lock().clear();
    }
}
