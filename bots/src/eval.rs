//! How far a rack is from order, in expected turns, from the cards this seat has not seen.
//!
//! The rack keeps an increasing run of its number cards (jokers fit anywhere, R4.1) and must
//! refill every other slot. A gap of `g` slots between kept values `lo` and `hi` can take the
//! `c` cards strictly between them that may still come (unseen cards count fully, cards in the
//! discard pile partly: they return when the stock runs out, R3.6). Sharing the range evenly,
//! each slot of the gap is filled by a draw with chance `p = (c/g) / S` (`S` the cards a draw
//! may bring), so the gap costs `g / p = g²·S/c` draws. (Measured in the arena's solo test, this
//! beats coupon-collecting's `H(g) / p`, which credits filling the slots of a gap in parallel,
//! and beats crediting jokers to every slot: 13 turns against 18.) Jokers only rescue a gap
//! with fewer cards than slots. The rack's cost is the least sum over the runs it could keep: a
//! dynamic program over its slots, O(12²).

use crate::sight::{Sight, Slots, EMPTY, JOKER};
use crate::tuning::Tuning;

/// The cards that may still come, by value.
pub(crate) struct Field {
    /// `prefix[v]`: the weight of values 1..=v; `prefix[0] = 0`, up to `max + 1`.
    prefix: Vec<f32>,
    jokers: f32,
    /// `S`: the weight of every card a draw may bring.
    draws: f32,
    max: u16,
    tuning: Tuning,
    bonus: bool,
    /// By value: not yet seen (for the runs a rack may still make).
    unseen: Vec<bool>,
    /// The next seat's rack as far as it is known (EMPTY where not), when it is an opponent's
    /// and known in at least `known_min` slots; with its cost.
    rival: Option<(Slots, f32)>,
    /// A game of two players (a rack swap can only hit the other one).
    two: bool,
    /// The most run bonus points worth anything (`Tuning::bonus_cap`).
    cap: f32,
    /// Draws one point of run bonus is worth here.
    worth: f32,
}

impl Field {
    pub(crate) fn new(sight: &Sight, tuning: Tuning) -> Field {
        let max = sight.max;
        let mut prefix = vec![0.0f32; usize::from(max) + 2];
        let mut sum = 0.0;
        for (v, weight) in prefix
            .iter_mut()
            .enumerate()
            .take(usize::from(max) + 1)
            .skip(1)
        {
            if sight.unseen[v] {
                sum += 1.0;
            } else if sight.discarded[v] {
                sum += tuning.discard_weight;
            }
            *weight = sum;
        }
        prefix[usize::from(max) + 1] = sum;
        let jokers = f32::from(sight.jokers_unseen);
        let draws = (sum + jokers + f32::from(sight.events_unseen)).max(1.0);
        let mut field = Field {
            prefix,
            jokers,
            draws,
            max,
            tuning,
            bonus: sight.bonus && tuning.bonus_weight > 0.0,
            unseen: if sight.bonus && tuning.run_chance > 0.0 {
                sight.unseen.clone()
            } else {
                Vec::new()
            },
            rival: None,
            two: sight.players == 2,
            worth: tuning.bonus_weight * (1.0 + tuning.bonus_behind * sight.behind()),
            cap: if tuning.bonus_cap > 0.0 {
                sight.bonus_needed() as f32
            } else {
                f32::INFINITY
            },
        };
        let next = (sight.me + 1) % sight.players.max(1);
        let watched = tuning.deny_weight > 0.0
            || tuning.swap_weight > 0.0
            || tuning.harm_weight > 0.0
            || tuning.race > 0.0
            || tuning.finish_guard > 0.0;
        if watched && next != sight.me && sight.side(next) != sight.side(sight.me) {
            if let Some(rack) = sight.known.get(usize::from(next)) {
                let known = rack.iter().filter(|c| **c != EMPTY).count();
                if known as f32 >= tuning.known_min {
                    field.rival = Some((*rack, field.draws_to_order(rack)));
                }
            }
        }
        field
    }

    /// The draws `card` on top of the discard pile would save the next seat, weighed
    /// (0 when that rack is not known well enough).
    pub(crate) fn denial(&self, card: u16) -> f32 {
        if card == EMPTY {
            return 0.0;
        }
        let Some((saved, best)) = self.saves(card) else {
            return 0.0;
        };
        // A card that orders the known rack lets that seat call Racko at once.
        let finish = if best <= 0.0 {
            self.tuning.finish_guard
        } else {
            0.0
        };
        self.tuning.deny_weight * saved + finish
    }

    /// The draws `card` on top of the discard pile would save the next seat, unweighed, and
    /// that rack's cost with it: None when that rack is not known well enough.
    pub(crate) fn saves(&self, card: u16) -> Option<(f32, f32)> {
        let (rack, now) = self.rival.as_ref()?;
        if card == EMPTY {
            return Some((0.0, *now));
        }
        let mut best = *now;
        for i in 0..12 {
            let mut next = *rack;
            next[i] = card;
            best = best.min(self.draws_to_order(&next));
        }
        Some((now - best, best))
    }

    /// The next seat's rack and its cost, when it is an opponent's known well enough.
    pub(crate) fn rival(&self) -> Option<&(Slots, f32)> {
        self.rival.as_ref()
    }

    /// The draws giving `card` into slot index `slot` of the next seat's rack costs it,
    /// weighed (0 when that rack is not known well enough).
    pub(crate) fn harm(&self, slot: usize, card: u16) -> f32 {
        let Some((rack, now)) = &self.rival else {
            return 0.0;
        };
        let mut next = *rack;
        if let Some(c) = next.get_mut(slot) {
            *c = card;
        }
        self.tuning.harm_weight * (self.draws_to_order(&next) - now)
    }

    /// The summed score (`score`) and weight of the event cards a draw may bring, the rack
    /// costing `now`: a rack swap (R3.4) hands this seat another rack, of `rival_cost` when
    /// that is weighed; any other event leaves the rack as it is.
    pub(crate) fn events(&self, sight: &Sight, now: f32) -> (f32, f32) {
        let events = f32::from(sight.events_unseen);
        let swaps = f32::from(sight.rack_swaps_unseen);
        if let (Some((_, theirs)), 2) = (&self.rival, sight.players) {
            if self.racing() {
                // The racks change hands: this seat then loses as the other seat would now
                // (each rack's draws counted at its new player's pace).
                let pace = self.tuning.race;
                let lost = theirs / (theirs + pace * now.max(0.05));
                return ((events - swaps) * self.score(now) + swaps * lost, events);
            }
            if self.tuning.swap_weight > 0.0 {
                let swapped = now + self.tuning.swap_weight * (theirs - now);
                return ((events - swaps) * now + swaps * swapped, events);
            }
        }
        if self.tuning.rival_cost > 0.0 {
            (
                (events - swaps) * now + swaps * self.tuning.rival_cost,
                events,
            )
        } else {
            (events * now, events)
        }
    }

    /// Playing the race: the other rack is known and there is no third seat.
    fn racing(&self) -> bool {
        self.tuning.race > 0.0 && self.two && self.rival.is_some()
    }

    /// What a draw's outcomes are averaged by: the cost itself, or when racing the chance to
    /// lose the round, each rack finishing by a steady chance per turn of one over its cost
    /// (so a rack of cost `c` against one of `t` loses with `c / (c + t)`).
    pub(crate) fn score(&self, cost: f32) -> f32 {
        match &self.rival {
            // The ordered prefix's worth can take a cost below 0: an ordered rack loses never.
            Some((_, theirs)) if self.racing() => {
                let cost = cost.max(0.05);
                cost / (cost + theirs * self.tuning.race)
            }
            _ => cost,
        }
    }

    /// The cost whose score is `score` (the inverse of `score`).
    pub(crate) fn unscore(&self, score: f32) -> f32 {
        match &self.rival {
            Some((_, theirs)) if self.racing() => {
                score * theirs * self.tuning.race / (1.0 - score).max(1e-3)
            }
            _ => score,
        }
    }

    /// What leaving `card` on top of the discard pile gives the next seat, in draws: every
    /// rack wants its lowest and highest cards, so the ends of the numbers are taken most
    /// surely; a joker fits any rack.
    pub(crate) fn feed(&self, card: u16) -> f32 {
        let w = self.tuning.feed_weight;
        if card == EMPTY {
            return 0.0;
        }
        if self.rival.is_some() {
            return self.denial(card);
        }
        if w == 0.0 {
            return 0.0;
        }
        if card == JOKER {
            return w;
        }
        let max = f32::from(self.max);
        let edge = (2.0 * f32::from(card) - (max + 1.0)) / (max - 1.0).max(1.0);
        w * edge.powi(4)
    }

    /// The weight of the values strictly between `lo` and `hi` (0 and max+1 are the ends).
    fn between(&self, lo: u16, hi: u16) -> f32 {
        if hi <= lo + 1 {
            return 0.0;
        }
        self.prefix[usize::from(hi - 1)] - self.prefix[usize::from(lo)]
    }

    /// The expected draws to fill `g` slots from a range of weight `c`.
    fn gap(&self, g: usize, c: f32) -> f32 {
        if g == 0 {
            return 0.0;
        }
        let gf = g as f32;
        let t = &self.tuning;
        let per_slot = (c / gf + t.joker_share * self.jokers).max(0.05);
        let short = (gf - c - self.jokers).max(0.0);
        let slots = if t.gap_power == 2.0 {
            gf
        } else {
            gf.powf(t.gap_power - 1.0)
        };
        slots * self.draws / per_slot + t.short_penalty * self.draws * short
    }

    /// The rack's cost: least expected draws to order it (0 when it is in order), less the
    /// worth of its run bonus when that is weighed.
    pub(crate) fn cost(&self, rack: &Slots) -> f32 {
        let mut draws = self.draws_to_order(rack);
        if self.tuning.prefix_weight > 0.0 {
            draws -= self.tuning.prefix_weight * prefix(rack) as f32;
        }
        if self.bonus && self.tuning.run_chance > 0.0 {
            let run = crate::runs::potential(rack, self.max, &self.unseen, self.tuning.run_chance);
            draws - self.worth * run.min(self.cap)
        } else if self.bonus {
            let run = f32::from(crate::runs::bonus(rack, self.max));
            draws - self.worth * run.min(self.cap)
        } else {
            draws
        }
    }

    /// The least expected draws to order the rack.
    pub(crate) fn draws_to_order(&self, rack: &Slots) -> f32 {
        // fill[i]: the slots before slot index i that a kept run would have to refill
        // (every slot but a joker's).
        let mut fill = [0usize; 13];
        for i in 0..12 {
            fill[i + 1] = fill[i] + usize::from(rack[i] != JOKER);
        }
        // Nodes: the start (before slot 5, value 0), each number card, the end (value max+1).
        let mut pos = [0usize; 14];
        let mut val = [0u16; 14];
        let mut n = 1;
        for (i, &card) in rack.iter().enumerate() {
            if card != JOKER && card != EMPTY {
                pos[n] = i;
                val[n] = card;
                n += 1;
            }
        }
        pos[n] = 12;
        val[n] = self.max + 1;
        n += 1;
        let mut best = [f32::INFINITY; 14];
        best[0] = 0.0;
        for j in 1..n {
            let mut here = f32::INFINITY;
            for i in 0..j {
                if val[i] >= val[j] || best[i] == f32::INFINITY {
                    continue;
                }
                // Slots strictly between node i and node j that need a card.
                let from = if i == 0 { 0 } else { pos[i] + 1 };
                let g = fill[pos[j]] - fill[from];
                let c = self.between(val[i], val[j]);
                here = here.min(best[i] + self.gap(g, c));
            }
            best[j] = here;
        }
        best[n - 1]
    }
}

/// The ordered prefix's length (R5.2): from slot 5 on, while each number card is higher than
/// every one before it (a joker fits; an empty slot ends it).
pub(crate) fn prefix(rack: &Slots) -> usize {
    let mut highest = 0u16;
    for (i, &card) in rack.iter().enumerate() {
        if card == EMPTY || (card != JOKER && card <= highest) {
            return i;
        }
        highest = highest.max(card);
    }
    12
}
