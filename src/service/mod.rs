//! The game service: lobby, play, the event log and idempotent retries. It knows no HTTP:
//! handlers call one function here and map its result.
//!
//! Every change of a game goes through [`write::change_game`], the one write path (one store
//! transaction with a compare-and-set on the game's version); the rules crate decides, this
//! layer records. Errors are `ServiceError`s with a `Code`; the HTTP edge maps codes to
//! statuses. Functions here block (the store is synchronous): call them from `web::block`.

pub mod access;
pub mod accounts;
pub mod audit;
pub mod away;
pub mod blocks;
pub mod chat;
pub mod computer;
mod context;
pub mod devices;
pub mod due;
pub mod farewell;
pub mod feed;
pub mod feed_tails;
pub mod friends;
pub mod hint;
pub mod idempotency;
pub mod invitations;
mod kept_change;
pub mod leaderboard;
pub mod lists;
pub mod lobby;
pub mod log_event;
pub mod log_page;
mod paging;
pub mod play;
pub mod population;
mod random;
pub mod ratings;
pub mod rematch;
pub mod seek_pairing;
pub mod seeks;
pub mod sessions;
mod store_errors;
pub mod stream;
pub mod stream_chat;
pub mod sweep;
pub mod tails;
pub mod vacation;
pub mod view;
pub mod webhooks;
pub mod write;

pub use context::{Caches, Service};
pub use idempotency::{IdempotencyKey, Reply};
pub use log_event::LogEvent;
pub use view::{GameSummary, GameView, PlayerView};

use racko_rules::{Seat, Viewer};
use uuid::Uuid;

use crate::error::{Code, ServiceError};
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
pub(crate) fn game_error(e: StoreError) -> ServiceError {
    match e {
        StoreError::NotFound => game_not_found(),
        other => other.into(),
    }
}

pub(crate) fn game_not_found() -> ServiceError {
    ServiceError::new(Code::GameNotFound, "there is no game with this id")
}

pub(crate) fn not_a_player() -> ServiceError {
    ServiceError::new(Code::NotAPlayer, "you have no seat at this table")
}

pub(crate) fn cancelled() -> ServiceError {
    ServiceError::new(
        Code::GameCancelled,
        "this game was cancelled by its creator",
    )
}

/// Loads a game or answers 404 `game_not_found`.
pub(crate) fn load_game(store: &crate::store::Store, id: Uuid) -> Result<GameRecord, ServiceError> {
    store
        .game(id)
        .map_err(game_error)?
        .ok_or_else(game_not_found)
}
