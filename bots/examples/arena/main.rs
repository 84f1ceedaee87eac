//! The arena: plays N games per pairing of players and prints how strong each is, ending
//! with a table of win rates and their 95 % confidence intervals. Seeded: the same command
//! prints the same figures (decision times aside).
//!
//! ```text
//! cargo run --release -p racko-bots --example arena -- [--games N] [--players 2|3|4]
//!     [--variants default|bonus|blitz|choice|partner|noswap|noevents|all] [--threads T] [--alone N]
//!     [--pairs expert-max,strong-max,expert-strong] [--tuning joker_share=0.1,...]
//!     [--bench N] [--learn N [--explore P] [--label round|points|game]] [--weights w1,w2,...]
//! ```
//!
//! A player is a level (random, basic, strong, expert), a sparring partner (max, band: see
//! `racko_bots::sparring`), `tuned` (the expert with the `--tuning` weights), or a measuring
//! player that cheats at the take-or-draw choice, never a level (`oracle`: sees the next card
//! of the stock and the other racks; `swaporacle`: sees only whether the next card is a rack
//! swap, and the other rack; see `racko_bots::oracle`), or one that plans with the whole
//! future of the round (`foresight`, `placesight` for its placings only, `cardsight` not
//! knowing the other player, `horizonT` seeing T turns ahead; see `racko_bots::foresight`).
//! Each pairing is
//! first-second: with 2 players one against one; with 3 or 4, one seat of the first against
//! seats of the second; with `partner` (4 players) a team against a team. Seats are drawn at
//! random for each game (the seat matters: seat 0 deals first). `all` cycles the variants game
//! by game; `noswap` and `noevents` are the default deck without rack swaps (without any event
//! card), to measure what those cards do to a pairing. `--alone N` plays N solo deals per level: one rack, the 2-player deck, no
//! opponent (an event card drawn is laid away with no effect), counting turns from the deal to
//! an ordered rack. `--bench N` times every decision of N self-play games per level, one
//! thread (`scripts/bench-bots.sh`). `--learn N` fits the ninth round's learned valuation of
//! the round on N games per pairing (see `learn.rs`); `learned` and `learnedtake` play by it,
//! with `--weights` or `racko_bots::learned::WEIGHTS`.

use std::time::Instant;

mod alone;
mod bench;
mod learn;
mod players;
mod report;

use racko_bots::table::{play_game_seeing, GameRecord};
use racko_rules::{BlitzMode, Game, Options, Seat, View};

use players::{Player, Weights};

struct Args {
    games: usize,
    players: u8,
    variants: String,
    threads: usize,
    alone: usize,
    /// The pairings to play, as `first-second` player names.
    pairs: Vec<[Player; 2]>,
    /// Games per level for the decision-time benchmark (0: none).
    bench: usize,
    /// Games per pairing to learn from (0: none), and the share of random choices in them.
    learn: usize,
    explore: f64,
    /// What `--learn` fits (`--label round|points|game`).
    label: learn::Label,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        games: 1000,
        players: 2,
        variants: "default".into(),
        threads: 1,
        alone: 0,
        pairs: Vec::new(),
        bench: 0,
        learn: 0,
        explore: 0.0,
        label: learn::Label::Round,
    };
    let mut weights = racko_bots::learned::WEIGHTS;
    let mut pairs = "expert-max,strong-max,expert-strong".to_string();
    let mut tunings = vec![racko_bots::expert::TUNED];
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or(format!("{flag} needs a value"))?;
        let number = || value.parse::<usize>().map_err(|e| format!("{flag}: {e}"));
        match flag.as_str() {
            "--games" => args.games = number()?,
            "--players" => args.players = number()? as u8,
            "--variants" => args.variants = value.clone(),
            "--threads" => args.threads = number()?.max(1),
            "--alone" => args.alone = number()?,
            "--pairs" => pairs = value.clone(),
            "--tuning" => tunings = players::parse_tunings(&value)?,
            "--bench" => args.bench = number()?,
            "--learn" => args.learn = number()?,
            "--explore" => args.explore = value.parse().map_err(|e| format!("{flag}: {e}"))?,
            "--label" => {
                args.label = match value.as_str() {
                    "round" => learn::Label::Round,
                    "points" => learn::Label::Points,
                    "game" => learn::Label::Game,
                    _ => return Err(format!("--label {value}: round, points or game")),
                }
            }
            "--weights" => weights = players::parse_weights(&value)?,
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    args.pairs = parse_pairs(&pairs, &tunings, weights)?;
    Ok(args)
}

/// `strong-basic,expert-max`: each pairing as first-second.
fn parse_pairs(
    text: &str,
    tunings: &[racko_bots::Tuning],
    weights: Weights,
) -> Result<Vec<[Player; 2]>, String> {
    text.split(',')
        .map(|pair| {
            let (a, b) = pair
                .split_once('-')
                .ok_or(format!("{pair}: write first-second"))?;
            Ok([
                Player::parse(a, tunings, weights)?,
                Player::parse(b, tunings, weights)?,
            ])
        })
        .collect()
}

/// The options of game `i` of a variant set.
pub(crate) fn options_for(set: &str, players: u8, i: usize) -> Result<Options, String> {
    let base = Options {
        players,
        ..Options::default()
    };
    let one = |name: &str| -> Result<Options, String> {
        Ok(match name {
            "default" => base.clone(),
            "bonus" => Options {
                bonus: true,
                ..base.clone()
            },
            "blitz" => Options {
                blitz: BlitzMode::EveryRound,
                ..base.clone()
            },
            "choice" => Options {
                blitz: BlitzMode::DealersChoice,
                ..base.clone()
            },
            "noswap" | "noevents" => {
                let mut deck = racko_rules::DeckCounts::default_for(players).ok_or("players")?;
                deck.rack_swaps = 0;
                if name == "noevents" {
                    deck.card_swaps = 0;
                    deck.skips = 0;
                }
                Options {
                    deck: Some(deck),
                    ..base.clone()
                }
            }
            "partner" => Options {
                players: 4,
                partner: true,
                ..base.clone()
            },
            _ => return Err(format!("unknown variant set {name}")),
        })
    };
    if set == "all" {
        let mut names = vec!["default", "bonus", "blitz", "choice"];
        if players == 4 {
            names.push("partner");
        }
        one(names[i % names.len()])
    } else {
        one(set)
    }
}

#[derive(Default)]
struct Tally {
    games: usize,
    unfinished: usize,
    /// Win share of the first level (a shared win counts by parts).
    share: f64,
    /// By level index (first, second): points and seat-rounds.
    points: [f64; 2],
    seat_rounds: [f64; 2],
    racko_rounds: usize,
    racko_turns: f64,
    /// Rounds ended by a Racko, by the parity of the rack swaps in them: [rounds, first's].
    by_swaps: [[f64; 2]; 2],
    /// Decision times in nanoseconds, by level index.
    times: [Vec<u32>; 2],
}

impl Tally {
    fn merge(&mut self, other: Tally) {
        self.games += other.games;
        self.unfinished += other.unfinished;
        self.share += other.share;
        for k in 0..2 {
            self.points[k] += other.points[k];
            self.seat_rounds[k] += other.seat_rounds[k];
        }
        self.racko_rounds += other.racko_rounds;
        self.racko_turns += other.racko_turns;
        for p in 0..2 {
            for k in 0..2 {
                self.by_swaps[p][k] += other.by_swaps[p][k];
            }
        }
        let [a, b] = other.times;
        self.times[0].extend(a);
        self.times[1].extend(b);
    }
}

/// Which level (0 = first, 1 = second) sits in each seat of game `i`.
pub(crate) fn seating(players: u8, partner: bool, i: usize) -> Vec<usize> {
    let mix = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 33;
    let n = usize::from(players);
    if partner {
        // Team 0 holds seats 0 and 2; the first level gets team (mix % 2).
        let team = (mix % 2) as usize;
        return (0..n).map(|s| usize::from(s % 2 != team)).collect();
    }
    let first = (mix % n as u64) as usize;
    (0..n).map(|s| usize::from(s != first)).collect()
}

fn play_pairing(args: &Args, levels: [Player; 2], games: std::ops::Range<usize>) -> Tally {
    let mut tally = Tally::default();
    for i in games {
        let options = match options_for(&args.variants, args.players, i) {
            Ok(o) => o,
            Err(e) => panic!("{e}"),
        };
        let seats = seating(options.players, options.partner, i);
        let times = &mut tally.times;
        let player = |game: &Game, seat: Seat, view: &View, seed: u64| {
            let k = seats[usize::from(seat)];
            let start = Instant::now();
            let action = levels[k].decide(Some((game, seat, levels[1 - k])), view, seed);
            times[k].push(start.elapsed().as_nanos().min(u128::from(u32::MAX)) as u32);
            action
        };
        let record = match play_game_seeing(&options, i as u64 + 1, 200_000, player) {
            Ok(r) => r,
            Err(e) => panic!("game {i}: {e}"),
        };
        add_game(&mut tally, &record, &seats, options.partner);
    }
    tally
}

fn add_game(tally: &mut Tally, record: &GameRecord, seats: &[usize], partner: bool) {
    tally.games += 1;
    if !record.finished() {
        tally.unfinished += 1;
    } else {
        // A share of the win by side (a team with Partner, else a seat): ties split it.
        let side = |s: &Seat| {
            if partner {
                usize::from(*s % 2)
            } else {
                usize::from(*s)
            }
        };
        let mut sides: Vec<usize> = record.winners.iter().map(side).collect();
        sides.sort_unstable();
        sides.dedup();
        let ours = sides.iter().filter(|w| seats[**w] == 0).count();
        tally.share += ours as f64 / sides.len() as f64;
    }
    for round in &record.rounds {
        for (seat, score) in round.scores.iter().enumerate() {
            let k = seats[seat];
            tally.points[k] += f64::from(*score);
            tally.seat_rounds[k] += 1.0;
        }
        if let racko_rules::RoundEnd::Racko { seat } = round.end {
            let p = (round.rack_swaps % 2) as usize;
            tally.by_swaps[p][0] += 1.0;
            if seats[usize::from(seat)] == 0 {
                tally.by_swaps[p][1] += 1.0;
            }
            tally.racko_rounds += 1;
            tally.racko_turns += f64::from(round.turns);
        }
    }
}

pub(crate) fn run_parallel<T: Send + Default>(
    threads: usize,
    total: usize,
    merge: impl Fn(&mut T, T),
    work: impl Fn(std::ops::Range<usize>) -> T + Sync,
) -> T {
    let chunk = total.div_ceil(threads);
    let parts: Vec<T> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let work = &work;
                scope.spawn(move || work(t * chunk..((t + 1) * chunk).min(total)))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a worker failed"))
            .collect()
    });
    let mut all = T::default();
    for part in parts {
        merge(&mut all, part);
    }
    all
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("arena: {e}");
            std::process::exit(2);
        }
    };
    if args.bench > 0 {
        bench::run(args.bench);
        return;
    }
    if args.learn > 0 {
        learn::run(
            args.learn,
            &args.pairs,
            args.threads,
            args.explore,
            &args.variants,
            args.label,
        );
        return;
    }
    if args.alone > 0 {
        let mut seen: Vec<Player> = Vec::new();
        for player in args.pairs.iter().flatten() {
            if !seen.contains(player) {
                seen.push(*player);
            }
        }
        for player in seen {
            let n = args.alone;
            let turns: Vec<u32> = run_parallel(
                args.threads,
                n,
                |all: &mut Vec<u32>, part| all.extend(part),
                |range| range.map(|d| alone::alone(player, d as u64 + 1)).collect(),
            );
            let mean = turns.iter().map(|t| f64::from(*t)).sum::<f64>() / n as f64;
            let var = turns
                .iter()
                .map(|t| (f64::from(*t) - mean).powi(2))
                .sum::<f64>()
                / n as f64;
            let cut = turns.iter().filter(|t| **t >= 2000).count();
            println!(
                "alone {player:>6}: {mean:.1} ± {:.1} turns from the deal to an ordered rack ({n} deals, {cut} cut off at 2000)",
                1.96 * (var / n as f64).sqrt()
            );
        }
        return;
    }
    let mut table = Vec::new();
    for levels in args.pairs.clone() {
        let start = Instant::now();
        let tally = run_parallel(args.threads, args.games, Tally::merge, |range| {
            play_pairing(&args, levels, range)
        });
        table.push(report::report(&args, levels, tally));
        println!("  ({:.1} s)", start.elapsed().as_secs_f64());
    }
    println!();
    println!("| first | against | players | variants | games | first wins | 95% CI | fair share (wins ×) |");
    println!("|---|---|---|---|---|---|---|---|");
    for line in table {
        println!("{line}");
    }
}
