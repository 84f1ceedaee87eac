//! Who may see, join and watch a game: its visibility, its spectators and its invitations.
//!
//! Players (seated accounts) and invited accounts always see the game. Anyone else sees
//!
//! | status | when |
//! |---|---|
//! | open, cancelled | the game is `public` (the lobby) |
//! | active | `spectators` is `anyone`, or `friends` and the account is a friend of a seated player |
//! | finished | the game is `public`, or as while active (auditors replay it) |
//!
//! and a game someone may not see answers exactly as a game that does not exist (404
//! `game_not_found`), on every path, so that its existence is not revealed.
//!
//! Joining: invited accounts always; anyone else only a `public` game, or an `unlisted` one
//! with its invite code. A `private` game takes invited accounts only. No account joins a
//! table where someone it blocks, or who blocks it, sits (`blocks`).
//!
//! A friend who watches is a spectator: every write answers it as a stranger (404).
//!
//! New games are `unlisted` with `spectators: nobody` unless the creator says otherwise:
//! games here are played by correspondence among people who know each other, and pass the
//! invite code (or a link holding it) along; a stranger should not take a seat meant for a
//! friend, nor read along. Games stored before these options existed read as `public` and
//! `anyone`, the behaviour they were created with.

use uuid::Uuid;

use super::{game_not_found, not_a_player, seat_of};
use crate::error::{Code, ServiceError};
use crate::store::{Access, GameRecord, GameStatus, Invitee, Spectators, Store, Visibility};

/// The most invitations a game holds that are not taken up yet: a table has at most three
/// seats besides the creator's, and twice that leaves room to invite someone else when an
/// invitee does not come (or withdraw one and invite another).
pub const MAX_INVITED: usize = 6;

/// The visibility of a new game when the creator names none.
pub const DEFAULT_VISIBILITY: Visibility = Visibility::Unlisted;
/// Who watches a new game when the creator does not say.
pub const DEFAULT_SPECTATORS: Spectators = Spectators::Nobody;

/// How an account asks to join.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JoinBy {
    Id,
    InviteCode,
}

pub(crate) fn is_invited(game: &GameRecord, account: Uuid) -> bool {
    game.access
        .invited
        .iter()
        .any(|invitee| invitee.account_id == account)
}

/// A seated player or an invited account.
fn is_member(game: &GameRecord, account: Uuid) -> bool {
    seat_of(game, account).is_some() || is_invited(game, account)
}

/// Whether `account` may see the game at all (the table in the module docs).
pub(crate) fn may_see(game: &GameRecord, account: Uuid) -> bool {
    if is_member(game, account) {
        return true;
    }
    let Access {
        visibility,
        spectators,
        ..
    } = game.access;
    match game.status {
        GameStatus::Open | GameStatus::Cancelled => visibility == Visibility::Public,
        GameStatus::Active => spectators == Spectators::Anyone,
        GameStatus::Finished => {
            visibility == Visibility::Public || spectators == Spectators::Anyone
        }
    }
}

/// Whether the friends of the seated players watch the game now (which [`may_see`] cannot
/// tell: it knows no friends).
fn friends_watch(game: &GameRecord) -> bool {
    game.access.spectators == Spectators::Friends
        && matches!(game.status, GameStatus::Active | GameStatus::Finished)
}

/// [`may_see`], with the friends of the seated players where the game lets them watch: a
/// look-up only then.
pub(crate) fn sees(store: &Store, game: &GameRecord, account: Uuid) -> Result<bool, ServiceError> {
    if may_see(game, account) {
        return Ok(true);
    }
    if !friends_watch(game) {
        return Ok(false);
    }
    let seated: Vec<Uuid> = game.seats.iter().map(|seat| seat.account_id).collect();
    Ok(store.is_friend_of_any(account, &seated)?)
}

/// Whether `account` may take a seat (when one is free and the game open).
pub(crate) fn may_join(game: &GameRecord, account: Uuid, by: JoinBy) -> bool {
    is_invited(game, account)
        || match game.access.visibility {
            Visibility::Public => true,
            Visibility::Unlisted => by == JoinBy::InviteCode,
            Visibility::Private => false,
        }
}

/// 404 `game_not_found` when `account` may not see the game.
pub(crate) fn check_visible(
    store: &Store,
    game: &GameRecord,
    account: Uuid,
) -> Result<(), ServiceError> {
    if sees(store, game, account)? {
        Ok(())
    } else {
        Err(game_not_found())
    }
}

/// Loads a game `account` may see, or answers 404 `game_not_found` as for an unknown game.
pub(crate) fn load_visible(
    store: &Store,
    id: Uuid,
    account: Uuid,
) -> Result<GameRecord, ServiceError> {
    let game = super::load_game(store, id)?;
    check_visible(store, &game, account)?;
    Ok(game)
}

/// The refusal for an account without a seat: 403 `not_a_player` when it may see the game,
/// else 404 `game_not_found`, so that a hidden game stays hidden.
pub(crate) fn no_seat(game: &GameRecord, account: Uuid) -> ServiceError {
    if may_see(game, account) {
        not_a_player()
    } else {
        game_not_found()
    }
}

/// 422 `invalid_body` for a request naming more than [`MAX_INVITED`] accounts (the schema's
/// bound), before any look-up.
pub(crate) fn check_invitation_count(usernames: &[String]) -> Result<(), ServiceError> {
    if usernames.len() > MAX_INVITED {
        return Err(ServiceError::new(
            Code::InvalidBody,
            format!("name at most {MAX_INVITED} accounts to invite"),
        ));
    }
    Ok(())
}

fn too_many() -> ServiceError {
    ServiceError::new(
        Code::TooManyInvitations,
        format!("a game invites at most {MAX_INVITED} accounts"),
    )
}

/// The accounts named by `usernames` (case does not matter), looked up before any game is
/// locked. 404 `player_not_found` for a name no account has.
pub(crate) fn accounts_named(
    store: &Store,
    usernames: &[String],
) -> Result<Vec<Invitee>, ServiceError> {
    usernames
        .iter()
        .map(|name| {
            let account = store.account_by_username(name)?.ok_or_else(|| {
                ServiceError::new(Code::PlayerNotFound, format!("no account is named {name}"))
            })?;
            Ok(Invitee {
                account_id: account.id,
                username: account.username,
            })
        })
        .collect()
}

/// `game`'s invitations with `more` added; accounts already invited or seated are left as
/// they are. 409 `too_many_invitations` past [`MAX_INVITED`] not taken up (an invitee who
/// took its seat no longer counts: the table bounds those).
pub(crate) fn with_invited(
    game: &GameRecord,
    more: &[Invitee],
) -> Result<Vec<Invitee>, ServiceError> {
    let mut all = game.access.invited.clone();
    for invitee in more {
        let seated = seat_of(game, invitee.account_id).is_some();
        if seated || all.iter().any(|i| i.account_id == invitee.account_id) {
            continue;
        }
        all.push(invitee.clone());
    }
    let live = all
        .iter()
        .filter(|i| seat_of(game, i.account_id).is_none())
        .count();
    if live > MAX_INVITED {
        return Err(too_many());
    }
    Ok(all)
}
