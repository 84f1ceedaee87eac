//! A simple, sensible player for the property tests and the benchmark: each slot keeps to its
//! band of numbers (slot 5 the lowest twelfth of 1..=max_number, ...), so racks drift into
//! order; Racko is called when a rack is in order. With probability `deviation` a seat picks a
//! random legal action instead, so that odd but legal play is covered too.

use racko_rules::{score, Action, Card, Game, Phase, Seat, Slot, TurnStage};
use rand::seq::IndexedRandom;
use rand::Rng;

use super::tracker::Tracker;

pub struct Policy {
    pub deviation: f64,
    /// The chance that a seat whose rack is in order calls at once (it may wait, R4.2).
    pub call_rate: f64,
}

/// The slot index whose band holds `value`.
fn band(value: u16, max_number: u16) -> usize {
    (usize::from(value - 1) * 12 / usize::from(max_number)).min(11)
}

fn fits(card: Option<Card>, index: usize, max_number: u16) -> bool {
    match card {
        Some(Card::Joker) => true,
        Some(Card::Number { value }) => band(value, max_number) == index,
        _ => false,
    }
}

/// The slot where `card` improves `rack`, if any.
fn target(card: Card, rack: &[Option<Card>; 12], max_number: u16) -> Option<Slot> {
    let index = match card {
        Card::Number { value } => Some(band(value, max_number)),
        Card::Joker => (0..12).find(|&i| !fits(rack[i], i, max_number)),
        _ => None,
    }?;
    (!fits(rack[index], index, max_number)).then(|| Slot::from_index(index))
}

impl Policy {
    /// The next (seat, action), or None when no seat can act (the round must be dealt).
    pub fn choose(
        &self,
        game: &Game,
        tracker: &Tracker,
        rng: &mut impl Rng,
    ) -> Option<(Seat, Action)> {
        if let Phase::Turn { .. } = game.phase() {
            for seat in 0..tracker.players as Seat {
                if tracker.rack_full(seat)
                    && score::in_order(&tracker.rack(seat))
                    && rng.random_bool(self.call_rate)
                {
                    return Some((seat, Action::CallRacko));
                }
            }
        }
        let seat = *game.awaiting().choose(rng)?;
        let legal = game.legal_actions(seat);
        if rng.random_bool(self.deviation) {
            return legal.choose(rng).map(|a| (seat, *a));
        }
        let rack = &tracker.racks[usize::from(seat)];
        let max = tracker.max_number;
        let action = match game.phase() {
            Phase::Turn {
                stage: TurnStage::Begin,
                ..
            } => {
                let take = tracker.top().and_then(|top| target(top, rack, max));
                match take {
                    Some(slot) if legal.contains(&Action::TakeDiscard { slot }) => {
                        Action::TakeDiscard { slot }
                    }
                    _ if legal.contains(&Action::Draw) => Action::Draw,
                    _ => *legal.choose(rng)?,
                }
            }
            Phase::Turn {
                stage: TurnStage::Drawn,
                ..
            } => {
                let (_, card) = tracker.drawn.expect("a drawn card");
                match target(card, rack, max) {
                    Some(slot) => Action::PlaceDrawn { slot },
                    None => Action::DiscardDrawn,
                }
            }
            Phase::Turn {
                stage: TurnStage::CardSwap,
                ..
            } => {
                // Prefer a swap that brings a card of the band into my slot.
                let good = legal.iter().find(|a| match a {
                    Action::SwapCard {
                        with,
                        their_slot,
                        my_slot,
                    } => {
                        let theirs = tracker.racks[usize::from(*with)][their_slot.index().unwrap()];
                        let mine = my_slot.index().unwrap();
                        fits(theirs, mine, max) && !fits(rack[mine], mine, max)
                    }
                    _ => false,
                });
                match good {
                    Some(a) => *a,
                    None => *legal.choose(rng)?,
                }
            }
            _ => *legal
                .iter()
                .filter(|a| !matches!(a, Action::CallRacko))
                .collect::<Vec<_>>()
                .choose(rng)
                .copied()
                .or(legal.first())?,
        };
        Some((seat, action))
    }
}
