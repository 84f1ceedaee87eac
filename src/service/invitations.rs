//! Invitations: the accounts a game's creator names, who see the game and may join it
//! whatever its visibility (`access`). Each is told with an `invited` feed item written with
//! the invitation. While the game is open the creator may add more, bounded by
//! [`access::MAX_INVITED`] invitations not yet taken up, or withdraw one not taken up (the
//! account then loses what the invitation gave it). An account leaving for good is taken off
//! every list. Nobody invites an account it may not reach (`blocks`).

use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::ToSchema;
use uuid::Uuid;

use super::access;
use super::view::GameView;
use super::{blocks, cancelled, game_error, seat_of, Caller, Service};
use crate::error::{Code, ServiceError};
use crate::store::GameStatus;
use crate::store::{
    GameQuery, GameRecord, Invitee, NewFeedItem, NewGame, SeatRecord, Store, StoreError,
    UpdateError,
};

/// Accounts to invite to a game.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({ "usernames": ["bob"] }))]
pub struct Invitations {
    /// Usernames (case does not matter). Accounts already invited or seated are left as they
    /// are; the game holds at most 6 invitations not yet taken up.
    #[schema(min_items = 1, max_items = 6)]
    pub usernames: Vec<String>,
}

/// The `invited` feed items telling `invitees` of their invitation to the game seated as
/// `seats`, by `by` (its creator).
fn invited_items(seats: &[SeatRecord], invitees: &[Invitee], by: &str) -> Vec<NewFeedItem> {
    let table: Vec<_> = seats
        .iter()
        .map(|s| json!({ "seat": s.seat, "username": s.username }))
        .collect();
    invitees
        .iter()
        .filter(|i| super::computer::level_of(i.account_id).is_none())
        .map(|i| NewFeedItem {
            account_id: i.account_id,
            kind: "invited".to_string(),
            payload: json!({ "by": by, "seats": table }),
        })
        .collect()
}

/// The feed items of a new game's invitations (its creator sits at seat 0).
pub(crate) fn told(game: &NewGame) -> Vec<NewFeedItem> {
    let by = game
        .seats
        .iter()
        .find(|s| s.account_id == game.created_by)
        .map_or("", |s| s.username.as_str());
    invited_items(&game.seats, &game.access.invited, by)
}

/// 403 `blocked` when `caller` may not reach one of `invitees`.
pub(crate) fn check_reachable(
    store: &Store,
    caller: &Caller,
    invitees: &[Invitee],
) -> Result<(), ServiceError> {
    let shunned = blocks::Shunned::of(store, caller.id)?;
    match invitees.iter().find(|i| shunned.contains(i.account_id)) {
        Some(i) => Err(ServiceError::new(
            Code::Blocked,
            format!(
                "you cannot invite {}: one of you blocks the other",
                i.username
            ),
        )),
        None => Ok(()),
    }
}

/// The creator's check for changing invitations: only the creator, only while open.
fn check_creator_of_open(game: &GameRecord, caller: &Caller) -> Result<(), ServiceError> {
    if game.created_by != caller.id {
        return Err(match seat_of(game, caller.id) {
            Some(_) => ServiceError::new(Code::NotTheCreator, "only the game's creator invites"),
            None => access::no_seat(game, caller.id),
        });
    }
    match game.status {
        GameStatus::Open => Ok(()),
        GameStatus::Cancelled => Err(cancelled()),
        GameStatus::Active | GameStatus::Finished => Err(ServiceError::new(
            Code::GameStarted,
            "invitations are for a game that waits for players",
        )),
    }
}

fn map_update(e: UpdateError<ServiceError>) -> ServiceError {
    match e {
        UpdateError::Decide(e) => e,
        UpdateError::Store(e) => game_error(e),
    }
}

/// Invites more accounts to an open game: only its creator may, while it waits for players.
/// Answers the game as the creator sees it.
pub fn invite(
    store: &Service,
    caller: &Caller,
    id: Uuid,
    request: &Invitations,
) -> Result<GameView, ServiceError> {
    if request.usernames.is_empty() {
        return Err(ServiceError::new(
            Code::InvalidBody,
            "name at least one account to invite",
        ));
    }
    access::check_invitation_count(&request.usernames)?;
    let more = access::accounts_named(store, &request.usernames)?;
    check_reachable(store, caller, &more)?;
    let written = store
        .update_invited_telling(id, |game| {
            check_creator_of_open(game, caller)?;
            let all = access::with_invited(game, &more)?;
            let new: Vec<Invitee> = all
                .iter()
                .filter(|i| !access::is_invited(game, i.account_id))
                .cloned()
                .collect();
            Ok((all, invited_items(&game.seats, &new, &caller.username)))
        })
        .map_err(map_update)?;
    Ok(GameView::of(&store.after(written), caller.id))
}

/// Withdraws the invitation of `username` to open game `id` (its creator only), before the
/// account takes its seat: it then sees and joins the game as anyone else would. 404
/// `invitation_not_found` when the game does not invite it, 409 `invitee_seated` once seated.
pub fn uninvite(
    store: &Store,
    caller: &Caller,
    id: Uuid,
    username: &str,
) -> Result<GameView, ServiceError> {
    let written = store
        .update_invited(id, |game| {
            check_creator_of_open(game, caller)?;
            let name = username.trim().to_lowercase();
            let Some(invitee) = game
                .access
                .invited
                .iter()
                .find(|i| i.username.to_lowercase() == name)
            else {
                return Err(ServiceError::new(
                    Code::InvitationNotFound,
                    format!("the game does not invite {username}"),
                ));
            };
            if seat_of(game, invitee.account_id).is_some() {
                return Err(ServiceError::new(
                    Code::InviteeSeated,
                    format!("{} has taken a seat already", invitee.username),
                ));
            }
            let gone = invitee.account_id;
            let mut invited = game.access.invited.clone();
            invited.retain(|i| i.account_id != gone);
            Ok(invited)
        })
        .map_err(map_update)?;
    Ok(GameView::of(&written, caller.id))
}

/// Withdraws every invitation of `account` (an account leaving for good), so that no game
/// keeps its name in its list. Each game is changed under its lock as an invitation is.
pub fn withdraw(store: &Store, account: Uuid) -> Result<(), ServiceError> {
    let inviting = GameQuery {
        invited: Some(account),
        limit: 100,
        ..GameQuery::default()
    };
    // A game changed here no longer matches: the first page shrinks until it is empty.
    loop {
        let page = store.list_games(&inviting).map_err(game_error)?;
        if page.games.is_empty() {
            return Ok(());
        }
        for game in &page.games {
            let without = |game: &GameRecord| {
                let mut invited = game.access.invited.clone();
                invited.retain(|i| i.account_id != account);
                Ok::<_, ServiceError>(invited)
            };
            match store.update_invited(game.id, without) {
                Ok(_) | Err(UpdateError::Store(StoreError::NotFound)) => {}
                Err(UpdateError::Decide(e)) => return Err(e),
                Err(UpdateError::Store(e)) => return Err(e.into()),
            }
        }
    }
}
