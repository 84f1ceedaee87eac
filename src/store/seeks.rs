//! The seek pool's rows: a seek asked for, read, cancelled, and gone when its account is
//! erased or it ended long ago. Pairing seeks into a game is [`seek_pairing`](super::seek_pairing).

use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::prelude::*;
use racko_rules::Options;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::conn::AnyConnection;
use super::rows::{enum_from_text, enum_text, from_json, to_json, utc, uuid};
use super::schema::{accounts, seeks};
use super::{Conflict, Store, StoreError};

/// Where a seek stands as stored. An open seek past its `expires_at` has expired: it is
/// shown so and never pairs, with no write needed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SeekStatus {
    Open,
    Matched,
    Cancelled,
}

/// A seek to store.
#[derive(Clone, Debug)]
pub struct NewSeek {
    pub id: Uuid,
    pub account_id: Uuid,
    /// What must be equal for two seeks to pair (options and the rated flag), as one key.
    pub pool: String,
    pub options: Options,
    pub rated: bool,
    /// The seeker's rating when it asked.
    pub rating: i32,
    /// The ratings the seeker accepts in others, each end optional.
    pub range: (Option<i32>, Option<i32>),
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

/// A stored seek with its seeker's username.
#[derive(Clone, Debug, PartialEq)]
pub struct SeekRecord {
    pub id: Uuid,
    pub account_id: Uuid,
    pub username: String,
    pub options: Options,
    pub rated: bool,
    pub rating: i32,
    pub range: (Option<i32>, Option<i32>),
    pub status: SeekStatus,
    /// The game it was matched into.
    pub game_id: Option<Uuid>,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub ended_at: Option<DateTime<Utc>>,
}

type SeekRow = (
    String,
    String,
    String,
    String,
    bool,
    i32,
    Option<i32>,
    Option<i32>,
    String,
    Option<String>,
    NaiveDateTime,
    NaiveDateTime,
    Option<NaiveDateTime>,
);

/// The columns of a [`SeekRow`], the seeker's username third.
macro_rules! seek_columns {
    () => {
        (
            seeks::id,
            seeks::account_id,
            accounts::username,
            seeks::options,
            seeks::rated,
            seeks::rating,
            seeks::min_rating,
            seeks::max_rating,
            seeks::status,
            seeks::game_id,
            seeks::created_at,
            seeks::expires_at,
            seeks::ended_at,
        )
    };
}
pub(super) use seek_columns;

pub(super) fn record(row: SeekRow) -> Result<SeekRecord, StoreError> {
    let (
        id,
        account,
        username,
        options,
        rated,
        rating,
        min,
        max,
        status,
        game,
        created,
        expires,
        ended,
    ) = row;
    Ok(SeekRecord {
        id: uuid("seek id", &id)?,
        account_id: uuid("seek account", &account)?,
        username,
        options: from_json("seek options", &options)?,
        rated,
        rating,
        range: (min, max),
        status: enum_from_text("seek status", &status)?,
        game_id: game.as_deref().map(|g| uuid("seek game", g)).transpose()?,
        created_at: utc(created),
        expires_at: utc(expires),
        ended_at: ended.map(utc),
    })
}

fn read_seek(
    conn: &mut AnyConnection,
    account: Uuid,
    id: Uuid,
) -> Result<Option<SeekRecord>, StoreError> {
    let row: Option<SeekRow> = seeks::table
        .inner_join(accounts::table)
        .filter(seeks::id.eq(id.to_string()))
        .filter(seeks::account_id.eq(account.to_string()))
        .select(seek_columns!())
        .first(conn)
        .optional()?;
    row.map(record).transpose()
}

impl Store {
    /// Stores `seek` unless its account has `max_open` open seeks that have not expired
    /// (`Conflict(TooManySeeks)`); the count and the insert are one transaction, and the
    /// account's row is locked for it (PostgreSQL) so that two requests at once cannot both
    /// take the last place.
    pub fn insert_seek(&self, seek: &NewSeek, max_open: i64) -> Result<SeekRecord, StoreError> {
        let account = seek.account_id.to_string();
        let at = seek.created_at.naive_utc();
        self.write(|conn| {
            if let AnyConnection::Pg(pg) = conn {
                accounts::table
                    .find(&account)
                    .select(accounts::id)
                    .for_update()
                    .first::<String>(pg)
                    .optional()?;
            }
            let open: i64 = seeks::table
                .filter(seeks::account_id.eq(&account))
                .filter(seeks::status.eq(enum_text(&SeekStatus::Open)?))
                .filter(seeks::expires_at.gt(at))
                .count()
                .get_result(conn)?;
            if open >= max_open {
                return Err(StoreError::Conflict(Conflict::TooManySeeks));
            }
            diesel::insert_into(seeks::table)
                .values((
                    seeks::id.eq(seek.id.to_string()),
                    seeks::account_id.eq(&account),
                    seeks::pool.eq(&seek.pool),
                    seeks::options.eq(to_json("seek options", &seek.options)?),
                    seeks::rated.eq(seek.rated),
                    seeks::rating.eq(seek.rating),
                    seeks::min_rating.eq(seek.range.0),
                    seeks::max_rating.eq(seek.range.1),
                    seeks::status.eq(enum_text(&SeekStatus::Open)?),
                    seeks::created_at.eq(at),
                    seeks::expires_at.eq(seek.expires_at.naive_utc()),
                ))
                .execute(conn)?;
            read_seek(conn, seek.account_id, seek.id)?.ok_or(StoreError::NotFound)
        })
    }

    /// The account's own seek `id`.
    pub fn seek(&self, account: Uuid, id: Uuid) -> Result<Option<SeekRecord>, StoreError> {
        self.read(|conn| read_seek(conn, account, id))
    }

    /// The account's seeks, newest first, at most `limit`.
    pub fn seeks_of(&self, account: Uuid, limit: i64) -> Result<Vec<SeekRecord>, StoreError> {
        let rows: Vec<SeekRow> = self.read(|conn| {
            Ok(seeks::table
                .inner_join(accounts::table)
                .filter(seeks::account_id.eq(account.to_string()))
                .order((seeks::created_at.desc(), seeks::id.desc()))
                .limit(limit)
                .select(seek_columns!())
                .load(conn)?)
        })?;
        rows.into_iter().map(record).collect()
    }

    /// Cancels the account's seek `id` if it is open and has not expired at `at`: whether it
    /// did, and the seek as it is afterwards (None: not the account's, or unknown).
    pub fn cancel_seek(
        &self,
        account: Uuid,
        id: Uuid,
        at: DateTime<Utc>,
    ) -> Result<Option<(bool, SeekRecord)>, StoreError> {
        self.write(|conn| {
            let cancelled = cancel_where(conn, account, Some(id), at)? > 0;
            Ok(read_seek(conn, account, id)?.map(|seek| (cancelled, seek)))
        })
    }

    /// Cancels every open seek of the account (it is leaving); how many.
    pub fn cancel_seeks_of(&self, account: Uuid, at: DateTime<Utc>) -> Result<usize, StoreError> {
        self.write(|conn| cancel_where(conn, account, None, at))
    }

    /// Deletes up to `batch` seeks that ended, or expired unmatched, before `before`; how many.
    pub fn delete_old_seeks(&self, before: DateTime<Utc>, batch: i64) -> Result<usize, StoreError> {
        let before = before.naive_utc();
        self.write(|conn| {
            let open = enum_text(&SeekStatus::Open)?;
            let old: Vec<String> = seeks::table
                .filter(
                    seeks::ended_at
                        .lt(before)
                        .or(seeks::status.eq(&open).and(seeks::expires_at.lt(before))),
                )
                .select(seeks::id)
                .limit(batch)
                .load(conn)?;
            Ok(diesel::delete(seeks::table.filter(seeks::id.eq_any(&old))).execute(conn)?)
        })
    }
}

fn cancel_where(
    conn: &mut AnyConnection,
    account: Uuid,
    id: Option<Uuid>,
    at: DateTime<Utc>,
) -> Result<usize, StoreError> {
    let at = at.naive_utc();
    let mut open = seeks::table
        .filter(seeks::account_id.eq(account.to_string()))
        .filter(seeks::status.eq(enum_text(&SeekStatus::Open)?))
        .filter(seeks::expires_at.gt(at))
        .into_boxed();
    if let Some(id) = id {
        open = open.filter(seeks::id.eq(id.to_string()));
    }
    let ids: Vec<String> = open.select(seeks::id).load(conn)?;
    // The status is tested again: a pairing may have matched one since it was read.
    Ok(diesel::update(
        seeks::table
            .filter(seeks::id.eq_any(&ids))
            .filter(seeks::status.eq(enum_text(&SeekStatus::Open)?)),
    )
    .set((
        seeks::status.eq(enum_text(&SeekStatus::Cancelled)?),
        seeks::ended_at.eq(Some(at)),
    ))
    .execute(conn)?)
}

/// Erasing an account: its seeks go (in the erasing transaction).
pub(super) fn forget_account(conn: &mut AnyConnection, account: Uuid) -> Result<(), StoreError> {
    diesel::delete(seeks::table.filter(seeks::account_id.eq(account.to_string()))).execute(conn)?;
    Ok(())
}
