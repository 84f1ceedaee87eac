//! The `basic` level, the heuristic printed in many Rack-O strategy notes: slot i wants the
//! i-th twelfth of the numbers (its band). Take the discard when it belongs in a slot whose card
//! does not, else draw; keep a drawn card by the same test; call Racko as soon as possible.

use racko_rules::{Action, Card, Slot, TurnStage};

use crate::sight::{Sight, EMPTY, JOKER};

/// True when slot `index` holds a card of its band (or a joker).
fn fits(sight: &Sight, index: usize) -> bool {
    match sight.rack[index] {
        JOKER => true,
        EMPTY => false,
        value => sight.band(value) == index,
    }
}

/// Where a card goes: a number to its band's slot, a joker to the first slot out of band; None
/// when that slot holds a card of its band already.
fn home(sight: &Sight, card: Option<Card>) -> Option<usize> {
    match card? {
        Card::Number { value } => Some(sight.band(value)).filter(|i| !fits(sight, *i)),
        Card::Joker => (0..12).find(|i| !fits(sight, *i)),
        _ => None,
    }
}

pub(crate) fn decide(sight: &Sight, legal: &[Action]) -> Option<Action> {
    let has = |a: Action| legal.contains(&a).then_some(a);
    if let Some(call) = has(Action::CallRacko) {
        return Some(call);
    }
    if !sight.awaited {
        return None;
    }
    let chosen = match (legal.first()?, sight.stage) {
        (Action::ChooseDeal { .. }, _) => has(Action::ChooseDeal { blitz: false }),
        (Action::PlaceBlitzCard { .. }, _) => blitz_slot(sight, legal),
        (_, Some(TurnStage::Begin)) => home(sight, sight.top)
            .and_then(|i| has(Action::TakeDiscard { slot: Slot::from_index(i) }))
            .or_else(|| has(Action::Draw)),
        (_, Some(TurnStage::Drawn)) => home(sight, sight.drawn)
            .and_then(|i| has(Action::PlaceDrawn { slot: Slot::from_index(i) }))
            .or_else(|| has(Action::DiscardDrawn)),
        (_, Some(TurnStage::CardSwap)) => {
            // Give the first card out of its band for the card the other rack most likely
            // keeps in that very slot.
            let mine = (0..12)
                .filter(|i| sight.rack[*i] != JOKER && sight.rack[*i] != EMPTY)
                .find(|i| !fits(sight, *i));
            let with = (1..sight.players)
                .map(|k| (sight.me + k) % sight.players)
                .find(|s| sight.side(*s) != sight.side(sight.me));
            match (mine, with) {
                (Some(i), Some(with)) => has(Action::SwapCard {
                    with,
                    their_slot: Slot::from_index(i),
                    my_slot: Slot::from_index(i),
                }),
                _ => None,
            }
        }
        (_, Some(TurnStage::RackSwap)) => legal
            .iter()
            .find(|a| matches!(a, Action::SwapRacks { with } if sight.side(*with) != sight.side(sight.me)))
            .copied(),
        _ => None,
    };
    chosen.or_else(|| legal.first().copied())
}

/// R7.3: the card's band slot, else the nearest empty slot.
fn blitz_slot(sight: &Sight, legal: &[Action]) -> Option<Action> {
    let want = match sight.blitz_card {
        Some(Card::Number { value }) => sight.band(value),
        _ => 0,
    };
    legal
        .iter()
        .filter_map(|a| match a {
            Action::PlaceBlitzCard { slot } => Some((*a, slot.index()?.abs_diff(want))),
            _ => None,
        })
        .min_by_key(|(_, distance)| *distance)
        .map(|(a, _)| a)
}
