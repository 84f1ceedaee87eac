//! `sampledN`: the foresight planner (`racko_bots::foresight`) run on N deals of the cards the
//! seat has not seen instead of the true one, choosing the option of the best mean. It reads
//! the view alone for what it plans with; the game is only the frame the deals are written
//! into (the rules crate builds no game from a view), and the deals reshuffle every card the
//! seat cannot see. No time budget: this measures what such a planner could win at best, not
//! a level.

use racko_bots::foresight::{self, Reach};
use racko_bots::{decide_expert_with, Tuning};
use racko_rules::{Action, Card, Game, Seat, View};
use serde_json::Value;

/// One deal's chance: a small xorshift, seeded from what the seat sees.
struct Chance(u64);

impl Chance {
    fn below(&mut self, n: usize) -> usize {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        (x % n.max(1) as u64) as usize
    }
}

fn code(card: &Card) -> i64 {
    match card {
        Card::Number { value } => i64::from(*value),
        Card::Joker => -1,
        Card::CardSwap => -2,
        Card::Skip => -3,
        Card::RackSwap => -4,
    }
}

/// A seed from the seat's own rack, the discard pile and the stock's size.
fn seed_of(view: &View) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    let mut mix = |v: i64| h = (h ^ v as u64).wrapping_mul(0x0100_0000_01b3);
    for slot in view.rack.iter().flatten() {
        mix(slot.card.as_ref().map_or(99, code));
    }
    view.discard.iter().for_each(|c| mix(code(c)));
    mix(i64::from(view.stock_size));
    h | 1
}

/// `samples` games like `game` with the stock and the other racks' slots this seat does not
/// know dealt anew from those same cards. A slot of another rack takes a card of its own band
/// with chance `banded` (its player orders it too), else any.
fn deals(game: &Game, seat: Seat, view: &View, samples: usize, banded: f64) -> Vec<Game> {
    let Ok(whole) = serde_json::to_value(game) else {
        return Vec::new();
    };
    let players = usize::from(game.options().players);
    let max = view.options.deck_counts().max_number as i64;
    let known: Vec<(usize, usize)> = view
        .known
        .iter()
        .filter_map(|k| Some((usize::from(k.seat), k.slot.index()?)))
        .collect();
    let hidden_slot = |s: usize, j: usize| s != usize::from(seat) && !known.contains(&(s, j));
    let mut pool: Vec<Value> = whole["stock"].as_array().cloned().unwrap_or_default();
    for s in 0..players {
        for j in 0..12 {
            if hidden_slot(s, j) {
                pool.push(whole["racks"][s][j].clone());
            }
        }
    }
    let band = |v: &Value| {
        v.as_i64()
            .filter(|c| *c > 0)
            .map(|c| ((c - 1) * 12 / max.max(1)).min(11) as usize)
    };
    let mut chance = Chance(seed_of(view));
    let mut out = Vec::with_capacity(samples);
    for _ in 0..samples {
        let mut cards = pool.clone();
        let mut next = whole.clone();
        for s in 0..players {
            for j in 0..12 {
                if !hidden_slot(s, j) || cards.is_empty() {
                    continue;
                }
                let fits: Vec<usize> = (0..cards.len())
                    .filter(|i| band(&cards[*i]) == Some(j))
                    .collect();
                let roll = chance.below(1000) as f64 / 1000.0;
                let pick = if !fits.is_empty() && roll < banded {
                    fits[chance.below(fits.len())]
                } else {
                    chance.below(cards.len())
                };
                next["racks"][s][j] = cards.swap_remove(pick);
            }
        }
        for i in (1..cards.len()).rev() {
            cards.swap(i, chance.below(i + 1));
        }
        next["stock"] = Value::Array(cards);
        if let Ok(dealt) = serde_json::from_value::<Game>(next) {
            out.push(dealt);
        }
    }
    out
}

/// The sampled planner's choice: the expert's unless another shortlisted option ends the
/// round better on average over the `samples` deals (by more than `margin` points); the other
/// racks' unknown slots hold a card of their band with a chance growing to `banded`.
pub fn decide(
    tuning: Tuning,
    (samples, margin, banded): (usize, f32, f64),
    game: &Game,
    seat: Seat,
    view: &View,
) -> Option<Action> {
    let base = decide_expert_with(tuning, view)?;
    if !foresight::plans(game, seat, base) {
        return Some(base);
    }
    let candidates = foresight::shortlist(tuning, Reach::All, base, view);
    if candidates.len() < 2 {
        return Some(base);
    }
    // The further the round, the more the other racks are ordered.
    let deck = view.options.deck_counts();
    let cards = u32::from(deck.max_number)
        + u32::from(deck.jokers)
        + u32::from(deck.card_swaps + deck.skips + deck.rack_swaps);
    let dealt = 12 * u32::from(view.options.players) + 1;
    let drawn = cards.saturating_sub(dealt + view.stock_size) as f64;
    let worlds = deals(game, seat, view, samples, (drawn / 20.0).min(banded));
    let quick = foresight::quick(tuning);
    // The other seats play as this seat would, seeing only their views.
    let mut others = |_: Seat, v: &View| decide_expert_with(quick, v);
    let mut best = (base, f32::NEG_INFINITY);
    let mut first: Vec<f32> = Vec::new();
    for (k, action) in candidates.into_iter().enumerate() {
        let values: Vec<f32> = worlds
            .iter()
            .map(|w| {
                foresight::play_out(w, seat, action, quick, Reach::All, &mut others).unwrap_or(0.0)
            })
            .collect();
        let total: f32 = values.iter().sum();
        let mean = total / worlds.len().max(1) as f32 - if k == 0 { 0.0 } else { margin };
        if k == 0 {
            first = values.clone();
        } else if std::env::var("SAMPLED_DEBUG").is_ok() {
            // The spread of the paired difference against the expert's choice, per deal.
            let d: Vec<f32> = values.iter().zip(&first).map(|(a, b)| a - b).collect();
            let n = d.len().max(1) as f32;
            let m = d.iter().sum::<f32>() / n;
            let sd = (d.iter().map(|x| (x - m).powi(2)).sum::<f32>() / n).sqrt();
            eprintln!("PAIRED {k} mean {m:.1} sd {sd:.1} n {n}");
        }
        if mean > best.1 {
            best = (action, mean);
        }
    }
    Some(best.0)
}
