//! The hint: what the best computer player would do for the caller's seat,
//! decided from the caller's own view (R8.1) and nothing else.

use racko_bots::Level;
use racko_rules::{Action, RulesCode, Viewer};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use super::{cancelled, load_game, seat_of, Caller};
use crate::error::{Code, ServiceError};
use crate::store::GameStatus;
use crate::store::Store;

/// The level every hint is played at.
pub const HINT_LEVEL: Level = Level::BEST;

/// A suggested action for the caller's seat.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct Hint {
    /// The game's version the hint was computed for.
    pub version: i64,
    /// The computer player that suggests it.
    pub level: Level,
    /// One of the caller's legal actions now.
    pub action: Action,
}

/// The best level's choice for the caller's seat. 403 `not_a_player` without a seat; 409
/// `not_awaited` when the seat has nothing to do now (another seat's turn and no off-turn
/// Racko call to make, R4.2), or the game is over.
pub fn hint(store: &Store, caller: &Caller, id: Uuid) -> Result<Hint, ServiceError> {
    let game = load_game(store, id)?;
    let seat = seat_of(&game, caller.id).ok_or_else(|| super::access::no_seat(&game, caller.id))?;
    match game.status {
        GameStatus::Open => {
            return Err(ServiceError::new(
                Code::GameNotStarted,
                "the game starts when every seat is taken",
            ))
        }
        GameStatus::Cancelled => return Err(cancelled()),
        GameStatus::Active | GameStatus::Finished => {}
    }
    // The seat's own projection: exactly what the player sees (never `Viewer::Everyone`).
    let view = game.state.view(Viewer::Seat { seat });
    // The version seeds the player's chance: asking again for the same state gives the same.
    let seed = u64::try_from(game.version).unwrap_or_default();
    let action = racko_bots::decide(HINT_LEVEL, &view, seed).ok_or_else(|| {
        ServiceError::new(
            Code::Rules(RulesCode::NotAwaited),
            "your seat has nothing to do now: no hint",
        )
    })?;
    Ok(Hint {
        version: game.version,
        level: HINT_LEVEL,
        action,
    })
}
