//! Sparring partners for the arena: players that others published, written here from their
//! public descriptions (no code taken), so our levels are measured against play that is not
//! ours. Each decides from its seat's view alone, like the levels. The published players know
//! neither jokers nor event cards nor Blitz; the choices they make for those are ours and are
//! named below.
//!
//! - `max`: racko-ai's "Max" player (Azmisov/racko-ai): put the card into the slot that makes
//!   the longest *usable* ascending run of the rack, and keep it only when that run grows. A run
//!   is usable when the values between two of its cards can still fill the slots between them.
//!   Max flips a coin between discard and stock; ours takes the discard when it lengthens the
//!   run (a coin would only make it weaker).
//! - `band`: the slot-band rule from the Rack-O strategy notes (and the Nifty 2016 Rack-O
//!   assignment's sample players): slot i wants the i-th twelfth of the numbers, widened by half
//!   a band each side; keep a card that lands in a slot whose card is out of its widened band
//!   (among racks with as many cards in band, the longer usable run is better).
//! - `kyle`: racko-ai's "Kyle hard": anchors and the ranges between them (see `kyle.rs`).
//!
//! Our choices, for all three (Kyle's jokers: see `kyle.rs`): a joker is placed where it lengthens
//! the run most (it fits anywhere, R4.1); Racko is called whenever the rack is in order, off turn
//! too (R4.2); a card swap (R3.4) gives the first card outside the run for the same slot of the
//! leading opponent; a rack swap goes to the leading opponent; the dealer deals normally and a
//! Blitz card goes to its band's slot or the nearest empty one (R7.3).

use std::fmt;
use std::str::FromStr;

use racko_rules::{Action, Card, Slot, TurnStage, View};

use crate::sight::{Sight, Slots, EMPTY, JOKER};

/// A published player, as we rebuilt it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sparring {
    Max,
    Band,
    /// racko-ai's "Kyle hard" (see `kyle.rs`).
    Kyle,
}

impl Sparring {
    pub const ALL: [Sparring; 3] = [Sparring::Max, Sparring::Band, Sparring::Kyle];

    pub fn name(self) -> &'static str {
        match self {
            Sparring::Max => "max",
            Sparring::Band => "band",
            Sparring::Kyle => "kyle",
        }
    }
}

impl fmt::Display for Sparring {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Sparring {
    type Err = String;
    fn from_str(s: &str) -> Result<Sparring, String> {
        Sparring::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| format!("unknown sparring partner {s:?} (max, band or kyle)"))
    }
}

/// The sparring partner's action, with the same promises as [`crate::decide`].
pub fn decide(partner: Sparring, view: &View) -> Option<Action> {
    let legal = &view.legal_actions;
    if legal.is_empty() {
        return None;
    }
    let sight = Sight::of(view)?;
    if legal.contains(&Action::CallRacko) {
        return Some(Action::CallRacko);
    }
    if !sight.awaited {
        return None;
    }
    let judge = |rack: &Slots| match partner {
        Sparring::Max => usable_run(rack, sight.max),
        // The run breaks ties, so a rack whose every card is in band still gets ordered.
        Sparring::Band => in_band(&sight, rack) * 16 + usable_run(rack, sight.max),
        // Kyle picks its slots by its ranges (below); the run only settles its events.
        Sparring::Kyle => usable_run(rack, sight.max),
    };
    let has = |a: Action| legal.contains(&a).then_some(a);
    let kyle = |card, inside| crate::kyle::slot_for(&sight.rack, card, sight.max, inside);
    let chosen = match (legal.first()?, sight.stage) {
        (_, Some(TurnStage::Begin)) if partner == Sparring::Kyle => kyle(sight.top, false)
            .and_then(|slot| has(Action::TakeDiscard { slot }))
            .or_else(|| has(Action::Draw)),
        (_, Some(TurnStage::Drawn)) if partner == Sparring::Kyle => kyle(sight.drawn, true)
            .and_then(|slot| has(Action::PlaceDrawn { slot }))
            .or_else(|| has(Action::DiscardDrawn)),
        (Action::ChooseDeal { .. }, _) => has(Action::ChooseDeal { blitz: false }),
        (Action::PlaceBlitzCard { .. }, _) => blitz_slot(&sight, legal),
        (_, Some(TurnStage::Begin)) => improving_slot(&sight.rack, sight.top, &judge)
            .and_then(|slot| has(Action::TakeDiscard { slot }))
            .or_else(|| has(Action::Draw)),
        (_, Some(TurnStage::Drawn)) => improving_slot(&sight.rack, sight.drawn, &judge)
            .and_then(|slot| has(Action::PlaceDrawn { slot }))
            .or_else(|| has(Action::DiscardDrawn)),
        (_, Some(TurnStage::CardSwap)) => card_swap(&sight, legal),
        (_, Some(TurnStage::RackSwap)) => sight
            .opponents_by_threat()
            .first()
            .and_then(|with| has(Action::SwapRacks { with: *with })),
        _ => None,
    };
    chosen.or_else(|| legal.first().copied())
}

/// The slot where `card` scores best by `judge`, when that beats the rack as it is.
fn improving_slot(
    rack: &Slots,
    card: Option<Card>,
    judge: &impl Fn(&Slots) -> u32,
) -> Option<Slot> {
    let card = match card? {
        Card::Number { value } => value,
        Card::Joker => JOKER,
        _ => return None,
    };
    let now = judge(rack);
    let mut best: Option<(usize, u32)> = None;
    for i in 0..12 {
        if rack[i] == JOKER {
            continue;
        }
        let mut next = *rack;
        next[i] = card;
        let score = judge(&next);
        if score > now && best.is_none_or(|(_, b)| score > b) {
            best = Some((i, score));
        }
    }
    best.map(|(i, _)| Slot::from_index(i))
}

/// The length of the longest usable ascending run, every joker counted (it fits anywhere):
/// number cards at slots i < j with values a < b are usable together when the values strictly
/// between them can fill the number slots strictly between them, and likewise against the
/// ends (values 1..a before the first, b..max after the last).
pub(crate) fn usable_run(rack: &Slots, max: u16) -> u32 {
    // open[i]: the slots before slot index i that need a number card.
    let mut open = [0u32; 13];
    for i in 0..12 {
        open[i + 1] = open[i] + u32::from(rack[i] != JOKER);
    }
    let jokers = rack.iter().filter(|c| **c == JOKER).count() as u32;
    let mut run = [0u32; 12];
    let mut best = 0;
    for j in 0..12 {
        let b = rack[j];
        if b == JOKER || b == EMPTY {
            continue;
        }
        let b32 = u32::from(b);
        // Alone: enough values below it for the slots before it.
        let mut here = u32::from(b32 > open[j]);
        for i in 0..j {
            let a = rack[i];
            if a == JOKER || a == EMPTY || a >= b || run[i] == 0 {
                continue;
            }
            let between = open[j] - open[i + 1];
            if b32 - u32::from(a) > between {
                here = here.max(run[i] + 1);
            }
        }
        run[j] = here;
        let after = open[12] - open[j + 1];
        if here > 0 && u32::from(max) - b32 >= after {
            best = best.max(here);
        }
    }
    best + jokers
}

/// How many slots hold a card of their band widened by half a band each side (jokers fit).
fn in_band(sight: &Sight, rack: &Slots) -> u32 {
    let width = f32::from(sight.max) / 12.0;
    rack.iter()
        .enumerate()
        .filter(|(i, card)| match **card {
            JOKER => true,
            EMPTY => false,
            v => {
                let centre = (*i as f32 + 0.5) * width;
                (f32::from(v) - 0.5 - centre).abs() <= width
            }
        })
        .count() as u32
}

/// R3.4: the first number card outside the usable run, for the leader's card in that slot.
fn card_swap(sight: &Sight, legal: &[Action]) -> Option<Action> {
    let now = usable_run(&sight.rack, sight.max);
    let give = (0..12)
        .filter(|i| sight.rack[*i] != JOKER && sight.rack[*i] != EMPTY)
        .find(|i| {
            let mut without = sight.rack;
            without[*i] = JOKER;
            // A card is outside the run when a joker in its place lengthens the run by one.
            usable_run(&without, sight.max) > now
        })?;
    let with = *sight.opponents_by_threat().first()?;
    let action = Action::SwapCard {
        with,
        their_slot: Slot::from_index(give),
        my_slot: Slot::from_index(give),
    };
    legal.contains(&action).then_some(action)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_is_usable_only_when_its_gaps_can_be_filled() {
        let ordered: Slots = [3, 7, 9, 12, 15, 20, 22, 30, 33, 40, 45, 50];
        assert_eq!(usable_run(&ordered, 50), 12);
        // 5 and 6 two slots apart: no value between them for the slot between.
        let tight: Slots = [5, 1, 6, 2, 3, 4, 7, 8, 9, 10, 11, 12];
        assert!(usable_run(&tight, 50) < 12);
        let mut joker = ordered;
        joker[4] = JOKER;
        assert_eq!(usable_run(&joker, 50), 12);
    }
}
