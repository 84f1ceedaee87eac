//! Invitations: the accounts a game's creator names, who see the game and may join it
//! whatever its visibility (`access`). The list only grows while the game is open, bounded by
//! [`access::MAX_INVITED`]; an account leaving for good is taken off every list.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use super::access;
use super::view::{GameView, PublicStatus};
use super::{cancelled, game_error, seat_of, Caller};
use crate::error::{Code, ServiceError};
use crate::store::{GameQuery, GameRecord, Store, StoreError, UpdateError};

/// Accounts to invite to a game.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({ "usernames": ["bob"] }))]
pub struct Invitations {
    /// Usernames (case does not matter). Accounts already invited or seated are left as they
    /// are; the game invites at most 6 in all.
    #[schema(min_items = 1, max_items = 6)]
    pub usernames: Vec<String>,
}

/// Invites more accounts to an open game: only its creator may, while it waits for players.
/// Answers the game as the creator sees it.
pub fn invite(
    store: &Store,
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
    let written = store
        .update_invited(id, |game| {
            if game.created_by != caller.id {
                return Err(match seat_of(game, caller.id) {
                    Some(_) => {
                        ServiceError::new(Code::NotTheCreator, "only the game's creator invites")
                    }
                    None => access::no_seat(game, caller.id),
                });
            }
            match PublicStatus::of(game) {
                PublicStatus::Open => {}
                PublicStatus::Cancelled => return Err(cancelled()),
                PublicStatus::Active | PublicStatus::Finished => {
                    return Err(ServiceError::new(
                        Code::GameStarted,
                        "invitations are for a game that waits for players",
                    ))
                }
            }
            access::with_invited(game, &more)
        })
        .map_err(|e| match e {
            UpdateError::Decide(e) => e,
            UpdateError::Store(e) => game_error(e),
        })?;
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
