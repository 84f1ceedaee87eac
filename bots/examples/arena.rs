//! The arena: plays N games per pairing of levels and prints how strong each level is.
//!
//! ```text
//! cargo run --release -p racko-bots --example arena -- [--games N] [--players 2|3|4]
//!     [--variants default|bonus|blitz|choice|partner|all] [--threads T] [--alone N]
//!     [--pairs strong-basic,basic-random,strong-random]
//! ```
//!
//! With 2 players every pair of levels meets; with 3 or 4, one seat of the first level against
//! seats of the second; with `partner` (4 players) a team against a team. Seats are drawn at
//! random for each game (the seat matters: seat 0 deals first). `all` cycles the variants game
//! by game. `--alone N` plays N solo deals per level: one rack, the 2-player deck, no
//! opponent (an event card drawn is laid away with no effect), counting turns from the deal to
//! an ordered rack.

use std::time::Instant;

use racko_bots::table::{play_game, GameRecord};
use racko_bots::{decide, Level};
use racko_rules::score::in_order;
use racko_rules::{
    Action, BlitzMode, Card, Options, Phase, Seat, Slot, SlotCard, TurnStage, View, Viewer,
};

struct Args {
    games: usize,
    players: u8,
    variants: String,
    threads: usize,
    alone: usize,
    /// The pairings to play, as `first-second` level names.
    pairs: Vec<[Level; 2]>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        games: 1000,
        players: 2,
        variants: "default".into(),
        threads: 1,
        alone: 0,
        pairs: vec![
            [Level::Strong, Level::Basic],
            [Level::Basic, Level::Random],
            [Level::Strong, Level::Random],
        ],
    };
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
            "--pairs" => args.pairs = parse_pairs(&value)?,
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    Ok(args)
}

/// `strong-basic,basic-random`: each pairing as first-second.
fn parse_pairs(text: &str) -> Result<Vec<[Level; 2]>, String> {
    text.split(',')
        .map(|pair| {
            let (a, b) = pair
                .split_once('-')
                .ok_or(format!("{pair}: write first-second"))?;
            let level = |s: &str| s.parse::<Level>().map_err(|e| e.to_string());
            Ok([level(a)?, level(b)?])
        })
        .collect()
}

/// The options of game `i` of a variant set.
fn options_for(set: &str, players: u8, i: usize) -> Result<Options, String> {
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
        let [a, b] = other.times;
        self.times[0].extend(a);
        self.times[1].extend(b);
    }
}

/// Which level (0 = first, 1 = second) sits in each seat of game `i`.
fn seating(players: u8, partner: bool, i: usize) -> Vec<usize> {
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

fn play_pairing(args: &Args, levels: [Level; 2], games: std::ops::Range<usize>) -> Tally {
    let mut tally = Tally::default();
    for i in games {
        let options = match options_for(&args.variants, args.players, i) {
            Ok(o) => o,
            Err(e) => panic!("{e}"),
        };
        let seats = seating(options.players, options.partner, i);
        let times = &mut tally.times;
        let player = |seat: Seat, view: &View, seed: u64| {
            let k = seats[usize::from(seat)];
            let start = Instant::now();
            let action = decide(levels[k], view, seed);
            times[k].push(start.elapsed().as_nanos().min(u128::from(u32::MAX)) as u32);
            action
        };
        let record = match play_game(&options, i as u64 + 1, 200_000, player) {
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
        if matches!(round.end, racko_rules::RoundEnd::Racko { .. }) {
            tally.racko_rounds += 1;
            tally.racko_turns += f64::from(round.turns);
        }
    }
}

fn percentile(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let at = ((sorted.len() - 1) as f64 * p).round() as usize;
    f64::from(sorted[at]) / 1000.0
}

fn run_parallel<T: Send + Default>(
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

fn report(args: &Args, levels: [Level; 2], mut tally: Tally) {
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
}

/// One solo deal: turns from the deal until the rack is in order (cut off at 2,000).
fn alone(level: Level, deal: u64) -> u32 {
    let options = Options::default();
    let counts = options.deck_counts();
    let mut rng = deal.wrapping_mul(0x2545_f491_4f6c_dd1d) | 1;
    let mut below = |n: usize| -> usize {
        rng ^= rng >> 12;
        rng ^= rng << 25;
        rng ^= rng >> 27;
        (rng.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n.max(1)
    };
    let shuffle = |cards: &mut Vec<Card>, below: &mut dyn FnMut(usize) -> usize| {
        for i in (1..cards.len()).rev() {
            cards.swap(i, below(i + 1));
        }
    };
    let mut numbers: Vec<Card> = (1..=counts.max_number)
        .map(|value| Card::Number { value })
        .collect();
    shuffle(&mut numbers, &mut below);
    let mut rack: Vec<Card> = numbers.drain(..12).collect();
    let mut stock = numbers;
    for (card, count) in counts.others() {
        stock.extend(std::iter::repeat_n(card, usize::from(count)));
    }
    shuffle(&mut stock, &mut below);
    let mut discard = vec![stock.pop().expect("a full deck")];
    let mut turns = 0;
    let mut step = 0u64;
    while !in_order(&rack) && turns < 2000 {
        turns += 1;
        let mut drawn: Option<Card> = None;
        loop {
            let stage = if drawn.is_some() {
                TurnStage::Drawn
            } else {
                TurnStage::Begin
            };
            let mut legal = Vec::new();
            if drawn.is_some() {
                legal.extend(Slot::all().map(|slot| Action::PlaceDrawn { slot }));
                legal.push(Action::DiscardDrawn);
            } else {
                if discard.last().is_some_and(Card::is_playable) {
                    legal.extend(Slot::all().map(|slot| Action::TakeDiscard { slot }));
                }
                if !stock.is_empty() || discard.len() > 1 {
                    legal.push(Action::Draw);
                }
            }
            let view = solo_view(&options, &rack, drawn, &discard, stock.len(), stage, legal);
            step += 1;
            let action = decide(level, &view, deal ^ step).expect("an awaited seat acts");
            match action {
                Action::TakeDiscard { slot } | Action::PlaceDrawn { slot } => {
                    let card = drawn
                        .take()
                        .or_else(|| discard.pop())
                        .expect("a card to place");
                    let i = slot.index().expect("a legal slot");
                    discard.push(std::mem::replace(&mut rack[i], card));
                    break;
                }
                Action::DiscardDrawn => {
                    discard.extend(drawn.take());
                    break;
                }
                Action::Draw => {
                    if stock.is_empty() {
                        let top = discard.pop().expect("a top card");
                        stock = std::mem::take(&mut discard);
                        shuffle(&mut stock, &mut below);
                        discard.push(top);
                    }
                    let card = stock.pop().expect("a card to draw");
                    if card.is_event() {
                        // No opponent: the event is laid away and the turn ends.
                        discard.push(card);
                        break;
                    }
                    drawn = Some(card);
                }
                other => panic!("{other:?} in a solo turn"),
            }
        }
    }
    turns
}

fn solo_view(
    options: &Options,
    rack: &[Card],
    drawn: Option<Card>,
    discard: &[Card],
    stock_size: usize,
    stage: TurnStage,
    legal_actions: Vec<Action>,
) -> View {
    View {
        viewer: Viewer::Seat { seat: 0 },
        options: options.clone(),
        phase: Phase::Turn { seat: 0, stage },
        round: 1,
        dealer: Some(1),
        start_seat: Some(0),
        turn: Some(0),
        awaiting: vec![0],
        rack: Some(
            rack.iter()
                .enumerate()
                .map(|(i, card)| SlotCard {
                    slot: Slot::from_index(i),
                    card: Some(*card),
                })
                .collect(),
        ),
        racks: None,
        drawn,
        blitz_card: None,
        blitz_placed: Vec::new(),
        discard: discard.to_vec(),
        stock_size: stock_size as u32,
        seed_commitment: None,
        round_scores: Vec::new(),
        totals: vec![0, 0],
        team_totals: None,
        legal_actions,
        last_round: None,
        winners: None,
        resigned: Vec::new(),
        timeouts: vec![0, 0],
    }
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("arena: {e}");
            std::process::exit(2);
        }
    };
    if args.alone > 0 {
        for level in Level::ALL {
            let n = args.alone;
            let turns: Vec<u32> = run_parallel(
                args.threads,
                n,
                |all: &mut Vec<u32>, part| all.extend(part),
                |range| range.map(|d| alone(level, d as u64 + 1)).collect(),
            );
            let mean = turns.iter().map(|t| f64::from(*t)).sum::<f64>() / n as f64;
            let var = turns
                .iter()
                .map(|t| (f64::from(*t) - mean).powi(2))
                .sum::<f64>()
                / n as f64;
            let cut = turns.iter().filter(|t| **t >= 2000).count();
            println!(
                "alone {level:>6}: {mean:.1} ± {:.1} turns from the deal to an ordered rack ({n} deals, {cut} cut off at 2000)",
                1.96 * (var / n as f64).sqrt()
            );
        }
        return;
    }
    for levels in args.pairs.clone() {
        let start = Instant::now();
        let tally = run_parallel(args.threads, args.games, Tally::merge, |range| {
            play_pairing(&args, levels, range)
        });
        report(&args, levels, tally);
        println!("  ({:.1} s)", start.elapsed().as_secs_f64());
    }
}
