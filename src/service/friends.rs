//! Friends by username, with acceptance: one account asks, the other accepts or declines;
//! either ends a friendship. Friends may watch each other's games that let the players'
//! friends watch (`access`). Blocking (`blocks`) ends a friendship and keeps the two apart.
//!
//! Every list is bounded: [`MAX_FRIENDS`] friends, [`MAX_SENT`] requests sent and waiting,
//! [`MAX_RECEIVED`] received and waiting, [`MAX_BLOCKS`] blocked accounts.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use super::Caller;
use crate::error::{Code, ServiceError};
use crate::store::{Accepted, Befriended, Bound, FriendLimits, Related, Store, Unfriend};

pub const MAX_FRIENDS: usize = 200;
pub const MAX_SENT: usize = 50;
pub const MAX_RECEIVED: usize = 100;
pub const MAX_BLOCKS: usize = 500;
/// The longest name looked up (the schema's `maxLength`); usernames are shorter still.
const MAX_NAME: usize = 64;

const LIMITS: FriendLimits = FriendLimits {
    friends: MAX_FRIENDS as i64,
    outgoing: MAX_SENT as i64,
    incoming: MAX_RECEIVED as i64,
    blocks: MAX_BLOCKS as i64,
};

/// The account a friend request or a block names.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({ "username": "bob" }))]
pub struct Username {
    /// The other account's username (case does not matter).
    #[schema(min_length = 1, max_length = 64)]
    pub username: String,
}

/// Another account in one of the caller's lists.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct Person {
    pub username: String,
    /// When the friendship was accepted, the request sent or the block made.
    pub since: DateTime<Utc>,
}

impl From<Related> for Person {
    fn from(r: Related) -> Person {
        Person {
            username: r.username,
            since: r.since,
        }
    }
}

/// The caller's friends and the requests waiting either way, each by username.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct Friends {
    #[schema(max_items = 200)]
    pub friends: Vec<Person>,
    /// Requests to the caller, waiting for its answer.
    #[schema(max_items = 100)]
    pub incoming: Vec<Person>,
    /// The caller's requests, waiting for the other's answer.
    #[schema(max_items = 50)]
    pub outgoing: Vec<Person>,
}

/// The accounts the caller blocks, by username.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct Blocks {
    #[schema(max_items = 500)]
    pub blocked: Vec<Person>,
}

/// What a friend request came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Friendship {
    /// The request waits for the other's answer.
    Requested,
    /// The other had asked the caller already: they are friends now.
    Friends,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct FriendRequestAnswer {
    pub username: String,
    pub status: Friendship,
}

/// The other account, by username; 404 `player_not_found` for none (or one leaving for good),
/// 422 `own_account` for the caller's own.
fn other(store: &Store, caller: &Caller, username: &str) -> Result<(Uuid, String), ServiceError> {
    if username.chars().count() > MAX_NAME {
        return Err(ServiceError::new(
            Code::InvalidBody,
            format!("a username has at most {MAX_NAME} characters"),
        ));
    }
    let account = store.account_by_username(username.trim())?.ok_or_else(|| {
        ServiceError::new(
            Code::PlayerNotFound,
            format!("no account is named {username}"),
        )
    })?;
    if account.id == caller.id {
        return Err(ServiceError::new(
            Code::OwnAccount,
            "that is your own account",
        ));
    }
    Ok((account.id, account.username))
}

fn full(bound: Bound) -> ServiceError {
    let (code, detail) = match bound {
        Bound::MyFriends => (
            Code::TooManyFriends,
            format!("you have {MAX_FRIENDS} friends, as many as allowed"),
        ),
        Bound::TheirFriends => (
            Code::TooManyFriends,
            format!("they have {MAX_FRIENDS} friends, as many as allowed"),
        ),
        Bound::MyRequests => (
            Code::TooManyFriendRequests,
            format!("{MAX_SENT} of your requests wait for an answer already"),
        ),
        Bound::TheirRequests => (
            Code::TooManyFriendRequests,
            format!("{MAX_RECEIVED} requests wait for their answer already"),
        ),
        Bound::MyBlocks => (
            Code::TooManyBlocks,
            format!("you block {MAX_BLOCKS} accounts, as many as allowed"),
        ),
    };
    ServiceError::new(code, detail)
}

/// Asks `username` to be friends; when they had asked the caller, that is accepting.
pub fn request(
    store: &Store,
    caller: &Caller,
    username: &str,
) -> Result<FriendRequestAnswer, ServiceError> {
    let (them, name) = other(store, caller, username)?;
    let status = match store.befriend(caller.id, them, LIMITS)? {
        Befriended::Requested => Friendship::Requested,
        Befriended::Accepted => Friendship::Friends,
        Befriended::AlreadyFriends => {
            return Err(ServiceError::new(
                Code::AlreadyFriends,
                "you are friends already",
            ))
        }
        Befriended::AlreadyRequested => {
            return Err(ServiceError::new(
                Code::FriendRequestExists,
                "your request waits for their answer",
            ))
        }
        Befriended::Blocked => return Err(super::blocks::blocked()),
        Befriended::Full(bound) => return Err(full(bound)),
    };
    Ok(FriendRequestAnswer {
        username: name,
        status,
    })
}

/// Accepts the request of `username`.
pub fn accept(store: &Store, caller: &Caller, username: &str) -> Result<(), ServiceError> {
    let (them, _) = other(store, caller, username)?;
    match store.accept_friend(caller.id, them, LIMITS)? {
        Accepted::Accepted => Ok(()),
        Accepted::NoRequest => Err(no_request()),
        Accepted::Full(bound) => Err(full(bound)),
    }
}

/// Declines the request of `username`, or withdraws the caller's request to `username`.
pub fn drop_request(store: &Store, caller: &Caller, username: &str) -> Result<(), ServiceError> {
    let (them, _) = other(store, caller, username)?;
    if store.unfriend(caller.id, them, Unfriend::Request)? {
        Ok(())
    } else {
        Err(no_request())
    }
}

/// Ends the friendship with `username`.
pub fn remove(store: &Store, caller: &Caller, username: &str) -> Result<(), ServiceError> {
    let (them, _) = other(store, caller, username)?;
    if store.unfriend(caller.id, them, Unfriend::Friendship)? {
        Ok(())
    } else {
        Err(ServiceError::new(
            Code::FriendNotFound,
            "you are not friends with this account",
        ))
    }
}

fn no_request() -> ServiceError {
    ServiceError::new(
        Code::FriendRequestNotFound,
        "no friend request waits between you and this account",
    )
}

pub fn list(store: &Store, caller: &Caller) -> Result<Friends, ServiceError> {
    let circle = store.circle(caller.id)?;
    let people = |list: Vec<Related>| list.into_iter().map(Person::from).collect();
    Ok(Friends {
        friends: people(circle.friends),
        incoming: people(circle.incoming),
        outgoing: people(circle.outgoing),
    })
}

/// Blocks `username` (repeatable): a friendship or request between the two ends.
pub fn block(store: &Store, caller: &Caller, username: &str) -> Result<Person, ServiceError> {
    let (them, name) = other(store, caller, username)?;
    if let Some(bound) = store.block(caller.id, them, LIMITS)? {
        return Err(full(bound));
    }
    let since = store
        .blocked_by(caller.id)?
        .into_iter()
        .find(|r| r.account == them)
        .map_or_else(|| store.now(), |r| r.since);
    Ok(Person {
        username: name,
        since,
    })
}

/// Lifts the block of `username`.
pub fn unblock(store: &Store, caller: &Caller, username: &str) -> Result<(), ServiceError> {
    let (them, _) = other(store, caller, username)?;
    if store.unblock(caller.id, them)? {
        Ok(())
    } else {
        Err(ServiceError::new(
            Code::BlockNotFound,
            "you do not block this account",
        ))
    }
}

pub fn blocks(store: &Store, caller: &Caller) -> Result<Blocks, ServiceError> {
    let blocked = store
        .blocked_by(caller.id)?
        .into_iter()
        .map(Person::from)
        .collect();
    Ok(Blocks { blocked })
}
