//! Measuring players for the arena only, never a [`crate::Level`]: they read what their seat
//! may not see (R8), to measure how much that knowledge would be worth. `decide` is the
//! expert's play, except that the take-or-draw choice (R3.1) sees the next card of the stock
//! and the other racks ([`Peek`]). `docs/bots.md` (seventh round) has what it wins.
//!
//! Nothing in the service can reach this module: `crate::decide` takes a `View` alone.

use racko_rules::{Action, Card, Game, Seat, TurnStage, View, Viewer};

use crate::eval::Field;
use crate::sight::{Sight, Slots, JOKER};
use crate::strong::{best_with, expected_draw, slot_card, with_card, CHURN};
use crate::tuning::Tuning;

/// What the cheat sees: the next card a draw brings and every rack.
#[derive(Clone, Debug, PartialEq)]
pub struct Peek {
    /// The card a draw would bring now (None when drawing is not possible).
    pub next: Option<Card>,
    /// By seat.
    pub racks: Vec<[Card; 12]>,
}

impl Peek {
    /// Reads the hidden state of `game` for `seat` (which must be on turn for `next`).
    pub fn of(game: &Game, seat: Seat) -> Peek {
        let racks = (0..game.options().players)
            .filter_map(|s| game.rack(s).map(|r| r.0))
            .collect();
        let next = game
            .apply(seat, &Action::Draw)
            .ok()
            .and_then(|(after, _)| after.view(Viewer::Seat { seat }).drawn);
        Peek { next, racks }
    }
}

/// How much the cheat sees at the take-or-draw choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cheat {
    /// The next card of the stock, whatever it is, and the rack a rack swap would bring.
    Next,
    /// Only whether the next card is a rack swap, and the rack it would bring: a draw is
    /// otherwise the expert's mean over the other cards.
    RackSwap,
}

/// The expert's play with `tuning`, but its take-or-draw choice knows what `cheat` allows
/// of `peek`. With 3 or 4 players a drawn rack swap is valued as the expert values it.
pub fn decide(tuning: Tuning, cheat: Cheat, view: &View, peek: &Peek) -> Option<Action> {
    let legal = &view.legal_actions;
    let sight = Sight::of(view)?;
    let begin = sight.awaited && sight.stage == Some(TurnStage::Begin);
    if !begin || !legal.contains(&Action::Draw) || legal.contains(&Action::CallRacko) {
        return crate::decide_expert_with(tuning, view);
    }
    let field = Field::new(&sight, tuning);
    let now = field.cost(&sight.rack);
    let theirs = (sight.players == 2)
        .then(|| peek.racks.get(usize::from(1 - sight.me.min(1))))
        .flatten()
        .map(|rack| field.cost(&slots(rack)));
    let draw = match (cheat, peek.next, theirs) {
        (_, Some(Card::RackSwap), Some(theirs)) => theirs,
        (Cheat::Next, Some(card @ (Card::Number { .. } | Card::Joker)), _) => {
            best_with(&field, &sight.rack, slot_card(Some(card)), now)
        }
        (Cheat::Next, Some(_), _) => now,
        (Cheat::RackSwap, _, Some(_)) => {
            // Not a rack swap: the mean over every other card a draw may bring.
            let mut blind = Sight::of(view)?;
            blind.events_unseen -= blind.rack_swaps_unseen.min(blind.events_unseen);
            blind.rack_swaps_unseen = 0;
            expected_draw(&blind, &field, now)
        }
        _ => return crate::decide_expert_with(tuning, view),
    };
    let top = slot_card(sight.top);
    let take = legal
        .iter()
        .filter_map(|a| match a {
            Action::TakeDiscard { slot } => {
                Some(field.cost(&with_card(&sight.rack, *slot, top)) + CHURN)
            }
            _ => None,
        })
        .fold(f32::INFINITY, f32::min);
    if draw < take {
        return Some(Action::Draw);
    }
    // Taking: the expert chooses the slot as always.
    let mut only_takes = view.clone();
    only_takes
        .legal_actions
        .retain(|a| matches!(a, Action::TakeDiscard { .. }));
    crate::decide_expert_with(tuning, &only_takes).or(Some(Action::Draw))
}

fn slots(rack: &[Card; 12]) -> Slots {
    let mut out = [JOKER; 12];
    for (o, card) in out.iter_mut().zip(rack) {
        *o = slot_card(Some(*card));
    }
    out
}
