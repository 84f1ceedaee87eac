//! Rebuilding a game from its log (R9.2, audits): the options and the full events suffice.

use crate::{Event, Game, Options};

/// Why a log does not replay.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("event {index}: {message}")]
pub struct ReplayError {
    /// Index into the events given.
    pub index: usize,
    pub message: String,
}

/// Replays `events` (full, not projected) from a new game: each round is dealt again from the
/// seed (or stacked deck) of its `RoundStarted`, each player's action is applied again, and every
/// event the rules produce must equal the recorded one. Returns the game after the last event.
pub fn replay(options: &Options, events: &[Event]) -> Result<Game, ReplayError> {
    todo!("{options:?} {}", events.len())
}
