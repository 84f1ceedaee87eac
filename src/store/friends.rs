//! Friends and blocks between accounts. A pair of accounts has at most one friendship row (a
//! request until accepted) and a block row per direction. Every change runs in one
//! transaction that first locks both accounts' rows (PostgreSQL; SQLite has one writer), so
//! the checks and bounds below hold against concurrent requests of either side.

use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::prelude::*;
use uuid::Uuid;

use super::conn::AnyConnection;
use super::schema::{accounts, blocks, friendships};
use super::{Store, StoreError};

/// How many relations an account may hold (the service's bounds, passed down).
#[derive(Clone, Copy, Debug)]
pub struct FriendLimits {
    pub friends: i64,
    /// Requests an account has sent and that wait for an answer.
    pub outgoing: i64,
    /// Requests waiting for an account's answer.
    pub incoming: i64,
    pub blocks: i64,
}

/// What asking `them` to be friends came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Befriended {
    /// A request now waits for their answer.
    Requested,
    /// They had asked already: now friends.
    Accepted,
    AlreadyFriends,
    AlreadyRequested,
    /// One of the two blocks the other.
    Blocked,
    /// A bound would be passed; which one.
    Full(Bound),
}

/// The bound a change would pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    MyFriends,
    TheirFriends,
    MyRequests,
    TheirRequests,
    MyBlocks,
}

/// What accepting a request came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Accepted {
    Accepted,
    /// There is no request from them.
    NoRequest,
    Full(Bound),
}

/// Which row a removal is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unfriend {
    /// A friendship (accepted).
    Friendship,
    /// A request either way: declined when theirs, withdrawn when mine.
    Request,
}

/// Another account in a list, with the time the relation began.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Related {
    pub account: Uuid,
    pub username: String,
    pub since: DateTime<Utc>,
}

/// An account's friends and the requests either way, each list by username.
#[derive(Clone, Debug, Default)]
pub struct Circle {
    pub friends: Vec<Related>,
    pub incoming: Vec<Related>,
    pub outgoing: Vec<Related>,
}

/// The friendship row's key: the smaller id first.
fn pair(a: Uuid, b: Uuid) -> (String, String) {
    let (a, b) = (a.to_string(), b.to_string());
    if a < b {
        (a, b)
    } else {
        (b, a)
    }
}

/// Locks both accounts' rows, in id order, so that two changes of one pair queue (and two
/// changes of crossing pairs do not deadlock). Nothing to do on SQLite: one writer at a time.
fn lock_accounts(conn: &mut AnyConnection, a: Uuid, b: Uuid) -> Result<(), StoreError> {
    if let AnyConnection::Pg(pg) = conn {
        let (low, high) = pair(a, b);
        accounts::table
            .filter(accounts::id.eq_any([low, high]))
            .order(accounts::id)
            .select(accounts::id)
            .for_update()
            .load::<String>(pg)?;
    }
    Ok(())
}

fn blocked_either(conn: &mut AnyConnection, a: Uuid, b: Uuid) -> Result<bool, StoreError> {
    let (a, b) = (a.to_string(), b.to_string());
    let n: i64 = blocks::table
        .filter(
            (blocks::blocker_id.eq(&a).and(blocks::blocked_id.eq(&b)))
                .or(blocks::blocker_id.eq(&b).and(blocks::blocked_id.eq(&a))),
        )
        .count()
        .get_result(conn)?;
    Ok(n > 0)
}

/// The account's accepted friendships.
fn friend_count(conn: &mut AnyConnection, account: Uuid) -> Result<i64, StoreError> {
    let id = account.to_string();
    Ok(friendships::table
        .filter(friendships::low_id.eq(&id).or(friendships::high_id.eq(&id)))
        .filter(friendships::accepted_at.is_not_null())
        .count()
        .get_result(conn)?)
}

/// Requests waiting: sent by the account (`sent`), or sent to it.
fn request_count(conn: &mut AnyConnection, account: Uuid, sent: bool) -> Result<i64, StoreError> {
    let id = account.to_string();
    let waiting = friendships::table
        .filter(friendships::low_id.eq(&id).or(friendships::high_id.eq(&id)))
        .filter(friendships::accepted_at.is_null());
    Ok(if sent {
        waiting
            .filter(friendships::requested_by.eq(&id))
            .count()
            .get_result(conn)?
    } else {
        waiting
            .filter(friendships::requested_by.ne(&id))
            .count()
            .get_result(conn)?
    })
}

/// The pair's row: who asked, and whether it is accepted.
fn row_of(
    conn: &mut AnyConnection,
    a: Uuid,
    b: Uuid,
) -> Result<Option<(String, Option<NaiveDateTime>)>, StoreError> {
    let (low, high) = pair(a, b);
    Ok(friendships::table
        .find((low, high))
        .select((friendships::requested_by, friendships::accepted_at))
        .first(conn)
        .optional()?)
}

/// The bound on friends that accepting would pass, if any.
fn friends_full(
    conn: &mut AnyConnection,
    me: Uuid,
    them: Uuid,
    limits: FriendLimits,
) -> Result<Option<Bound>, StoreError> {
    if friend_count(conn, me)? >= limits.friends {
        return Ok(Some(Bound::MyFriends));
    }
    if friend_count(conn, them)? >= limits.friends {
        return Ok(Some(Bound::TheirFriends));
    }
    Ok(None)
}

fn accept_row(
    conn: &mut AnyConnection,
    me: Uuid,
    them: Uuid,
    at: NaiveDateTime,
) -> QueryResult<usize> {
    let (low, high) = pair(me, them);
    diesel::update(friendships::table.find((low, high)))
        .set(friendships::accepted_at.eq(Some(at)))
        .execute(conn)
}

fn naive(t: DateTime<Utc>) -> NaiveDateTime {
    DateTime::from_timestamp_micros(t.timestamp_micros())
        .unwrap_or(t)
        .naive_utc()
}

impl Store {
    /// `me` asks `them` to be friends (see [`Befriended`]).
    pub fn befriend(
        &self,
        me: Uuid,
        them: Uuid,
        limits: FriendLimits,
    ) -> Result<Befriended, StoreError> {
        let at = naive(self.now());
        self.write(|conn| {
            lock_accounts(conn, me, them)?;
            if blocked_either(conn, me, them)? {
                return Ok(Befriended::Blocked);
            }
            match row_of(conn, me, them)? {
                Some((_, Some(_))) => return Ok(Befriended::AlreadyFriends),
                Some((by, None)) if by == me.to_string() => {
                    return Ok(Befriended::AlreadyRequested)
                }
                Some((_, None)) => {
                    // They asked first: asking back is accepting.
                    if let Some(bound) = friends_full(conn, me, them, limits)? {
                        return Ok(Befriended::Full(bound));
                    }
                    accept_row(conn, me, them, at)?;
                    return Ok(Befriended::Accepted);
                }
                None => {}
            }
            if request_count(conn, me, true)? >= limits.outgoing {
                return Ok(Befriended::Full(Bound::MyRequests));
            }
            if request_count(conn, them, false)? >= limits.incoming {
                return Ok(Befriended::Full(Bound::TheirRequests));
            }
            let (low, high) = pair(me, them);
            diesel::insert_into(friendships::table)
                .values((
                    friendships::low_id.eq(low),
                    friendships::high_id.eq(high),
                    friendships::requested_by.eq(me.to_string()),
                    friendships::created_at.eq(at),
                    friendships::accepted_at.eq(None::<NaiveDateTime>),
                ))
                .execute(conn)?;
            Ok::<_, StoreError>(Befriended::Requested)
        })
    }

    /// `me` accepts the request of `them`.
    pub fn accept_friend(
        &self,
        me: Uuid,
        them: Uuid,
        limits: FriendLimits,
    ) -> Result<Accepted, StoreError> {
        let at = naive(self.now());
        self.write(|conn| {
            lock_accounts(conn, me, them)?;
            match row_of(conn, me, them)? {
                Some((by, None)) if by == them.to_string() => {}
                _ => return Ok(Accepted::NoRequest),
            }
            if let Some(bound) = friends_full(conn, me, them, limits)? {
                return Ok(Accepted::Full(bound));
            }
            accept_row(conn, me, them, at)?;
            Ok::<_, StoreError>(Accepted::Accepted)
        })
    }

    /// Ends the pair's friendship, or its request (see [`Unfriend`]); false when there was
    /// none such.
    pub fn unfriend(&self, me: Uuid, them: Uuid, which: Unfriend) -> Result<bool, StoreError> {
        let (low, high) = pair(me, them);
        self.write(|conn| {
            let row = friendships::table.find((low, high));
            let n = match which {
                Unfriend::Friendship => {
                    diesel::delete(row.filter(friendships::accepted_at.is_not_null()))
                        .execute(conn)?
                }
                Unfriend::Request => {
                    diesel::delete(row.filter(friendships::accepted_at.is_null())).execute(conn)?
                }
            };
            Ok::<_, StoreError>(n > 0)
        })
    }

    /// `me` blocks `them`: their friendship or request ends in the same transaction. Ok(None)
    /// when it is new or was there already; Ok(Some(bound)) when `me` blocks too many.
    pub fn block(
        &self,
        me: Uuid,
        them: Uuid,
        limits: FriendLimits,
    ) -> Result<Option<Bound>, StoreError> {
        let at = naive(self.now());
        let (me_id, them_id) = (me.to_string(), them.to_string());
        self.write(|conn| {
            lock_accounts(conn, me, them)?;
            let (low, high) = pair(me, them);
            diesel::delete(friendships::table.find((low, high))).execute(conn)?;
            let there: i64 = blocks::table
                .find((&me_id, &them_id))
                .count()
                .get_result(conn)?;
            if there > 0 {
                return Ok(None);
            }
            let mine: i64 = blocks::table
                .filter(blocks::blocker_id.eq(&me_id))
                .count()
                .get_result(conn)?;
            if mine >= limits.blocks {
                return Ok(Some(Bound::MyBlocks));
            }
            diesel::insert_into(blocks::table)
                .values((
                    blocks::blocker_id.eq(&me_id),
                    blocks::blocked_id.eq(&them_id),
                    blocks::created_at.eq(at),
                ))
                .execute(conn)?;
            Ok::<_, StoreError>(None)
        })
    }

    /// Lifts `me`'s block of `them`; false when there was none.
    pub fn unblock(&self, me: Uuid, them: Uuid) -> Result<bool, StoreError> {
        let key = (me.to_string(), them.to_string());
        self.write(|conn| {
            Ok::<_, StoreError>(diesel::delete(blocks::table.find(key)).execute(conn)? > 0)
        })
    }
}

/// Deletes every friendship, request and block the account is part of, inside the caller's
/// transaction (an account leaving for good).
pub(super) fn forget_account(conn: &mut AnyConnection, account: Uuid) -> Result<(), StoreError> {
    let id = account.to_string();
    diesel::delete(
        friendships::table.filter(friendships::low_id.eq(&id).or(friendships::high_id.eq(&id))),
    )
    .execute(conn)?;
    diesel::delete(blocks::table.filter(blocks::blocker_id.eq(&id).or(blocks::blocked_id.eq(&id))))
        .execute(conn)?;
    Ok(())
}
