//! `--learn N` (ninth round, `docs/bots.md`): plays N seeded 2-player games per pairing
//! (game seeds 100001.., apart from the measuring seeds 1..N), records at each take or placing
//! of the first player the features of the position it leaves (`racko_bots::learned`), labels
//! each with whether that seat won the round (0.5 for a tie), and fits a logistic model by
//! Newton's method. Prints the weights as the `learned::WEIGHTS` constant and, for comparison,
//! the fit of the expert's cost alone. With `--explore P` the first player makes a share P of
//! its take-or-draw choices and placings at random among the legal ones, so the data also
//! holds positions the expert would not choose. `--variants default+bonus` alternates the
//! variant sets game by game. With `--label points` the label is the round's points margin
//! (0.5 + margin / 800, held to 0..1) rather than whether the round was won; with `--label
//! game`, whether the seat won the game.

use racko_bots::learned::{self, FEATURES, NAMES};
use racko_bots::table::play_game;
use racko_rules::{Action, View};

use crate::players::Player;
use crate::{options_for, run_parallel, seating};

/// One position: its game (for the split), its features, the round's outcome for the seat.
type Sample = (usize, [f64; FEATURES], f64);

/// What a position is labelled with (`--label`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Label {
    /// Whether the seat won the round (the default).
    Round,
    /// The round's points margin.
    Points,
    /// Whether the seat won the game.
    Game,
}

/// With `--label points`: the points margin of a round that counts as a sure win.
const MARGIN: f64 = 400.0;

/// The first game seed of the training games.
const SEED0: usize = 100_000;

pub fn run(
    games: usize,
    pairs: &[[Player; 2]],
    threads: usize,
    explore: f64,
    variants: &str,
    label: Label,
) {
    let sets: Vec<&str> = variants.split('+').collect();
    let mut data: Vec<Sample> = Vec::new();
    for pair in pairs {
        let part: Vec<Sample> = run_parallel(
            threads,
            games,
            |all: &mut Vec<Sample>, part| all.extend(part),
            |range| {
                range
                    .flat_map(|i| play(*pair, SEED0 + i, explore, sets[i % sets.len()], label))
                    .collect()
            },
        );
        println!("{} vs {}: {} positions", pair[0], pair[1], part.len());
        data.extend(part);
    }
    let (train, check): (Vec<Sample>, Vec<Sample>) = data.into_iter().partition(|s| s.0 % 5 != 0);
    println!(
        "{} positions to fit, {} to check (every fifth game)",
        train.len(),
        check.len()
    );
    let cost_only: Vec<usize> = vec![0, 1, 2];
    let all: Vec<usize> = (0..FEATURES).collect();
    for (name, used) in [
        ("the expert's cost alone", cost_only),
        ("every feature", all),
    ] {
        let w = fit(&train, &used);
        println!(
            "{name}: log loss {:.4} fitted, {:.4} checked; accuracy {:.1}% checked",
            loss(&train, &w),
            loss(&check, &w),
            100.0 * accuracy(&check, &w)
        );
        // The chance should fall as the own rack's cost grows: the share of positions where
        // the fitted slope in ln(1 + c) is not negative.
        let rising = check
            .iter()
            .filter(|(_, x, _)| {
                x[1] > 0.0 && (1..4).chain([9]).map(|k| w[k] * x[k]).sum::<f64>() >= 0.0
            })
            .count();
        println!(
            "  slope in the own cost not negative at {:.2}% of the checked positions",
            100.0 * rising as f64 / check.len().max(1) as f64
        );
        if used.len() == FEATURES {
            println!("pub const WEIGHTS: [f32; FEATURES] = [");
            for (k, name) in NAMES.iter().enumerate() {
                println!("    {:.4}, // {name}", w[k]);
            }
            println!("];");
            let list: Vec<String> = w.iter().map(|x| format!("{x:.4}")).collect();
            println!("--weights {}", list.join(","));
        }
    }
}

/// Game `game` of the pairing, 2 players, the variant set `set` (as `--variants`): the first
/// player's positions.
fn play(pair: [Player; 2], game: usize, explore: f64, set: &str, label: Label) -> Vec<Sample> {
    let options = match options_for(set, 2, game) {
        Ok(o) => o,
        Err(e) => panic!("{e}"),
    };
    let seats = seating(2, false, game);
    let mine = seats.iter().position(|k| *k == 0).unwrap_or(0);
    let mut found: Vec<(u32, [f64; FEATURES])> = Vec::new();
    let player = |seat: u8, view: &View, seed: u64| {
        if usize::from(seat) != mine {
            return pair[1].decide(None, view, seed);
        }
        let mut action = pair[0].decide(None, view, seed);
        let choices: Vec<Action> = view
            .legal_actions
            .iter()
            .copied()
            .filter(|a| {
                matches!(
                    a,
                    Action::Draw
                        | Action::TakeDiscard { .. }
                        | Action::PlaceDrawn { .. }
                        | Action::DiscardDrawn
                )
            })
            .collect();
        let roll = (seed >> 11) as f64 / (1u64 << 53) as f64;
        if !choices.is_empty() && !view.legal_actions.contains(&Action::CallRacko) && roll < explore
        {
            action = choices.get((seed % choices.len() as u64) as usize).copied();
        }
        if let Some(x) = action.as_ref().and_then(|a| learned::sample(view, a)) {
            found.push((view.round, x.map(f64::from)));
        }
        action
    };
    let record = match play_game(&options, game as u64 + 1, 200_000, player) {
        Ok(r) => r,
        Err(e) => panic!("game {game}: {e}"),
    };
    found
        .into_iter()
        .filter_map(|(round, x)| {
            let scores = &record.rounds.get(round.checked_sub(1)? as usize)?.scores;
            let (me, other) = (scores.get(mine)?, scores.get(1 - mine)?);
            let y = if label == Label::Game {
                let won = record.winners.iter().any(|w| usize::from(*w) == mine);
                if won {
                    1.0 / record.winners.len() as f64
                } else {
                    0.0
                }
            } else if label == Label::Points {
                // The round's points margin, as a share between 0 and 1.
                (0.5 + (f64::from(*me) - f64::from(*other)) / (2.0 * MARGIN)).clamp(0.0, 1.0)
            } else {
                match me.cmp(other) {
                    std::cmp::Ordering::Greater => 1.0,
                    std::cmp::Ordering::Equal => 0.5,
                    std::cmp::Ordering::Less => 0.0,
                }
            };
            Some((game, x, y))
        })
        .collect()
}

fn logit(x: &[f64; FEATURES], w: &[f64; FEATURES]) -> f64 {
    x.iter().zip(w).map(|(a, b)| a * b).sum()
}

fn loss(data: &[Sample], w: &[f64; FEATURES]) -> f64 {
    let total: f64 = data
        .iter()
        .map(|(_, x, y)| {
            let p = (1.0 / (1.0 + (-logit(x, w)).exp())).clamp(1e-9, 1.0 - 1e-9);
            -(y * p.ln() + (1.0 - y) * (1.0 - p).ln())
        })
        .sum();
    total / data.len().max(1) as f64
}

fn accuracy(data: &[Sample], w: &[f64; FEATURES]) -> f64 {
    let right = data
        .iter()
        .filter(|(_, x, y)| *y != 0.5 && (logit(x, w) > 0.0) == (*y > 0.5))
        .count();
    right as f64 / data.iter().filter(|s| s.2 != 0.5).count().max(1) as f64
}

/// Logistic regression on the features `used` (the others stay 0), by Newton's method with a
/// little ridge (1e-3 per position, not on the bias) to keep the steps defined.
fn fit(data: &[Sample], used: &[usize]) -> [f64; FEATURES] {
    let n = used.len();
    let mut w = [0.0f64; FEATURES];
    let ridge = 1e-3 * data.len() as f64;
    for _ in 0..30 {
        let mut grad = vec![0.0f64; n];
        let mut hess = vec![vec![0.0f64; n]; n];
        for (_, x, y) in data {
            let p = 1.0 / (1.0 + (-logit(x, &w)).exp());
            let s = p * (1.0 - p);
            for a in 0..n {
                grad[a] += (p - y) * x[used[a]];
                for b in 0..=a {
                    hess[a][b] += s * x[used[a]] * x[used[b]];
                }
            }
        }
        for a in 0..n {
            let row = hess[a].clone();
            for (b, value) in row.iter().enumerate().take(a) {
                hess[b][a] = *value;
            }
            if used[a] != 0 {
                grad[a] += ridge * w[used[a]];
                hess[a][a] += ridge;
            }
        }
        let Some(step) = solve(hess, grad) else {
            break;
        };
        let mut moved = 0.0f64;
        for a in 0..n {
            w[used[a]] -= step[a];
            moved = moved.max(step[a].abs());
        }
        if moved < 1e-7 {
            break;
        }
    }
    w
}

/// Solves `m · x = v` by Gaussian elimination with partial pivoting; None when singular.
fn solve(mut m: Vec<Vec<f64>>, mut v: Vec<f64>) -> Option<Vec<f64>> {
    let n = v.len();
    for col in 0..n {
        let pivot = (col..n).max_by(|a, b| m[*a][col].abs().total_cmp(&m[*b][col].abs()))?;
        if m[pivot][col].abs() < 1e-12 {
            return None;
        }
        m.swap(col, pivot);
        v.swap(col, pivot);
        let top = m[col].clone();
        for row in col + 1..n {
            let f = m[row][col] / top[col];
            for (cell, above) in m[row].iter_mut().zip(&top).skip(col) {
                *cell -= f * above;
            }
            v[row] -= f * v[col];
        }
    }
    let mut x = vec![0.0f64; n];
    for row in (0..n).rev() {
        let rest: f64 = (row + 1..n).map(|k| m[row][k] * x[k]).sum();
        x[row] = (v[row] - rest) / m[row][row];
    }
    Some(x)
}
