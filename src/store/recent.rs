//! The games this process wrote or read last. An action on one of them is decided on the
//! record kept, and the write's compare-and-set on the version proves that record
//! current: the read before the write is saved, and the action is one round trip.
//!
//! Every change of a game moves its version on, so a record kept here is either the game as
//! it is or refused by the compare-and-set (then the game is read and the action decided
//! again). Another process's write makes an entry stale: its wake-up drops the entry when it
//! arrives (`Hub::wake`), so that the next action here does not first try a write that must
//! fail. Nothing here is ever sent to anyone: answers are built by the same code either way.
//!
//! A read of a kept game ([`read_game`]) asks the database for the version alone: when it is
//! the kept one, the kept record is the game, and the state is neither sent nor parsed again.
//! On PostgreSQL the checks of readers that come together share one query (`probes`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use chrono::NaiveDateTime;
use diesel::prelude::*;
use uuid::Uuid;

use super::conn::{AnyConnection, Target};
use super::rows::utc;
use super::schema::games;
use super::{GameRecord, Store, StoreError};

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

impl Store {
    /// Game `id` with its seats (the kept record when it is still the game).
    pub fn game(&self, id: Uuid) -> Result<Option<GameRecord>, StoreError> {
        // PostgreSQL: the version check of a kept game shares a query with others' (`probes`).
        if let (Target::Pg(_), Some(kept)) = (&self.target, self.recent.get(id)) {
            let version = self.probes.version(id, |ids| {
                self.read(|c| match c {
                    AnyConnection::Pg(pg) => read_versions(pg, ids),
                    AnyConnection::Sqlite(_) => Err(StoreError::Internal("not PostgreSQL".into())),
                })
            })?;
            if let Some(known) = as_kept(&kept, version) {
                return Ok(known);
            }
            return self.read(|c| read_whole(c, id, &self.recent));
        }
        self.read(|c| read_game(c, id, &self.recent))
    }
}

/// Game `id` with its seats, as `games::read_game` reads it: the kept record when the
/// database holds the kept version (every change of a game moves its version on; only the
/// sweeper's `due_at` moves alone, so it is read with the version), else the whole game, which
/// is then kept for the next read.
pub(super) fn read_game(
    conn: &mut AnyConnection,
    id: Uuid,
    recent: &RecentGames,
) -> Result<Option<GameRecord>, StoreError> {
    if let Some(kept) = recent.get(id) {
        if let Some(known) = as_kept(&kept, read_version(conn, id)?) {
            return Ok(known);
        }
    }
    read_whole(conn, id, recent)
}

/// What a version check of the kept game `kept` tells: Some(the game) when the database has
/// the kept version (or Some(None) when the game is gone), None when it has another.
pub(super) fn as_kept(
    kept: &GameRecord,
    version: Option<(i64, Option<NaiveDateTime>)>,
) -> Option<Option<GameRecord>> {
    match version {
        None => Some(None),
        Some((version, due_at)) if version == kept.version => {
            let mut game = GameRecord::clone(kept);
            game.due_at = due_at.map(utc);
            Some(Some(game))
        }
        Some(_) => None,
    }
}

/// Game `id` read whole, and kept for the next read.
pub(super) fn read_whole(
    conn: &mut AnyConnection,
    id: Uuid,
    recent: &RecentGames,
) -> Result<Option<GameRecord>, StoreError> {
    let game = super::games::read_game(conn, Some(id), None)?;
    if let Some(game) = &game {
        recent.keep(&Arc::new(game.clone()));
    }
    Ok(game)
}

/// PostgreSQL: the versions and `due_at`s of those of games `ids` that exist, in one query.
pub(super) fn read_versions(
    pg: &mut diesel::PgConnection,
    ids: &[Uuid],
) -> Result<super::probes::Versions, StoreError> {
    let keys: Vec<String> = ids.iter().map(Uuid::to_string).collect();
    let rows: Vec<(String, i64, Option<NaiveDateTime>)> = games::table
        .filter(games::id.eq_any(keys))
        .select((games::id, games::version, games::due_at))
        .load(pg)?;
    Ok(rows
        .into_iter()
        .filter_map(|(id, version, due_at)| Some((Uuid::parse_str(&id).ok()?, (version, due_at))))
        .collect())
}

/// The version and `due_at` of game `id` (a query of its own static type, on the backend's
/// own connection, as `games::read_game` does). No `LIMIT` (the key finds one row at most):
/// SQLite prepares a statement with a bound `LIMIT` again on every call.
fn read_version(
    conn: &mut AnyConnection,
    id: Uuid,
) -> Result<Option<(i64, Option<NaiveDateTime>)>, StoreError> {
    let query = games::table
        .find(id.to_string())
        .select((games::version, games::due_at));
    let row = match conn {
        AnyConnection::Pg(pg) => query.get_result(pg).optional()?,
        AnyConnection::Sqlite(lite) => query.get_result(lite).optional()?,
    };
    Ok(row)
}
