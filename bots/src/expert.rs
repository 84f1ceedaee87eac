//! The `expert` level: the choices of `strong` (each the one that leaves the rack cheapest to
//! order, a draw valued as the mean over the cards it may bring), by a cost weighed anew and
//! tuned by seeded self-play in the arena (`docs/bots-tuning.md` lists the runs), and one step
//! deeper where a card goes:
//! - every unseen joker speeds up every slot still to fill, not only the short gaps;
//! - with Bonus (R7.2) a run on the rack is worth draws, so it plays for long runs: worth more
//!   the further it trails, and only up to the points its call needs to win the game;
//! - once it takes the discard or holds a drawn card, each slot (and discarding) is valued by
//!   the cost expected after the next draw, over the cards this seat has not seen.

use racko_rules::{Action, TurnStage};

use crate::eval::Field;
use crate::sight::{Sight, Slots, EMPTY, JOKER};
use crate::strong::{self, best_with, slot_card, with_card, CHURN};
use crate::tuning::Tuning;

/// The `expert` level's weights (tuned in the arena, see `docs/bots.md`): the `strong`
/// level's, and what only the expert has.
pub const TUNED: Tuning = Tuning {
    joker_share: 0.35,
    bonus_weight: 0.05,
    lookahead: true,
    prefix_weight: 0.5,
    bonus_cap: 1.0,
    bonus_behind: 2.0,
    ..Tuning::STRONG
};

pub(crate) fn decide(sight: &Sight, legal: &[Action], tuning: Tuning) -> Option<Action> {
    let field = Field::new(sight, tuning);
    let chosen = strong::play(sight, legal, &field)?;
    if !tuning.lookahead {
        return Some(chosen);
    }
    let placing = match (chosen, sight.stage) {
        (Action::TakeDiscard { .. }, Some(TurnStage::Begin)) => slot_card(sight.top),
        (Action::PlaceDrawn { .. } | Action::DiscardDrawn, Some(TurnStage::Drawn)) => {
            slot_card(sight.drawn)
        }
        _ => return Some(chosen),
    };
    // One step deeper only for the few placings the plain cost ranks best (and discarding):
    // that keeps a decision within a few milliseconds.
    let mut options: Vec<(Action, Slots, f32)> = legal
        .iter()
        .filter_map(|action| {
            let rack = match action {
                Action::TakeDiscard { slot } | Action::PlaceDrawn { slot } => {
                    with_card(&sight.rack, *slot, placing)
                }
                Action::DiscardDrawn => sight.rack,
                _ => return None,
            };
            Some((*action, rack, field.cost(&rack)))
        })
        .collect();
    options.sort_by(|a, b| a.2.total_cmp(&b.2));
    let mut best = (chosen, f32::INFINITY);
    for (k, (action, rack, _)) in options.iter().enumerate() {
        let moved = !matches!(action, Action::DiscardDrawn);
        if k >= DEEPER && moved {
            continue;
        }
        // The card this choice lays on the discard pile, for the next seat.
        let laid = match action {
            Action::TakeDiscard { slot } | Action::PlaceDrawn { slot } => {
                slot.index().map_or(EMPTY, |i| sight.rack[i])
            }
            _ => placing,
        };
        let score = after_next_draw(sight, &field, rack)
            + field.feed(laid)
            + if moved { CHURN } else { 0.0 };
        if score < best.1 {
            best = (*action, score);
        }
    }
    Some(best.0)
}

/// How many placings are looked at one draw deeper.
const DEEPER: usize = 3;

/// The mean cost of `rack` after one more draw played at its best, over the cards a draw may
/// bring (every unseen card alike; an event card leaves the rack as it is).
fn after_next_draw(sight: &Sight, field: &Field, rack: &Slots) -> f32 {
    let now = field.cost(rack);
    let (mut total, mut weight) = (0.0f32, 0.0f32);
    for v in 1..=sight.max {
        if sight.unseen[usize::from(v)] && !rack.contains(&v) {
            total += field.score(best_with(field, rack, v, now));
            weight += 1.0;
        }
    }
    let jokers = f32::from(sight.jokers_unseen);
    if jokers > 0.0 {
        total += jokers * field.score(best_with(field, rack, JOKER, now));
        weight += jokers;
    }
    let (cost, events) = field.events(sight, now);
    total += cost;
    weight += events;
    if weight == 0.0 {
        now
    } else {
        field.unscore(total / weight)
    }
}
