//! Sessions: one row per signed-in device, holding the hash of its current refresh token.
//!
//! Ending a session (one revoked, one found reused, the ones dropped past the per-account
//! bound, all of them when the account signs out everywhere) changes what a token check reads:
//! like a change of the token generation it is announced inside its transaction, and this
//! process forgets the account's cached check and wakes its streams (see `signed_in`).
//! Opening or refreshing one needs no announcement: a check that does not find its session in
//! the cache reads the database again.

use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::prelude::*;
use uuid::Uuid;

use super::conn::AnyConnection;
use super::rows::{utc, uuid, AccountRow};
use super::schema::{accounts, sessions};
use super::{Account, Committed, News, Store, StoreError};

/// A session to open. The id comes from the caller, as the refresh token embeds it.
#[derive(Clone, Debug)]
pub struct NewSession {
    pub id: Uuid,
    pub account: Uuid,
    /// The SHA-256 (hex) of the first refresh token.
    pub refresh_hash: String,
    pub user_agent: Option<String>,
    /// Already coarsened by the caller.
    pub client_address: Option<String>,
    pub expires_at: DateTime<Utc>,
}

/// A session as stored (without its refresh token's hash).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionRecord {
    pub id: Uuid,
    pub account: Uuid,
    pub created_at: DateTime<Utc>,
    pub last_used_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub user_agent: Option<String>,
    pub client_address: Option<String>,
}

/// What presenting a refresh token came to.
#[derive(Debug)]
pub enum Refreshed {
    /// It was the session's current token: now spent, replaced by the new one.
    Rotated {
        account: Account,
        session: SessionRecord,
    },
    /// It was the token spent by the last rotation, presented again within the grace window
    /// (that rotation's answer was lost on its way): replaced by the new one all the same.
    /// The token that rotation issued is spent unseen; the window does not move.
    RotatedAgain {
        account: Account,
        session: SessionRecord,
    },
    /// It was spent already: the session has been ended, so whoever holds its newer token
    /// is signed out too.
    Reused { account: Uuid },
    /// No such session, or it expired (then it has been deleted).
    Unknown,
}

/// A live session as a token check needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LiveSession {
    pub id: Uuid,
    pub expires_at: DateTime<Utc>,
}

/// What a token check reads: the account and its sessions that had not expired at the read.
#[derive(Clone, Debug)]
pub struct SignedInAccount {
    pub account: Account,
    pub sessions: Vec<LiveSession>,
}

impl SignedInAccount {
    /// True when `session` is one of the account's and has not expired by `now`.
    pub fn has_session(&self, session: Uuid, now: DateTime<Utc>) -> bool {
        self.sessions
            .iter()
            .any(|s| s.id == session && s.expires_at > now)
    }
}

#[derive(Queryable, Insertable)]
#[diesel(table_name = sessions)]
struct SessionRow {
    id: String,
    account_id: String,
    refresh_hash: String,
    created_at: NaiveDateTime,
    last_used_at: NaiveDateTime,
    expires_at: NaiveDateTime,
    user_agent: Option<String>,
    client_address: Option<String>,
    previous_hash: Option<String>,
    rotated_at: Option<NaiveDateTime>,
}

impl SessionRow {
    fn into_record(self) -> Result<SessionRecord, StoreError> {
        Ok(SessionRecord {
            id: uuid("session id", &self.id)?,
            account: uuid("session account", &self.account_id)?,
            created_at: utc(self.created_at),
            last_used_at: utc(self.last_used_at),
            expires_at: utc(self.expires_at),
            user_agent: self.user_agent,
            client_address: self.client_address,
        })
    }
}

/// The store's clock (game time, see [`Store::now`]) cut to what both backends keep.
fn naive(t: DateTime<Utc>) -> NaiveDateTime {
    DateTime::from_timestamp_micros(t.timestamp_micros())
        .unwrap_or(t)
        .naive_utc()
}

impl Store {
    /// Opens a session. The account's expired sessions are deleted, and past `limit` live
    /// ones the sessions unused longest are ended.
    pub fn open_session(
        &self,
        new: &NewSession,
        limit: usize,
    ) -> Result<Committed<SessionRecord>, StoreError> {
        let now = naive(self.now());
        let account = new.account.to_string();
        let row = SessionRow {
            id: new.id.to_string(),
            account_id: account.clone(),
            refresh_hash: new.refresh_hash.clone(),
            created_at: now,
            last_used_at: now,
            expires_at: naive(new.expires_at),
            user_agent: new.user_agent.clone(),
            client_address: new.client_address.clone(),
            previous_hash: None,
            rotated_at: None,
        };
        let dropped = self.write(|conn| {
            diesel::delete(
                sessions::table
                    .filter(sessions::account_id.eq(&account))
                    .filter(sessions::expires_at.le(now)),
            )
            .execute(conn)?;
            diesel::insert_into(sessions::table)
                .values(&row)
                .execute(conn)?;
            // At most `limit` + 1 rows: loaded whole, the newest kept.
            let others: Vec<String> = sessions::table
                .filter(sessions::account_id.eq(&account))
                .filter(sessions::id.ne(&row.id))
                .order((sessions::last_used_at.desc(), sessions::id.desc()))
                .select(sessions::id)
                .load(conn)?;
            let surplus: Vec<&String> = others.iter().skip(limit.saturating_sub(1)).collect();
            if surplus.is_empty() {
                return Ok(false);
            }
            diesel::delete(sessions::table.filter(sessions::id.eq_any(surplus))).execute(conn)?;
            super::wake::announce_account_change(conn, new.account)?;
            Ok::<_, StoreError>(true)
        })?;
        // This process's cached check lacks the new session; a dropped one must stop at once.
        self.signed_in.forget(new.account);
        let news = match dropped {
            true => News::sessions_of(new.account),
            false => News::default(),
        };
        Ok(Committed::new(row.into_record()?, news))
    }

    /// Presents the refresh token whose hash is `presented` for session `id`: when it is the
    /// current one it is replaced by `next`, and the session is used now and lives until
    /// `expires_at`; so it is when it is the one the last rotation spent, up to `grace` after
    /// that rotation; any other spent one ends the session (see [`Refreshed`]). Two
    /// refreshes racing with one token: one rotates, the other finds it spent (or, within
    /// the grace window, rotates again).
    pub fn refresh_session(
        &self,
        id: Uuid,
        (presented, next): (&str, &str),
        expires_at: DateTime<Utc>,
        grace: std::time::Duration,
    ) -> Result<Committed<Refreshed>, StoreError> {
        let now = naive(self.now());
        let window_opened = chrono::Duration::from_std(grace)
            .ok()
            .and_then(|g| now.checked_sub_signed(g))
            .unwrap_or(now);
        let key = id.to_string();
        let outcome = self.write(|conn| {
            let Some(row) = sessions::table
                .find(&key)
                .first::<SessionRow>(conn)
                .optional()?
            else {
                return Ok(Refreshed::Unknown);
            };
            if row.expires_at <= now {
                diesel::delete(sessions::table.find(&key)).execute(conn)?;
                return Ok(Refreshed::Unknown);
            }
            // The compare-and-set on the hash: of two racing refreshes only one rotates.
            let rotated = diesel::update(
                sessions::table
                    .find(&key)
                    .filter(sessions::refresh_hash.eq(presented)),
            )
            .set((
                sessions::refresh_hash.eq(next),
                sessions::previous_hash.eq(presented),
                sessions::rotated_at.eq(now),
                sessions::last_used_at.eq(now),
                sessions::expires_at.eq(naive(expires_at)),
            ))
            .execute(conn)?;
            // Not the current token: the one spent last, within the window, rotates again
            // (the window still counted from that rotation).
            let again = rotated == 0
                && diesel::update(
                    sessions::table
                        .find(&key)
                        .filter(sessions::previous_hash.eq(presented))
                        .filter(sessions::rotated_at.gt(window_opened)),
                )
                .set((
                    sessions::refresh_hash.eq(next),
                    sessions::last_used_at.eq(now),
                    sessions::expires_at.eq(naive(expires_at)),
                ))
                .execute(conn)?
                    > 0;
            let account_id = uuid("session account", &row.account_id)?;
            if rotated == 0 && !again {
                diesel::delete(sessions::table.find(&key)).execute(conn)?;
                super::wake::announce_account_change(conn, account_id)?;
                return Ok(Refreshed::Reused {
                    account: account_id,
                });
            }
            let account = accounts::table
                .find(&row.account_id)
                .first::<AccountRow>(conn)?
                .into_record()?;
            let session = sessions::table
                .find(&key)
                .first::<SessionRow>(conn)?
                .into_record()?;
            Ok::<_, StoreError>(if again {
                Refreshed::RotatedAgain { account, session }
            } else {
                Refreshed::Rotated { account, session }
            })
        })?;
        let mut news = News::default();
        if let Refreshed::Reused { account } = outcome {
            self.signed_in.forget(account);
            news = News::sessions_of(account);
        }
        Ok(Committed::new(outcome, news))
    }

    /// The account's live sessions, the most recently used first.
    pub fn sessions(&self, account: Uuid) -> Result<Vec<SessionRecord>, StoreError> {
        let now = naive(self.now());
        let rows = self.read(|conn| {
            Ok(sessions::table
                .filter(sessions::account_id.eq(account.to_string()))
                .filter(sessions::expires_at.gt(now))
                .order((sessions::last_used_at.desc(), sessions::id.desc()))
                .load::<SessionRow>(conn)?)
        })?;
        rows.into_iter().map(SessionRow::into_record).collect()
    }

    /// Ends the account's session `id`: its refresh token and access tokens stop working.
    /// NotFound when the account has no such session.
    pub fn end_session(&self, account: Uuid, id: Uuid) -> Result<Committed<()>, StoreError> {
        let ended = self.write(|conn| {
            let n = diesel::delete(
                sessions::table
                    .find(id.to_string())
                    .filter(sessions::account_id.eq(account.to_string())),
            )
            .execute(conn)?;
            if n > 0 {
                super::wake::announce_account_change(conn, account)?;
            }
            Ok::<_, StoreError>(n)
        })?;
        if ended == 0 {
            return Err(StoreError::NotFound);
        }
        self.signed_in.forget(account);
        Ok(Committed::new((), News::sessions_of(account)))
    }

    /// Deletes at most `batch` sessions that expired before now; returns how many. Nobody can
    /// use them any more: this only keeps the table small.
    pub fn delete_expired_sessions(&self, batch: i64) -> Result<usize, StoreError> {
        let now = naive(self.now());
        self.write(|conn| {
            let ids: Vec<String> = sessions::table
                .filter(sessions::expires_at.le(now))
                .order(sessions::expires_at.asc())
                .select(sessions::id)
                .limit(batch.max(0))
                .load(conn)?;
            Ok(diesel::delete(sessions::table.filter(sessions::id.eq_any(ids))).execute(conn)?)
        })
    }

    /// The account and its live sessions, in one statement.
    pub(super) fn signed_in_account(
        &self,
        id: Uuid,
    ) -> Result<Option<SignedInAccount>, StoreError> {
        let now = naive(self.now());
        let rows = self.read(|conn| {
            Ok(accounts::table
                .left_join(
                    sessions::table.on(sessions::account_id
                        .eq(accounts::id)
                        .and(sessions::expires_at.gt(now))),
                )
                .filter(accounts::id.eq(id.to_string()))
                .select((
                    accounts::all_columns,
                    (sessions::id, sessions::expires_at).nullable(),
                ))
                .load::<(AccountRow, Option<(String, NaiveDateTime)>)>(conn)?)
        })?;
        let mut rows = rows.into_iter();
        let Some((account, first)) = rows.next() else {
            return Ok(None);
        };
        let sessions = first
            .into_iter()
            .chain(rows.filter_map(|(_, s)| s))
            .map(|(id, expires_at)| {
                Ok(LiveSession {
                    id: uuid("session id", &id)?,
                    expires_at: utc(expires_at),
                })
            })
            .collect::<Result<_, StoreError>>()?;
        Ok(Some(SignedInAccount {
            account: account.into_record()?,
            sessions,
        }))
    }
}

/// Ends every session of the account, inside the caller's transaction (which announces).
pub(super) fn end_all_sessions(conn: &mut AnyConnection, account: Uuid) -> Result<(), StoreError> {
    diesel::delete(sessions::table.filter(sessions::account_id.eq(account.to_string())))
        .execute(conn)?;
    Ok(())
}
