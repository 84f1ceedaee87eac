//! The `strong` level: every choice is the one that leaves the rack cheapest to order, by the
//! cost of [`crate::eval`], counted from the cards this seat has not seen. A draw is valued as
//! the mean over the cards it may bring; a card swap's blind pick as the mean over the cards
//! the other rack most likely holds in that slot. Where public facts show the next rack (R8.1),
//! a laid card counts what it gives that seat, a card swap what it takes from it, and a drawn
//! rack swap the rack it brings.

use racko_rules::{Action, Card, Slot, TurnStage};

use crate::eval::Field;
use crate::sight::{Sight, Slots, EMPTY, JOKER};
use crate::tuning::Tuning;

/// What moving a card costs beyond its effect: a tie goes to leaving the rack alone.
pub(crate) const CHURN: f32 = 1e-3;

/// A rack at most this many draws from order is worth keeping in a rack swap.
const GOOD_RACK: f32 = 12.0;

pub(crate) fn decide(sight: &Sight, legal: &[Action]) -> Option<Action> {
    play(sight, legal, &Field::new(sight, Tuning::STRONG))
}

/// Every choice by the cost of `field` (the `expert` level weighs it its own way).
pub(crate) fn play(sight: &Sight, legal: &[Action], field: &Field) -> Option<Action> {
    if legal.contains(&Action::CallRacko) {
        return Some(Action::CallRacko);
    }
    if !sight.awaited {
        return None;
    }
    let chosen = match (legal.first()?, sight.stage) {
        // A Blitz deal lets the better placer start from a better rack (R7.3).
        (Action::ChooseDeal { .. }, _) => Some(Action::ChooseDeal { blitz: true }),
        (Action::PlaceBlitzCard { .. }, _) => {
            let card = slot_card(sight.blitz_card);
            cheapest(legal, |a| match a {
                Action::PlaceBlitzCard { slot } => {
                    Some(field.cost(&with_card(&sight.rack, *slot, card)))
                }
                _ => None,
            })
        }
        (_, Some(TurnStage::Begin)) => begin(sight, field, legal),
        (_, Some(TurnStage::Drawn)) => {
            let card = slot_card(sight.drawn);
            cheapest(legal, |a| match a {
                // A card that changes nothing is thrown away rather than churned.
                Action::PlaceDrawn { slot } => Some(
                    field.cost(&with_card(&sight.rack, *slot, card))
                        + CHURN
                        + field.feed(slot.index().map_or(EMPTY, |i| sight.rack[i])),
                ),
                Action::DiscardDrawn => Some(field.cost(&sight.rack) + field.feed(card)),
                _ => None,
            })
        }
        (_, Some(TurnStage::CardSwap)) => card_swap(sight, field, legal),
        (_, Some(TurnStage::RackSwap)) => rack_swap(sight, field, legal),
        _ => None,
    };
    chosen
        .filter(|a| legal.contains(a))
        .or_else(|| legal.first().copied())
}

/// The legal action of least score (the first of equals); None when none is scored.
fn cheapest(legal: &[Action], score: impl Fn(&Action) -> Option<f32>) -> Option<Action> {
    let mut best: Option<(Action, f32)> = None;
    for action in legal {
        if let Some(s) = score(action) {
            if best.is_none_or(|(_, b)| s < b) {
                best = Some((*action, s));
            }
        }
    }
    best.map(|(a, _)| a)
}

pub(crate) fn slot_card(card: Option<Card>) -> u16 {
    match card {
        Some(Card::Number { value }) => value,
        Some(Card::Joker) => JOKER,
        _ => EMPTY,
    }
}

pub(crate) fn with_card(rack: &Slots, slot: Slot, card: u16) -> Slots {
    let mut next = *rack;
    if let Some(i) = slot.index() {
        next[i] = card;
    }
    next
}

/// The least cost `card` can give the rack, placed into its best slot or thrown away.
pub(crate) fn best_with(field: &Field, rack: &Slots, card: u16, now: f32) -> f32 {
    let mut best = now;
    for i in 0..12 {
        if rack[i] == card && card != JOKER {
            continue;
        }
        let mut next = *rack;
        next[i] = card;
        best = best.min(field.cost(&next) + CHURN);
    }
    best
}

/// R3.1: take the top discard into a slot, or draw (valued as the mean over the cards the
/// stock may hold: every unseen card alike, as this seat cannot tell stock from other racks).
fn begin(sight: &Sight, field: &Field, legal: &[Action]) -> Option<Action> {
    let now = field.cost(&sight.rack);
    let top = slot_card(sight.top);
    let draw = legal
        .contains(&Action::Draw)
        .then(|| expected_draw(sight, field, now));
    cheapest(legal, |a| match a {
        Action::TakeDiscard { slot } => {
            Some(field.cost(&with_card(&sight.rack, *slot, top)) + CHURN)
        }
        Action::Draw => draw,
        _ => None,
    })
}

pub(crate) fn expected_draw(sight: &Sight, field: &Field, now: f32) -> f32 {
    let mut total = 0.0f32;
    let mut weight = 0.0f32;
    for v in sight.drawable() {
        total += field.score(best_with(field, &sight.rack, v, now));
        weight += 1.0;
    }
    if sight.stock_size > 0 {
        let jokers = f32::from(sight.jokers_unseen);
        if jokers > 0.0 {
            total += jokers * field.score(best_with(field, &sight.rack, JOKER, now));
            weight += jokers;
        }
        // An event card leaves the rack as it is (a skip), changes it blindly or swaps it.
        let (cost, events) = field.events(sight, now);
        total += cost;
        weight += events;
    }
    if weight == 0.0 {
        now
    } else {
        field.unscore(total / weight)
    }
}

/// R3.4 card swap: the other rack's slot j most likely holds a card of its own band (that
/// player orders his rack too) or, early on, any unseen card; give away the slot whose card
/// the rack misses least. Never hit a partner; hit the leader first.
fn card_swap(sight: &Sight, field: &Field, legal: &[Action]) -> Option<Action> {
    let unseen: Vec<u16> = (1..=sight.max)
        .filter(|v| sight.unseen[usize::from(*v)])
        .collect();
    // expected[j][m]: the mean cost after taking the other rack's slot j into my slot m.
    let mut expected = [[f32::INFINITY; 12]; 12];
    let now = field.cost(&sight.rack);
    for m in 0..12 {
        if sight.rack[m] == JOKER || sight.rack[m] == EMPTY {
            continue;
        }
        let after: Vec<f32> = unseen
            .iter()
            .map(|v| field.cost(&with_card(&sight.rack, Slot::from_index(m), *v)))
            .collect();
        let anywhere = mean(&after).unwrap_or(now);
        for (j, row) in expected.iter_mut().enumerate() {
            let banded: Vec<f32> = unseen
                .iter()
                .zip(&after)
                .filter(|(v, _)| sight.band(**v) == j)
                .map(|(_, c)| *c)
                .collect();
            row[m] = 0.5 * mean(&banded).unwrap_or(anywhere) + 0.5 * anywhere;
        }
    }
    let order = sight.opponents_by_threat();
    cheapest(legal, |a| match a {
        Action::SwapCard {
            with,
            their_slot,
            my_slot,
        } => {
            let (j, m) = (their_slot.index()?, my_slot.index()?);
            let rank = order.iter().position(|s| s == with).unwrap_or(order.len());
            // A card the public facts show (R8.1) is valued as it is; a known joker voids the
            // swap. What the other rack loses counts when it is known well enough.
            let known = sight.known.get(usize::from(*with)).map_or(EMPTY, |r| r[j]);
            let mine = match known {
                EMPTY => expected[j][m],
                JOKER => now,
                v => field.cost(&with_card(&sight.rack, Slot::from_index(m), v)),
            };
            let harm = if known == JOKER {
                0.0
            } else if *with == (sight.me + 1) % sight.players {
                field.harm(j, sight.rack[m])
            } else {
                0.0
            };
            // Ties go to the leader; a partner only when nobody else is left.
            Some(mine - harm + 0.001 * rank as f32 + 1000.0 * f32::from(rank == order.len()))
        }
        _ => None,
    })
}

fn mean(values: &[f32]) -> Option<f32> {
    (!values.is_empty()).then(|| values.iter().sum::<f32>() / values.len() as f32)
}

/// R3.4 rack swap: the rack that comes back is unknown. A good rack goes to a partner (the
/// team keeps it) or to the trailing opponent; a poor one goes to the leader.
fn rack_swap(sight: &Sight, field: &Field, legal: &[Action]) -> Option<Action> {
    let good = field.cost(&sight.rack) <= GOOD_RACK;
    let order = sight.opponents_by_threat();
    let partner = legal.iter().copied().find(|a| {
        matches!(a, Action::SwapRacks { with } if sight.partner && sight.side(*with) == sight.side(sight.me))
    });
    let target = match (good, partner) {
        (true, Some(p)) => return Some(p),
        (true, None) => order.last(),
        (false, _) => order.first(),
    };
    target.map(|with| Action::SwapRacks { with: *with })
}
