//! Dealing rounds and deriving what the store keeps beside the rules state.

use racko_rules::{Event, Game, RoundDeal};

use super::random;
use crate::error::ApiError;
use crate::store::{GameRecord, GameStatus, SeatRecord};

/// Deals the next round of `state`: a fresh OS seed always (it is committed and later revealed,
/// R9.2); in a test-mode game, the stacked deck given at creation for that round, if any.
pub fn deal_next(game: &GameRecord, state: &Game) -> Result<(Game, Vec<Event>), ApiError> {
    let round = state.round() as usize + 1;
    let stacked = if game.test_mode {
        game.stacked.get(round - 1).cloned()
    } else {
        None
    };
    let deal = RoundDeal {
        seed: random::seed()?,
        stacked,
    };
    // The stacked decks were validated at creation, so a refusal here is a server fault.
    state.start_round(&deal).map_err(ApiError::internal)
}

/// The seats with their `awaiting` flags as `state` has them (the "my turn" inbox).
pub fn seats_awaiting(seats: &[SeatRecord], state: &Game) -> Vec<SeatRecord> {
    let awaiting = state.awaiting();
    seats
        .iter()
        .map(|seat| SeatRecord {
            awaiting: awaiting.contains(&seat.seat),
            ..seat.clone()
        })
        .collect()
}

/// The stored status that goes with a rules state of a started game.
pub fn status_of(state: &Game) -> GameStatus {
    if state.is_over() {
        GameStatus::Finished
    } else {
        GameStatus::Active
    }
}
