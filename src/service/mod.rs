//! The game service: lobby, play, the event log and idempotent retries, pure of HTTP.
//!
//! Every change of a game goes through `Store::update_game`, one transaction with a
//! compare-and-set on the game's version; the rules crate decides, this layer records. Errors
//! are `ApiError`s so that the HTTP layer only maps them. Functions here block (the store is
//! synchronous): call them from `web::block`.

pub mod events;
pub mod idempotency;
pub mod lists;
pub mod lobby;
pub mod log;
pub mod play;
mod random;
mod round;
pub mod view;

pub use idempotency::{IdempotencyKey, Reply};
pub use log::LogEvent;
pub use view::{GameSummary, GameView, PlayerView, PublicStatus};

use racko_rules::{Seat, Viewer};
use uuid::Uuid;

use crate::error::ApiError;
use crate::store::{GameRecord, StoreError};

/// The signed-in account making a request.
#[derive(Clone, Debug)]
pub struct Caller {
    pub id: Uuid,
    pub username: String,
}

/// The caller's seat at this table, if any.
pub(crate) fn seat_of(game: &GameRecord, account: Uuid) -> Option<Seat> {
    game.seats
        .iter()
        .find(|seat| seat.account_id == account)
        .map(|seat| seat.seat)
}

/// Who `account` is for the R8 projections: a finished game is public to all (R8.2), a seated
/// player sees his own seat, anyone else what spectators see.
pub(crate) fn viewer_of(game: &GameRecord, account: Uuid) -> Viewer {
    if game.state.is_over() {
        return Viewer::Everyone;
    }
    match seat_of(game, account) {
        Some(seat) => Viewer::Seat { seat },
        None => Viewer::Spectator,
    }
}

/// 404 `game_not_found` for an unknown game; other store errors as they are.
pub(crate) fn game_error(e: StoreError) -> ApiError {
    match e {
        StoreError::NotFound => game_not_found(),
        other => other.into(),
    }
}

pub(crate) fn game_not_found() -> ApiError {
    ApiError::not_found("game_not_found", "there is no game with this id")
}

/// Loads a game or answers 404 `game_not_found`.
pub(crate) fn load_game(store: &crate::store::Store, id: Uuid) -> Result<GameRecord, ApiError> {
    store
        .game(id)
        .map_err(game_error)?
        .ok_or_else(game_not_found)
}
