//! Rebuilding a game from its log (R9.2, audits): the options and the full events suffice.

use crate::{Event, Game, Options, RoundDeal};

/// Why a log does not replay.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("event {index}: {message}")]
pub struct ReplayError {
    /// Index into the events given.
    pub index: usize,
    pub message: String,
}

impl ReplayError {
    fn at(index: usize, message: impl Into<String>) -> ReplayError {
        ReplayError {
            index,
            message: message.into(),
        }
    }
}

/// Replays `events` (full, not projected) from a new game: each round is dealt again from the
/// seed (or stacked deck) of its `RoundStarted`, each player's action is applied again, and every
/// event the rules produce must equal the recorded one. Returns the game after the last event.
///
/// Events that follow from the rules alone (turns, skips, reshuffles, round ends) may come
/// before the input event of their action (a reshuffle comes before the draw it serves): each
/// step finds the next input event (a `RoundStarted` or an event with [`Event::action`]) and
/// checks everything the rules produce from that position on.
pub fn replay(options: &Options, events: &[Event]) -> Result<Game, ReplayError> {
    let mut game = Game::new(options.clone()).map_err(|e| ReplayError::at(0, e.to_string()))?;
    let mut index = 0;
    while index < events.len() {
        let Some(input) = (index..events.len()).find(|i| is_input(&events[*i])) else {
            return Err(ReplayError::at(
                index,
                "no action or deal produces this event",
            ));
        };
        let produced = match &events[input] {
            Event::RoundStarted { seed, stacked, .. } => {
                let Some(seed) = seed else {
                    return Err(ReplayError::at(
                        input,
                        "the seed is hidden; replay needs the full log",
                    ));
                };
                let deal = RoundDeal {
                    seed: *seed,
                    stacked: stacked.clone(),
                };
                game.start_round_mut(&deal)
            }
            event => match event.action() {
                Some((seat, action)) => game.apply_mut(seat, &action),
                None => return Err(ReplayError::at(input, "not an input event")),
            },
        }
        .map_err(|e| ReplayError::at(input, format!("refused: {e}")))?;
        for (offset, event) in produced.iter().enumerate() {
            let at = index + offset;
            match events.get(at) {
                Some(recorded) if recorded == event => {}
                Some(recorded) => {
                    return Err(ReplayError::at(
                        at,
                        format!(
                            "recorded {} but the rules give {}",
                            recorded.kind(),
                            event.kind()
                        ),
                    ))
                }
                None => {
                    return Err(ReplayError::at(
                        at,
                        format!("the log ends; the rules give {}", event.kind()),
                    ))
                }
            }
        }
        if produced.len() <= input - index {
            return Err(ReplayError::at(
                index,
                "the rules do not produce this event here",
            ));
        }
        index += produced.len();
    }
    Ok(game)
}

fn is_input(event: &Event) -> bool {
    matches!(event, Event::RoundStarted { .. }) || event.action().is_some()
}
