//! The account feed: items written with the game change that causes them, each with a gapless
//! per-account seq (the head row is updated under its row lock on PostgreSQL, under the write
//! lock on SQLite), read back in order for streams and pages.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use uuid::Uuid;

use super::conn::AnyConnection;
use super::delivery_bodies::Bodies;
use super::prepared::Prepared;
use super::rows::{from_json, to_json, utc, uuid};
use super::schema::account_feed;
use super::topic::{Topic, Wake};
use super::{GameRecord, StoreError};

/// An item for one account's feed, decided by the write path. Names the game (and the store
/// adds its version); never a card (R8).
#[derive(Clone, Debug, PartialEq)]
pub struct NewFeedItem {
    pub account_id: Uuid,
    /// `your_turn`, `game_started`, `player_joined`, `player_left`, `game_finished`,
    /// `game_cancelled`.
    pub kind: String,
    /// Public facts only (seats and usernames).
    pub payload: serde_json::Value,
}

#[derive(Clone, Debug)]
pub struct StoredFeedItem {
    pub account_id: Uuid,
    pub seq: i64,
    pub kind: String,
    /// None for an item about the account itself (`webhook_disabled`).
    pub game_id: Option<Uuid>,
    pub game_version: Option<i64>,
    pub payload: serde_json::Value,
    pub created_at: DateTime<Utc>,
}

#[derive(Queryable, Insertable)]
#[diesel(table_name = account_feed)]
struct FeedRow {
    account_id: String,
    seq: i64,
    kind: String,
    game_id: Option<String>,
    game_version: Option<i64>,
    payload: String,
    created_at: chrono::NaiveDateTime,
}

/// Appends `items` about the game as `written`, in the caller's transaction, with their
/// webhook and push outbox rows; returns a wake-up per account (its new last seq).
pub(super) fn append(
    conn: &mut AnyConnection,
    written: &GameRecord,
    items: &[NewFeedItem],
) -> Result<Vec<Wake>, StoreError> {
    let game = Some((written.id, written.version));
    append_about(conn, game, written.updated_at, items)
}

/// As [`append`], about a game (id, version) or about nothing but the account.
pub(super) fn append_about(
    conn: &mut AnyConnection,
    game: Option<(Uuid, i64)>,
    when: DateTime<Utc>,
    items: &[NewFeedItem],
) -> Result<Vec<Wake>, StoreError> {
    let mut by_account: BTreeMap<Uuid, Vec<&NewFeedItem>> = BTreeMap::new();
    for item in items {
        by_account.entry(item.account_id).or_default().push(item);
    }
    let at = when.naive_utc();
    let mut wakes = Vec::new();
    // In account order, so two transactions lock the heads in the same order (no deadlock).
    for (account, items) in by_account {
        let id = account.to_string();
        let n = items.len() as i64;
        let last = take_seqs(conn, &id, n)?;
        let endpoints = super::webhooks::enabled_endpoints(conn, &id)?;
        let devices = super::devices::wanting(conn, &id)?;
        for (seq, item) in (last - n + 1..).zip(items) {
            let row = FeedRow {
                account_id: id.clone(),
                seq,
                kind: item.kind.clone(),
                game_id: game.map(|(g, _)| g.to_string()),
                game_version: game.map(|(_, v)| v),
                payload: to_json("feed item", &item.payload)?,
                created_at: at,
            };
            diesel::insert_into(account_feed::table)
                .values(&row)
                .execute(conn)?;
            if endpoints.is_empty() && devices.is_empty() {
                continue;
            }
            let stored = row.into_record()?;
            let game = (stored.game_id, stored.game_version);
            let bodies = Bodies::new(&stored.kind, game, stored.created_at, &stored.payload)?;
            super::webhooks::enqueue(conn, &endpoints, &stored, &bodies.webhook)?;
            super::devices::enqueue(conn, &devices, &stored, &bodies.push)?;
        }
        wakes.push(Wake {
            topic: Topic::Account(account),
            seq: last,
        });
    }
    Ok(wakes)
}

/// The items of `items` as `append` (or the one write statement) stored them about the game
/// as `written`: each account's items took the seqs up to its wake-up's, in order.
pub(super) fn as_stored(
    written: &GameRecord,
    wakes: &[Wake],
    items: Vec<NewFeedItem>,
) -> Vec<StoredFeedItem> {
    let mut by_account: BTreeMap<Uuid, Vec<NewFeedItem>> = BTreeMap::new();
    for item in items {
        by_account.entry(item.account_id).or_default().push(item);
    }
    let mut out = Vec::new();
    for wake in wakes {
        let Topic::Account(account) = wake.topic else {
            continue;
        };
        let Some(items) = by_account.remove(&account) else {
            continue;
        };
        let first = wake.seq + 1 - items.len() as i64;
        out.extend((first..).zip(items).map(|(seq, item)| StoredFeedItem {
            account_id: account,
            seq,
            kind: item.kind,
            game_id: Some(written.id),
            game_version: Some(written.version),
            payload: item.payload,
            created_at: written.updated_at,
        }));
    }
    out
}

/// Takes the account's next `n` seqs and returns the last of them, creating its head row on
/// its first item: one statement, no read of the head before or after, prepared once per
/// connection ([`Prepared`]). Run on each backend's own connection: diesel's
/// MultiConnection has no portable upsert.
fn take_seqs(conn: &mut AnyConnection, id: &str, n: i64) -> Result<i64, StoreError> {
    use super::schema::account_feed_heads::dsl::{account_feed_heads, account_id, last_seq};
    use diesel::upsert::excluded;
    let upsert = Prepared(
        diesel::insert_into(account_feed_heads)
            .values((account_id.eq(id), last_seq.eq(n)))
            .on_conflict(account_id)
            .do_update()
            .set(last_seq.eq(last_seq + excluded(last_seq)))
            .returning(last_seq),
    );
    Ok(match conn {
        AnyConnection::Pg(pg) => upsert.get_result(pg)?,
        AnyConnection::Sqlite(lite) => upsert.get_result(lite)?,
    })
}

/// Items of `account` with seq > `after`, ascending, at most `limit`.
pub(super) fn read(
    conn: &mut AnyConnection,
    account: Uuid,
    after: i64,
    limit: i64,
) -> Result<Vec<StoredFeedItem>, StoreError> {
    account_feed::table
        .filter(account_feed::account_id.eq(account.to_string()))
        .filter(account_feed::seq.gt(after))
        .order(account_feed::seq)
        .limit(limit.max(0))
        .load::<FeedRow>(conn)?
        .into_iter()
        .map(FeedRow::into_record)
        .collect()
}

impl FeedRow {
    fn into_record(self) -> Result<StoredFeedItem, StoreError> {
        Ok(StoredFeedItem {
            account_id: uuid("feed account", &self.account_id)?,
            seq: self.seq,
            kind: self.kind,
            game_id: self
                .game_id
                .as_deref()
                .map(|g| uuid("feed game", g))
                .transpose()?,
            game_version: self.game_version,
            payload: from_json("feed payload", &self.payload)?,
            created_at: utc(self.created_at),
        })
    }
}
