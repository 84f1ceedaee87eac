//! The decision-time benchmark: every decision of N games per level, each level playing
//! itself (2 players, the variants cycled as `all` does), timed one at a time on this thread.

use std::time::Instant;

use racko_bots::table::play_game;
use racko_bots::{decide, Level};
use racko_rules::{BlitzMode, Options};

fn options(i: usize) -> Options {
    let base = Options::default();
    match i % 4 {
        0 => base,
        1 => Options {
            bonus: true,
            ..base
        },
        2 => Options {
            blitz: BlitzMode::EveryRound,
            ..base
        },
        _ => Options {
            blitz: BlitzMode::DealersChoice,
            ..base
        },
    }
}

fn at(sorted: &[u64], p: f64) -> f64 {
    let i = ((sorted.len().saturating_sub(1)) as f64 * p).round() as usize;
    sorted.get(i).map_or(0.0, |ns| *ns as f64 / 1e6)
}

pub fn run(games: usize) {
    println!("| level | games | decisions | p50 ms | p99 ms | max ms |");
    println!("|---|---|---|---|---|---|");
    for level in Level::ALL.into_iter().filter(|l| *l != Level::Random) {
        let mut times: Vec<u64> = Vec::new();
        for i in 0..games {
            let player = |_, view: &_, seed| {
                let start = Instant::now();
                let action = decide(level, view, seed);
                times.push(start.elapsed().as_nanos() as u64);
                action
            };
            if let Err(e) = play_game(&options(i), i as u64 + 1, 200_000, player) {
                panic!("game {i}: {e}");
            }
        }
        times.sort_unstable();
        println!(
            "| {level} | {games} | {} | {:.3} | {:.3} | {:.3} |",
            times.len(),
            at(&times, 0.5),
            at(&times, 0.99),
            times.last().map_or(0.0, |ns| *ns as f64 / 1e6)
        );
    }
}
