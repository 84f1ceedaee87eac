//! The figures the arena prints for one pairing, and its line of the closing table.

use crate::players::Player;
use crate::{Args, Tally};

fn percentile(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let at = ((sorted.len() - 1) as f64 * p).round() as usize;
    f64::from(sorted[at]) / 1000.0
}

/// Prints the pairing's figures and returns its line of the closing table.
pub fn report(args: &Args, levels: [Player; 2], mut tally: Tally) -> String {
    let partner = args.variants == "partner";
    let n = (tally.games - tally.unfinished).max(1) as f64;
    let p = tally.share / n;
    let ci = 1.96 * (p * (1.0 - p) / n).sqrt();
    let players = if partner { 4 } else { args.players };
    let fair = if partner {
        0.5
    } else {
        1.0 / f64::from(players)
    };
    let shape = if partner {
        "team vs team".to_string()
    } else if players == 2 {
        "1 vs 1".to_string()
    } else {
        format!("1 vs {}", players - 1)
    };
    println!(
        "{} vs {} ({shape}, {} players, variants {}): {} games, {} cut off",
        levels[0], levels[1], players, args.variants, tally.games, tally.unfinished
    );
    println!(
        "  {} wins {:.1}% ± {:.1}% (95% CI; fair share {:.1}%)",
        levels[0],
        100.0 * p,
        100.0 * ci,
        100.0 * fair
    );
    for (k, level) in levels.iter().enumerate() {
        let times = &mut tally.times[k];
        times.sort_unstable();
        println!(
            "  {:>6}: {:.1} points per seat and round; decision p50 {:.1} µs, p99 {:.1} µs ({} decisions)",
            level,
            tally.points[k] / tally.seat_rounds[k].max(1.0),
            percentile(times, 0.5),
            percentile(times, 0.99),
            times.len()
        );
    }
    println!(
        "  mean turns to a Racko: {:.1} (all seats together, {} rounds ended by Racko)",
        tally.racko_turns / (tally.racko_rounds.max(1) as f64),
        tally.racko_rounds
    );
    for (p, name) in ["an even number of", "an odd number of"].iter().enumerate() {
        let [rounds, first] = tally.by_swaps[p];
        println!(
            "  rounds with {name} rack swaps: {rounds} ({:.1}%), Racko called by the first: {:.1}%",
            100.0 * rounds / (tally.racko_rounds.max(1) as f64),
            100.0 * first / rounds.max(1.0)
        );
    }
    format!(
        "| {} | {} ({shape}) | {players} | {} | {} | {:.1}% | ± {:.1}% | {:.1}% ({:.2}×) |",
        levels[0],
        levels[1],
        args.variants,
        tally.games,
        100.0 * p,
        100.0 * ci,
        100.0 * fair,
        p / fair
    )
}
