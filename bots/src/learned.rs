//! Ninth round of tuning (`docs/bots.md`): a valuation of the round learned offline, instead of
//! the expert's cost (expected draws to order its own rack). A position after a choice (the
//! rack it leaves, the card it lays on the discard pile) is described by a few features read
//! from the seat's view alone ([`NAMES`]), and a logistic model fitted on seeded self-play in
//! the arena (`arena --learn`) predicts the round's outcome for this seat from there (with
//! [`WEIGHTS`] its points margin, as a share 0..1; the fitter can also learn whether the
//! round or the game is won). The arena-only players `learned` and `learnedtake` take the
//! option of the best prediction; not a level. `docs/bots.md` (ninth round) has what it won.

use racko_rules::{Action, TurnStage, View};

use crate::eval::{prefix, Field};
use crate::sight::{Sight, Slots, EMPTY, JOKER};
use crate::strong::{slot_card, with_card};
use crate::{expert, runs};

/// How many features describe a position.
pub const FEATURES: usize = 17;

/// What each feature is (the fitter prints the weights by these names). `c` is the draws to
/// order the rack by the expert's cost, `t` the next seat's when public facts show at least
/// `known_min` of its slots (`k` 1 then, else 0), `s` the stock's size over 40, `swaps` the
/// unseen rack swaps, `saved` the draws the laid card saves the next seat (known rack only),
/// `edge` how much every rack wants the laid card (the ends of the numbers, a joker). The own
/// cost enters through `ln(1 + c)` alone, so that a fit can keep the chance falling with it.
/// With Bonus, `run` is the rack's run bonus and `needed` the bonus a call needs to win the
/// game (`Sight::bonus_needed`, the expert's `bonus_cap`).
pub const NAMES: [&str; FEATURES] = [
    "bias",
    "ln(1+c)",
    "s*ln(1+c)",
    "k*swaps*ln(1+c)",
    "k*ln(1+t)",
    "k*swaps*ln(1+t)",
    "prefix/12",
    "saved/10",
    "edge",
    "jokers*ln(1+c)/4",
    "run/100",
    "s",
    "behind",
    "swaps",
    "known/12",
    "k",
    "min(run,needed)/100",
];

/// The model fitted by `arena --learn 2000 --threads 1 --explore 0.1 --variants default+bonus
/// --label points --pairs expert-max,expert-strong` (game seeds 100001..102000 per pairing):
/// the points margin of the round, which played best of the three labels tried.
pub const WEIGHTS: [f32; FEATURES] = [
    0.3143,  // bias
    -0.2218, // ln(1+c)
    0.1270,  // s*ln(1+c)
    -0.0271, // k*swaps*ln(1+c)
    0.1130,  // k*ln(1+t)
    0.0146,  // k*swaps*ln(1+t)
    0.1132,  // prefix/12
    -0.0267, // saved/10
    -0.0041, // edge
    0.0061,  // jokers*ln(1+c)/4
    0.1383,  // run/100
    0.0287,  // s
    -0.0700, // behind
    -0.0079, // swaps
    -0.2028, // known/12
    -0.2075, // k
    0.0039,  // min(run,needed)/100
];

/// Which choices the learned valuation makes; the others are the expert's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The take-or-draw choice (R3.1) and where a drawn card goes (R3.2).
    All,
    /// The take-or-draw choice alone (and the slot of a take).
    Begin,
}

/// Everything of one decision the features need, read once.
struct Valuer<'a> {
    sight: &'a Sight,
    field: Field,
    /// By value (0 the joker): the draws that card laid would save the next seat.
    saves: Vec<f32>,
    rival: Option<f32>,
    known: f32,
    stock: f32,
    swaps: f32,
    jokers: f32,
    behind: f32,
    needed: f32,
    weights: [f32; FEATURES],
}

impl<'a> Valuer<'a> {
    fn new(sight: &'a Sight, weights: [f32; FEATURES]) -> Valuer<'a> {
        let field = Field::new(sight, expert::TUNED);
        let saves = (0..=sight.max)
            .map(|v| field.saves(v).map_or(0.0, |(saved, _)| saved))
            .collect();
        let rival = field.rival().map(|(_, t)| *t);
        let next = (sight.me + 1) % sight.players.max(1);
        let known = sight
            .known
            .get(usize::from(next))
            .map_or(0, |r| r.iter().filter(|c| **c != EMPTY).count());
        Valuer {
            sight,
            saves,
            rival,
            known: known as f32 / 12.0,
            stock: sight.stock_size as f32 / 40.0,
            swaps: f32::from(sight.rack_swaps_unseen),
            jokers: f32::from(sight.jokers_unseen),
            behind: sight.behind(),
            needed: sight.bonus_needed() as f32,
            field,
            weights,
        }
    }

    fn features(&self, rack: &Slots, laid: u16) -> [f32; FEATURES] {
        let run = if self.sight.bonus {
            f32::from(runs::bonus(rack, self.sight.max))
        } else {
            0.0
        };
        self.described(self.field.draws_to_order(rack), prefix(rack), run, laid)
    }

    /// The features of a rack of cost `c`, ordered prefix `prefix` and run bonus `run`, with
    /// `laid` on the discard pile.
    fn described(&self, c: f32, prefix: usize, run: f32, laid: u16) -> [f32; FEATURES] {
        let (k, t) = self.rival.map_or((0.0, 0.0), |t| (1.0, t));
        let saved = self.saves.get(usize::from(laid)).copied().unwrap_or(0.0);
        let edge = match laid {
            EMPTY => 0.0,
            JOKER => 1.0,
            v => {
                let max = f32::from(self.sight.max);
                ((2.0 * f32::from(v) - (max + 1.0)) / (max - 1.0).max(1.0)).powi(4)
            }
        };
        let lc = (1.0 + c.max(0.0)).ln();
        let lt = (1.0 + t.max(0.0)).ln();
        [
            1.0,
            lc,
            self.stock * lc,
            k * self.swaps * lc,
            k * lt,
            k * self.swaps * lt,
            prefix as f32 / 12.0,
            saved / 10.0,
            edge,
            self.jokers * lc / 4.0,
            run / 100.0,
            self.stock,
            self.behind,
            self.swaps,
            self.known,
            k,
            run.min(self.needed) / 100.0,
        ]
    }

    /// The predicted outcome of the round from a position (0..1, more is better).
    fn chance(&self, x: &[f32; FEATURES]) -> f32 {
        let z: f32 = x.iter().zip(&self.weights).map(|(a, b)| a * b).sum();
        1.0 / (1.0 + (-z).exp())
    }

    /// The best chance `card` in hand gives: placed into a slot (laying that slot's card) or
    /// laid away.
    fn best_with(&self, card: u16) -> f32 {
        let rack = &self.sight.rack;
        let mut best = self.chance(&self.features(rack, card));
        for i in 0..12 {
            if rack[i] == card && card != JOKER {
                continue;
            }
            let next = with_card(rack, racko_rules::Slot::from_index(i), card);
            best = best.max(self.chance(&self.features(&next, rack[i])) - MOVE);
        }
        best
    }

    /// The mean chance after a draw, over the cards it may bring (as `strong::expected_draw`).
    fn draw(&self) -> f32 {
        let sight = self.sight;
        let (mut total, mut weight) = (0.0f32, 0.0f32);
        for v in sight.drawable() {
            total += self.best_with(v);
            weight += 1.0;
        }
        if sight.stock_size > 0 {
            if self.jokers > 0.0 {
                total += self.jokers * self.best_with(JOKER);
                weight += self.jokers;
            }
            let events = f32::from(sight.events_unseen);
            let still = self.chance(&self.features(&sight.rack, EMPTY));
            let swapped = match (self.field.rival(), sight.players) {
                (Some((theirs, t)), 2) => {
                    let now = self.field.draws_to_order(&sight.rack);
                    let c = now + expert::TUNED.swap_weight * (t - now);
                    self.chance(&self.described(c, prefix(theirs), 0.0, EMPTY))
                }
                _ => still,
            };
            total += (events - self.swaps) * still + self.swaps * swapped;
            weight += events;
        }
        if weight == 0.0 {
            0.0
        } else {
            total / weight
        }
    }
}

/// What moving a card costs in chance beyond its effect: a tie leaves the rack alone.
const MOVE: f32 = 1e-5;

/// The `learned` player: the expert's play, with the choices of `scope` made by the learned
/// chance to win the round (`weights`, [`WEIGHTS`] unless the arena tries others).
pub fn decide(view: &View, scope: Scope, weights: [f32; FEATURES]) -> Option<Action> {
    let legal = &view.legal_actions;
    if legal.is_empty() {
        return None;
    }
    let sight = Sight::of(view)?;
    let expert = || expert::decide(&sight, legal, expert::TUNED).filter(|a| legal.contains(a));
    if legal.contains(&Action::CallRacko) || !sight.awaited {
        return expert();
    }
    let placing = match sight.stage {
        Some(TurnStage::Begin) => slot_card(sight.top),
        Some(TurnStage::Drawn) if scope == Scope::All => slot_card(sight.drawn),
        _ => return expert(),
    };
    if placing == EMPTY {
        return expert();
    }
    let valuer = Valuer::new(&sight, weights);
    let mut best: Option<(Action, f32)> = None;
    for action in legal {
        let chance = match action {
            Action::Draw => valuer.draw(),
            _ => match afterstate(&sight, action, placing) {
                Some((rack, laid)) => {
                    let moved = !matches!(action, Action::DiscardDrawn);
                    valuer.chance(&valuer.features(&rack, laid)) - if moved { MOVE } else { 0.0 }
                }
                None => continue,
            },
        };
        if best.is_none_or(|(_, b)| chance > b) {
            best = Some((*action, chance));
        }
    }
    best.map(|(a, _)| a).or_else(expert)
}

/// The rack a take or a placing leaves and the card it lays on the discard pile.
fn afterstate(sight: &Sight, action: &Action, placing: u16) -> Option<(Slots, u16)> {
    match action {
        Action::TakeDiscard { slot } | Action::PlaceDrawn { slot } => {
            let laid = slot.index().map_or(EMPTY, |i| sight.rack[i]);
            Some((with_card(&sight.rack, *slot, placing), laid))
        }
        Action::DiscardDrawn => Some((sight.rack, placing)),
        _ => None,
    }
}

/// The features of the position `action` leaves (a take, a placing or a drawn card laid
/// away), for the arena's fitter; None for any other action.
pub fn sample(view: &View, action: &Action) -> Option<[f32; FEATURES]> {
    let sight = Sight::of(view)?;
    let placing = match sight.stage {
        Some(TurnStage::Begin) => slot_card(sight.top),
        Some(TurnStage::Drawn) => slot_card(sight.drawn),
        _ => return None,
    };
    if placing == EMPTY {
        return None;
    }
    let (rack, laid) = afterstate(&sight, action, placing)?;
    Some(Valuer::new(&sight, WEIGHTS).features(&rack, laid))
}
