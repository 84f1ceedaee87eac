//! The state of a game as of any sequence number, rebuilt from the stored log by
//! `racko_rules::replay::replay` and shown as the caller may see it (R8).

use racko_rules::replay::{replay, ReplayError};
use racko_rules::{Event, Game, Options, View};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use super::log::GameLog;
use crate::error::{Code, ServiceError};
use crate::service::{viewer_of, Caller};
use crate::store::Store;

/// A game as it stood after event `as_of_seq`, as the caller may see it.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct ReplayView {
    pub game_id: Uuid,
    /// The seq asked for.
    pub seq: i64,
    /// The state holds every event up to this seq. It is below `seq` when `seq` falls inside
    /// the events of one action (their state in between never existed).
    pub as_of_seq: i64,
    /// The last seq of the game's log now.
    pub last_seq: i64,
    pub rules_version: u32,
    /// During the game a player sees what he could see then (his seat's view), anyone else
    /// the public view; once the game has ended, everything (R8.2).
    pub table: View,
}

/// The caller's view of game `id` as of `seq` (default: the last event).
pub fn replay_view(
    store: &Store,
    caller: &Caller,
    id: Uuid,
    seq: Option<i64>,
) -> Result<ReplayView, ServiceError> {
    if seq.is_some_and(|s| s < 0) {
        return Err(invalid_seq("seq must be 0 or more"));
    }
    // The whole log: whether seq ends a step shows only in the event after it.
    let log = GameLog::load(&store.reader_for_game(id), id)?;
    crate::service::access::check_visible(store, &log.record, caller.id)?;
    let last_seq = log.record.last_seq;
    let seq = seq.unwrap_or(last_seq);
    if seq > last_seq {
        return Err(invalid_seq(&format!(
            "the game's log ends at seq {last_seq}"
        )));
    }
    let (game, as_of_seq) = state_at(log.options(), &log.rules_events(), seq).map_err(|e| {
        ServiceError::internal(format!("game {id}: the stored log does not replay: {e}"))
    })?;
    Ok(ReplayView {
        game_id: id,
        seq,
        as_of_seq,
        last_seq,
        rules_version: log.record.rules_version,
        table: game.view(viewer_of(&log.record, caller.id)),
    })
}

fn invalid_seq(detail: &str) -> ServiceError {
    ServiceError::new(Code::InvalidSeq, detail.to_string())
}

/// The game after every rules event with seq ≤ `seq`, cut back to the last complete step, and
/// the seq it stands at. `events` are (seq, full event), ascending.
pub fn state_at(
    options: &Options,
    events: &[(i64, Event)],
    seq: i64,
) -> Result<(Game, i64), ReplayError> {
    let plain: Vec<Event> = events.iter().map(|(_, e)| e.clone()).collect();
    let taken = events.iter().take_while(|(s, _)| *s <= seq).count();
    let complete = complete_prefix(&plain, taken);
    let game = replay(options, &plain[..complete])?;
    // Cut back: the state stands just before the first event of the unfinished step.
    let as_of = match events.get(complete) {
        Some((next, _)) if complete < taken => next - 1,
        _ => seq,
    };
    Ok((game, as_of))
}

/// The longest prefix of `events[..len]` made of whole replay steps. A step is what one deal or
/// one action produces: it begins with its input event (`round_started` or an event with
/// `Event::action`), except that a reshuffle comes before the draw it serves (R3.6).
pub fn complete_prefix(events: &[Event], len: usize) -> usize {
    let len = len.min(events.len());
    if len == events.len() || starts_step(events, len) {
        return len;
    }
    (0..len)
        .rev()
        .find(|i| starts_step(events, *i))
        .unwrap_or(0)
}

/// True when a replay step begins at `events[i]`.
pub fn starts_step(events: &[Event], i: usize) -> bool {
    let after_reshuffle = i > 0 && matches!(events[i - 1], Event::StockReshuffled { .. });
    match &events[i] {
        Event::StockReshuffled { .. } => true,
        Event::RoundStarted { .. } => true,
        event => event.is_input() && !after_reshuffle,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use racko_rules::{Action, Seed, Slot};

    /// Plays a game by always drawing and placing into slot 5 until `steps` actions ran.
    fn played(steps: usize) -> (Options, Vec<Event>, Vec<usize>) {
        let options = Options::default();
        let mut game = Game::new(options.clone()).expect("options");
        let deal = racko_rules::RoundDeal {
            seed: Seed([3; 32]),
            stacked: None,
        };
        let mut events = game.start_round_mut(&deal).expect("deal");
        let mut boundaries = vec![events.len()];
        for _ in 0..steps {
            let racko_rules::Phase::Turn { seat, stage } = game.phase().clone() else {
                break;
            };
            let action = match stage {
                racko_rules::TurnStage::Begin => Action::Draw,
                racko_rules::TurnStage::Drawn => Action::PlaceDrawn { slot: Slot(5) },
                _ => game.legal_actions(seat)[0],
            };
            events.extend(game.apply_mut(seat, &action).expect("legal"));
            boundaries.push(events.len());
        }
        (options, events, boundaries)
    }

    #[test]
    fn every_cut_replays_to_the_last_whole_step() {
        let (options, events, boundaries) = played(150);
        let seqd: Vec<(i64, Event)> = (1..).zip(events.iter().cloned()).collect();
        for len in 0..=events.len() {
            let cut = complete_prefix(&events, len);
            let expected = boundaries
                .iter()
                .rev()
                .find(|b| **b <= len)
                .copied()
                .unwrap_or(0);
            assert_eq!(cut, expected, "prefix of {len}");
            let (_, as_of) = state_at(&options, &seqd, len as i64).expect("replays");
            assert_eq!(as_of, cut as i64, "as_of for {len}");
        }
    }
}
