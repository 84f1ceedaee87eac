//! Pairing seeks: one transaction reads a pool's open seeks and the blocks among their
//! seekers, lets the caller choose whom to seat, and writes the game, its feed items and the
//! chosen seeks as matched to it, all or nothing.
//!
//! Exactly once: the matched update tests each seek's status again, so a seek another pass
//! (or a cancel) took meanwhile rolls this pairing back, game and all. Never left waiting: a
//! seek looks for partners only after its own insert committed, and a pass reads the pool in
//! a statement of its own; so of two seeks asked at the same moment on two processes, the
//! later pass sees both. Passes of one pool take turns (on PostgreSQL a transaction-level
//! advisory lock on the pool's key, on SQLite the file's write lock), so that they do not
//! choose the same seeks and roll back in turn under load.

use std::collections::HashSet;
use std::sync::Arc;

use chrono::{DateTime, Utc};

use diesel::prelude::*;
use diesel::sql_types::BigInt;
use sha2::{Digest, Sha256};
use uuid::Uuid;

use super::conn::AnyConnection;
use super::rows::{enum_text, uuid};
use super::schema::{accounts, blocks, seeks};
use super::seeks::{record, seek_columns, SeekRecord, SeekStatus};
use super::{feed, game_wake, games};
use super::{
    Committed, GameRecord, NewEvent, NewFeedItem, NewGame, News, Store, StoreError, UpdateError,
};

/// At most this many of a pool's open seeks, the oldest, are looked at in one pass.
pub const PASS_SEEKS: i64 = 200;

/// What a pairing pass chooses from.
#[derive(Clone, Debug, Default)]
pub struct Candidates {
    /// The pool's open seeks that have not expired, oldest first.
    pub seeks: Vec<SeekRecord>,
    /// (blocker, blocked) among their seekers.
    pub blocks: HashSet<(Uuid, Uuid)>,
}

/// The game a pass decided on, and the seeks it seats.
#[derive(Clone, Debug)]
pub struct Pairing {
    pub seeks: Vec<Uuid>,
    pub game: NewGame,
    pub events: Vec<NewEvent>,
    pub feed: Vec<NewFeedItem>,
}

/// The advisory lock key of a pool: the first 8 bytes of its SHA-256. Two pools that share
/// a key only take turns for nothing.
fn pool_lock(pool: &str) -> i64 {
    let digest = Sha256::digest(pool.as_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    i64::from_be_bytes(first)
}

fn candidates(
    conn: &mut AnyConnection,
    pool: &str,
    at: DateTime<Utc>,
) -> Result<Candidates, StoreError> {
    let rows = seeks::table
        .inner_join(accounts::table)
        .filter(seeks::pool.eq(pool))
        .filter(super::literal::seek_open())
        .filter(seeks::expires_at.gt(at.naive_utc()))
        .filter(accounts::deleted_at.is_null())
        .order((seeks::created_at.asc(), seeks::id.asc()))
        .limit(PASS_SEEKS)
        .select(seek_columns!())
        .load(conn)?;
    let seeks: Vec<SeekRecord> = rows.into_iter().map(record).collect::<Result<_, _>>()?;
    let mut ids: Vec<String> = seeks.iter().map(|s| s.account_id.to_string()).collect();
    ids.sort();
    ids.dedup();
    let pairs: Vec<(String, String)> = if ids.len() < 2 {
        Vec::new()
    } else {
        blocks::table
            .filter(blocks::blocker_id.eq_any(&ids))
            .filter(blocks::blocked_id.eq_any(&ids))
            .select((blocks::blocker_id, blocks::blocked_id))
            .load(conn)?
    };
    let blocks = pairs
        .iter()
        .map(|(a, b)| Ok((uuid("blocker", a)?, uuid("blocked", b)?)))
        .collect::<Result<_, StoreError>>()?;
    Ok(Candidates { seeks, blocks })
}

impl Store {
    /// One pairing pass over `pool` (see the module docs): `decide` chooses from the pool's
    /// open seeks; when it chooses a game, the game is inserted with its events and feed
    /// items and the chosen seeks are matched to it in the same transaction. None: nothing
    /// to pair. `Conflict(InviteCodeTaken)` when the game's invite code exists, `Conflict
    /// (SeekTaken)` when a chosen seek was cancelled meanwhile: nothing was written.
    pub fn pair_seeks<E>(
        &self,
        pool: &str,
        at: DateTime<Utc>,
        decide: impl FnOnce(&Candidates) -> Result<Option<Pairing>, E>,
    ) -> Result<Option<Committed<GameRecord>>, UpdateError<E>> {
        let written = self.write(|conn| {
            if let AnyConnection::Pg(pg) = conn {
                diesel::sql_query("SELECT pg_advisory_xact_lock($1)")
                    .bind::<BigInt, _>(pool_lock(pool))
                    .execute(pg)?;
            }
            let found = candidates(conn, pool, at)?;
            let Some(pairing) = decide(&found).map_err(UpdateError::Decide)? else {
                return Ok(None);
            };
            let record = games::insert_game(conn, &pairing.game, &pairing.events, None)?;
            let ids: Vec<String> = pairing.seeks.iter().map(Uuid::to_string).collect();
            let open = enum_text(&SeekStatus::Open)?;
            let matched = diesel::update(
                seeks::table
                    .filter(seeks::id.eq_any(&ids))
                    .filter(seeks::status.eq(&open)),
            )
            .set((
                seeks::status.eq(enum_text(&SeekStatus::Matched)?),
                seeks::game_id.eq(Some(record.id.to_string())),
                seeks::ended_at.eq(Some(at.naive_utc())),
            ))
            .execute(conn)?;
            if matched != ids.len() {
                return Err(UpdateError::Store(StoreError::Conflict(
                    super::Conflict::SeekTaken,
                )));
            }
            let wakes = feed::append(conn, &record, &pairing.feed)?;
            Ok::<_, UpdateError<E>>(Some((record, wakes, pairing)))
        })?;
        let Some((record, mut wakes, pairing)) = written else {
            return Ok(None);
        };
        let feed = feed::as_stored(&record, &wakes, pairing.feed);
        wakes.push(game_wake(&record));
        let news = News {
            wakes,
            tail: Some((Arc::new(record.clone()), pairing.events)),
            feed,
            ..News::default()
        };
        Ok(Some(self.committed(record, news)))
    }

    /// Pools with open seeks of two accounts or more that have not expired at `at`, at most
    /// `limit`: what a sweep pass pairs.
    pub fn crowded_pools(&self, at: DateTime<Utc>, limit: i64) -> Result<Vec<String>, StoreError> {
        let at = at.naive_utc();
        self.read(|conn| {
            Ok(seeks::table
                .filter(super::literal::seek_open())
                .filter(seeks::expires_at.gt(at))
                .group_by(seeks::pool)
                .having(
                    diesel::dsl::count(seeks::account_id)
                        .aggregate_distinct()
                        .gt(1),
                )
                .select(seeks::pool)
                .limit(limit)
                .load(conn)?)
        })
    }
}
