//! Leaving for good: the account's games, before its name is erased
//! (`accounts::delete_account`). Every change goes through the game's one write path, as
//! the player's own request would: resigning an active game (R10.3), leaving an open one
//! (the creator leaving cancels it). Its webhook endpoints and push devices go too: nobody is
//! left to receive; its open seeks are cancelled, so that it is paired no more.

use racko_rules::RulesCode;
use uuid::Uuid;

use super::lobby;
use super::play;
use super::write::Expect;
use super::{Caller, Service};
use crate::error::{Code, ServiceError};
use crate::store::{GameQuery, GameStatus, StoreError};

/// Resigns every active game of the caller, leaves every open one and deletes its webhook
/// endpoints (with their pending deliveries).
pub fn leave_all_games(store: &Service, caller: &Caller) -> Result<(), ServiceError> {
    // Seeks first: a pairing that took one before it is cancelled has committed its game by
    // then (the cancel waits for the seek's row), so the game is among those resigned below.
    store.cancel_seeks_of(caller.id, store.now())?;
    for endpoint in store.webhooks(caller.id)? {
        match store.delete_webhook(caller.id, endpoint.id) {
            Err(StoreError::NotFound) => {}
            result => result?,
        }
    }
    for device in store.devices(caller.id)? {
        match store.delete_device(caller.id, device.id) {
            Err(StoreError::NotFound) => {}
            result => result?,
        }
    }
    super::invitations::withdraw(store, caller.id)?;
    for id in games_of(store, caller.id, GameStatus::Active)? {
        resign(store, caller, id)?;
    }
    for id in games_of(store, caller.id, GameStatus::Open)? {
        match lobby::leave(store, caller, id, None) {
            // It started since it was listed: resign it instead.
            Err(e) if e.code == Code::GameStarted => resign(store, caller, id)?,
            Err(e) if gone(e.code) => {}
            result => drop(result?),
        }
    }
    Ok(())
}

/// Resigns the caller's seat of game `id` as the game is now; nothing to do when the seat has
/// resigned already or the game has ended meanwhile.
fn resign(store: &Service, caller: &Caller, id: Uuid) -> Result<(), ServiceError> {
    match play::resign(store, caller, id, Expect::Latest, None) {
        Err(e) if gone(e.code) => Ok(()),
        result => result.map(drop),
    }
}

/// The refusals that mean the caller's seat needs nothing more.
fn gone(code: Code) -> bool {
    matches!(
        code,
        Code::SeatResigned
            | Code::Rules(RulesCode::AlreadyResigned | RulesCode::GameOver)
            | Code::GameCancelled
            | Code::NotAPlayer
            | Code::GameNotFound
    )
}

/// The ids of the account's games in `status`, all pages, read before any is changed.
pub(super) fn games_of(
    store: &Service,
    account: Uuid,
    status: GameStatus,
) -> Result<Vec<Uuid>, ServiceError> {
    let mut ids = Vec::new();
    let mut cursor = None;
    loop {
        let page = store.list_games(&GameQuery {
            player: Some(account),
            status: Some(status),
            awaiting_player: false,
            limit: 100,
            cursor,
            ..GameQuery::default()
        })?;
        ids.extend(page.games.iter().map(|g| g.id));
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => return Ok(ids),
        }
    }
}
