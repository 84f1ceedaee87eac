//! Determinized Monte Carlo for the take-or-draw choice (R3.1) of a 2-player round: deal the
//! cards this seat has not seen anew, consistently with its view (the other rack's known slots
//! stay, its unknown slots take unseen cards, most of them of their slot's band as the round
//! goes on; the rest is the stock, event cards included), and play the round on from each
//! choice with both seats greedy by the cost, up to `turns` turns (both seats together). The same deals serve
//! every choice (common random numbers), so the choices differ by what they do, not by luck.
//!
//! Each deal reads the view alone: the chance is seeded from what the seat sees.

use crate::dice::Dice;
use crate::eval::Field;
use crate::sight::{Sight, Slots, EMPTY, JOKER};

/// Pool codes of the event cards: a rack swap, and the others (played as a skip).
const RACK_SWAP: u16 = EMPTY - 1;
const OTHER_EVENT: u16 = EMPTY - 2;
/// A rollout seat takes the discard when that leaves its rack this share of its cost or less.
const TAKE_SHARE: f32 = 0.85;

/// The chance this seat wins the round after taking (its rack becomes `took`, `laid` goes
/// onto the discard pile) and after drawing, each the mean over `samples` deals.
pub(crate) fn win_chances(
    sight: &Sight,
    field: &Field,
    took: &Slots,
    laid: u16,
    samples: usize,
    turns: usize,
) -> (f32, f32) {
    let mut dice = Dice::new(seed_of(sight));
    let (mut take, mut draw) = (0.0, 0.0);
    for _ in 0..samples {
        let (theirs, stock) = deal(sight, &mut dice);
        let mut taken = Round {
            racks: [*took, theirs],
            top: laid,
            stock: stock.clone(),
        };
        take += taken.play_on(field, 1, turns);
        let mut drawn = Round {
            racks: [sight.rack, theirs],
            top: EMPTY,
            stock,
        };
        draw += match drawn.stock.pop() {
            Some(card) => {
                drawn.drawn(field, 0, card);
                drawn.play_on(field, 1, turns)
            }
            None => drawn.chance(field),
        };
    }
    let n = samples.max(1) as f32;
    (take / n, draw / n)
}

/// What the seat sees, folded into a seed.
fn seed_of(sight: &Sight) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    let mut mix = |v: u64| h = (h ^ v).wrapping_mul(0x0100_0000_01b3);
    sight.rack.iter().for_each(|c| mix(u64::from(*c)));
    mix(u64::from(sight.stock_size));
    mix(sight.unseen.iter().filter(|u| **u).count() as u64);
    mix(u64::from(crate::strong::slot_card(sight.top)));
    h
}

/// One deal of the unseen cards: the other rack and the stock (top last).
fn deal(sight: &Sight, dice: &mut Dice) -> (Slots, Vec<u16>) {
    let mut cards: Vec<u16> = (1..=sight.max)
        .filter(|v| sight.unseen[usize::from(*v)])
        .collect();
    cards.extend(std::iter::repeat_n(JOKER, usize::from(sight.jokers_unseen)));
    let other = usize::from(1 - sight.me.min(1));
    let mut theirs = sight.known.get(other).copied().unwrap_or([EMPTY; 12]);
    let ordered = crate::rival::progress(sight);
    for (j, slot) in theirs.iter_mut().enumerate() {
        if *slot != EMPTY || cards.is_empty() {
            continue;
        }
        // That player orders his rack too: the further the round, the likelier a card of
        // the slot's own band.
        let banded: Vec<usize> = (0..cards.len())
            .filter(|i| cards[*i] != JOKER && sight.band(cards[*i]) == j)
            .collect();
        let pick = if !banded.is_empty() && (dice.below(1000) as f32) < 1000.0 * ordered {
            banded[dice.below(banded.len())]
        } else {
            dice.below(cards.len())
        };
        *slot = cards.swap_remove(pick);
    }
    let swaps = sight.rack_swaps_unseen.min(sight.events_unseen);
    cards.extend(std::iter::repeat_n(RACK_SWAP, usize::from(swaps)));
    let others = usize::from(sight.events_unseen - swaps);
    cards.extend(std::iter::repeat_n(OTHER_EVENT, others));
    for i in (1..cards.len()).rev() {
        cards.swap(i, dice.below(i + 1));
    }
    cards.truncate(sight.stock_size as usize);
    (theirs, cards)
}

/// A round played on in a rollout: seat 0 is this seat.
struct Round {
    racks: [Slots; 2],
    /// The top discard (EMPTY when it cannot be taken).
    top: u16,
    stock: Vec<u16>,
}

impl Round {
    /// Plays turns from `seat` on; this seat's chance to win.
    fn play_on(&mut self, field: &Field, mut seat: usize, turns: usize) -> f32 {
        for _ in 0..turns {
            if let Some(done) = self.ended() {
                return done;
            }
            let rack = self.racks[seat];
            let now = field.cost(&rack);
            let mut take = (f32::INFINITY, 0);
            if self.top != EMPTY {
                for i in 0..12 {
                    let mut next = rack;
                    next[i] = self.top;
                    let c = field.cost(&next);
                    if c < take.0 {
                        take = (c, i);
                    }
                }
            }
            if take.0 <= TAKE_SHARE * now {
                let i = take.1;
                let laid = rack[i];
                self.racks[seat][i] = self.top;
                self.top = laid;
            } else {
                let Some(card) = self.stock.pop() else {
                    break;
                };
                self.drawn(field, seat, card);
            }
            seat = 1 - seat;
        }
        self.ended().unwrap_or_else(|| self.chance(field))
    }

    /// `seat` drew `card`: placed where it lowers the cost most, or laid away.
    fn drawn(&mut self, field: &Field, seat: usize, card: u16) {
        match card {
            RACK_SWAP => {
                self.racks.swap(0, 1);
                self.top = EMPTY;
            }
            OTHER_EVENT => self.top = EMPTY,
            _ => {
                let rack = self.racks[seat];
                let mut best = (field.cost(&rack), 12);
                for i in 0..12 {
                    let mut next = rack;
                    next[i] = card;
                    let c = field.cost(&next);
                    if c < best.0 {
                        best = (c, i);
                    }
                }
                self.top = match rack.get(best.1) {
                    Some(laid) => {
                        self.racks[seat][best.1] = card;
                        *laid
                    }
                    None => card,
                };
            }
        }
    }

    /// 1 or 0 once a rack is in order (its player calls Racko, R4.2; this seat first).
    fn ended(&self) -> Option<f32> {
        if in_order(&self.racks[0]) {
            Some(1.0)
        } else if in_order(&self.racks[1]) {
            Some(0.0)
        } else {
            None
        }
    }

    /// Past the horizon: each rack finishes with a steady chance per turn of one over its
    /// draws from order.
    fn chance(&self, field: &Field) -> f32 {
        let mine = field.draws(&self.racks[0]).max(0.05);
        let theirs = field.draws(&self.racks[1]).max(0.05);
        theirs / (mine + theirs)
    }
}

/// R4.1: every number card higher than every one before it (jokers fit anywhere).
fn in_order(rack: &Slots) -> bool {
    let mut highest = 0;
    for &card in rack {
        if card == EMPTY || (card != JOKER && card <= highest) {
            return false;
        }
        highest = highest.max(card);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use racko_rules::{Game, Options, RoundDeal, Viewer};

    /// A 2-player view some turns into round 1, of the seat on turn.
    fn sight_after(turns: u64) -> Sight {
        let mut game = Game::new(Options::default()).expect("valid options");
        let deal = RoundDeal {
            seed: crate::table::round_seed(11, 1),
            stacked: None,
        };
        game.start_round_mut(&deal).expect("a deal");
        for step in 0..turns {
            let seat = game.awaiting()[0];
            let view = game.view(Viewer::Seat { seat });
            let action = crate::decide(crate::Level::Strong, &view, step).expect("an action");
            game.apply_mut(seat, &action).expect("a legal action");
        }
        let seat = game.awaiting()[0];
        Sight::of(&game.view(Viewer::Seat { seat })).expect("a seat's view")
    }

    #[test]
    fn a_deal_keeps_the_known_slots_and_uses_only_unseen_cards() {
        for turns in [0, 7, 20] {
            let sight = sight_after(turns);
            let other = usize::from(1 - sight.me);
            let mut dice = Dice::new(5);
            for _ in 0..20 {
                let (theirs, stock) = deal(&sight, &mut dice);
                let mut numbers = Vec::new();
                for (j, card) in theirs.iter().enumerate() {
                    let known = sight.known[other][j];
                    if known != EMPTY {
                        assert_eq!(*card, known);
                    } else if *card != JOKER {
                        numbers.push(*card);
                    }
                }
                assert!(stock.len() <= sight.stock_size as usize);
                let swaps = stock.iter().filter(|c| **c == RACK_SWAP).count();
                assert!(swaps <= usize::from(sight.rack_swaps_unseen));
                numbers.extend(stock.iter().filter(|c| **c != JOKER && **c < OTHER_EVENT));
                for v in &numbers {
                    assert!(sight.unseen[usize::from(*v)], "{v} was seen");
                }
                let count = numbers.len();
                numbers.sort_unstable();
                numbers.dedup();
                assert_eq!(numbers.len(), count, "a card dealt twice");
            }
        }
    }

    #[test]
    fn an_ordered_rack_wins_and_the_chances_repeat() {
        let sight = sight_after(7);
        let field = Field::new(&sight, crate::expert::TUNED);
        let ordered = [2, 6, 10, 14, 18, 22, 26, 30, 34, 38, 42, 46];
        let (took, drew) = win_chances(&sight, &field, &ordered, 1, 8, 24);
        assert_eq!(took, 1.0);
        assert!((0.0..=1.0).contains(&drew));
        assert_eq!(
            win_chances(&sight, &field, &ordered, 1, 8, 24),
            (took, drew)
        );
        let a = win_chances(&sight, &field, &sight.rack, 1, 8, 24);
        assert_eq!(win_chances(&sight, &field, &sight.rack, 1, 8, 24), a);
    }

    #[test]
    fn order_is_r4_1() {
        assert!(in_order(&[1, 2, JOKER, 4, 5, 20, 21, 30, 33, 40, 44, 48]));
        assert!(!in_order(&[1, 2, JOKER, 4, 5, 20, 21, 30, 33, 40, 48, 44]));
        assert!(!in_order(&[1, 2, 3, 4, 5, 20, 21, 30, 33, 40, 44, EMPTY]));
    }
}
