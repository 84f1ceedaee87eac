//! A simple, sensible player for the property tests and the benchmark: each slot keeps to its
//! band of numbers (slot 5 the lowest twelfth of 1..=max_number, ...), so racks drift into
//! order; Racko is called when a rack is in order. With probability `deviation` a seat picks a
//! random legal action instead, so that odd but legal play is covered too. It reads the cards
//! from the tracker (it cheats: a test player may), and asks for the legal actions only when
//! it needs the list, since that is a large part of a step's cost.

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

/// R4.1 on a rack that may have empty slots (an incomplete rack is never in order).
fn in_order(rack: &[Option<Card>; 12]) -> bool {
    let mut cards = [Card::Joker; 12];
    for (i, card) in rack.iter().enumerate() {
        match card {
            Some(card) => cards[i] = *card,
            None => return false,
        }
    }
    score::in_order(&cards)
}

impl Policy {
    /// The next (seat, action), or None when no seat can act (the round must be dealt).
    pub fn choose(
        &self,
        game: &Game,
        tracker: &Tracker,
        rng: &mut impl Rng,
    ) -> Option<(Seat, Action)> {
        let stage = match game.phase() {
            Phase::Turn { stage, .. } => Some(*stage),
            _ => None,
        };
        if stage.is_some() {
            for (seat, rack) in tracker.racks.iter().enumerate() {
                if in_order(rack) && rng.random_bool(self.call_rate) {
                    return Some((seat as Seat, Action::CallRacko));
                }
            }
        }
        let seat = *game.awaiting().choose(rng)?;
        let rack = &tracker.racks[usize::from(seat)];
        let max = tracker.max_number;
        // The dealer's choice, a rack swap's target, and deviations are picked at random.
        let blitz = matches!(game.phase(), Phase::BlitzDeal);
        let planned = blitz
            || matches!(
                stage,
                Some(TurnStage::Begin | TurnStage::Drawn | TurnStage::CardSwap)
            );
        if !planned || rng.random_bool(self.deviation) {
            return game.legal_actions(seat).choose(rng).map(|a| (seat, *a));
        }
        let action = match stage {
            Some(TurnStage::Begin) => {
                let take = tracker.top().and_then(|top| target(top, rack, max));
                let can_draw = tracker.stock > 0 || tracker.discard.len() > 1;
                match take {
                    Some(slot) => Action::TakeDiscard { slot },
                    None if can_draw => Action::Draw,
                    // Nothing to draw (R3.6): the top discard must be taken somewhere.
                    None => Action::TakeDiscard {
                        slot: Slot::from_index(rng.random_range(0..12)),
                    },
                }
            }
            Some(TurnStage::Drawn) => {
                let (_, card) = tracker.drawn.expect("a drawn card");
                match target(card, rack, max) {
                    Some(slot) => Action::PlaceDrawn { slot },
                    None => Action::DiscardDrawn,
                }
            }
            Some(TurnStage::CardSwap) => {
                let legal = game.legal_actions(seat);
                // Prefer a swap that brings a card of the band into one of my slots.
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
                *good.or_else(|| legal.choose(rng))?
            }
            Some(TurnStage::RackSwap) | None => {
                // The Blitz deal: the dealt card goes to the empty slot nearest its band.
                let card = tracker.next_blitz_card(seat);
                let value = card
                    .and_then(|c| c.number())
                    .expect("a Blitz card to place");
                let want = band(value, max);
                let slot = (0..12)
                    .filter(|&i| rack[i].is_none())
                    .min_by_key(|&i| i.abs_diff(want))
                    .expect("an empty slot");
                Action::PlaceBlitzCard {
                    slot: Slot::from_index(slot),
                }
            }
        };
        Some((seat, action))
    }
}
