//! Engine throughput on one core: complete random games per second, and applied actions per
//! second (each step is `legal_actions` of the acting seat, then `apply_mut`), across every
//! variant. Run: `cargo bench -p racko-rules --bench engine`.
//!
//! The games are played by a light band policy (each slot keeps to its twelfth of the numbers;
//! Racko is called when a rack is in order) with 10% random legal actions. The "actions" bench
//! replays recorded games, so that it measures the engine alone.

use std::hint::black_box;
use std::time::Instant;

use criterion::{Criterion, Throughput};
use racko_rules::{
    score, Action, BlitzMode, Card, Event, Game, Options, Phase, RoundDeal, Seat, Seed, Slot,
    TurnStage,
};
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};

/// Every combination of players (2, 3, 4, 4 with Partner), Bonus and Blitz mode.
fn variants() -> Vec<Options> {
    let mut all = Vec::new();
    for (players, partner) in [(2, false), (3, false), (4, false), (4, true)] {
        for bonus in [false, true] {
            for blitz in [
                BlitzMode::Off,
                BlitzMode::EveryRound,
                BlitzMode::DealersChoice,
            ] {
                all.push(Options {
                    players,
                    partner,
                    bonus,
                    blitz,
                    target: 300,
                    ..Options::default()
                });
            }
        }
    }
    all
}

fn band(value: u16, max: u16) -> usize {
    (usize::from(value - 1) * 12 / usize::from(max)).min(11)
}

fn fits(card: Card, index: usize, max: u16) -> bool {
    match card {
        Card::Joker => true,
        Card::Number { value } => band(value, max) == index,
        _ => false,
    }
}

/// The slot where `card` improves the rack, if any.
fn target(card: Card, rack: &[Card; 12], max: u16) -> Option<Slot> {
    let index = match card {
        Card::Number { value } => band(value, max),
        Card::Joker => (0..12).find(|&i| !fits(rack[i], i, max))?,
        _ => return None,
    };
    (!fits(rack[index], index, max)).then(|| Slot::from_index(index))
}

/// One step of the policy: the acting seat's legal actions are always listed (as a server
/// would, to offer them), then one is picked.
fn choose(game: &Game, drawn: Option<Card>, rng: &mut StdRng) -> Option<(Seat, Action)> {
    if let Phase::Turn { .. } = game.phase() {
        for seat in 0..game.options().players {
            if score::in_order(&game.rack(seat)?.0) && rng.random_bool(0.9) {
                return Some((seat, Action::CallRacko));
            }
        }
    }
    let seat = *game.awaiting().choose(rng)?;
    let legal = game.legal_actions(seat);
    let random = *legal.choose(rng)?;
    if rng.random_bool(0.1) {
        return Some((seat, random));
    }
    let max = game.options().deck_counts().max_number;
    let rack = &game.rack(seat)?.0;
    let action = match game.phase() {
        Phase::Turn {
            stage: TurnStage::Begin,
            ..
        } => {
            let top = game.discard_pile().last().copied();
            match top.and_then(|card| target(card, rack, max)) {
                Some(slot) => Action::TakeDiscard { slot },
                None if legal.contains(&Action::Draw) => Action::Draw,
                None => random,
            }
        }
        Phase::Turn {
            stage: TurnStage::Drawn,
            ..
        } => match drawn.and_then(|c| target(c, rack, max)) {
            Some(slot) => Action::PlaceDrawn { slot },
            None => Action::DiscardDrawn,
        },
        _ => random,
    };
    Some((seat, action))
}

/// What a game consists of: deals and actions, in order.
enum Step {
    Deal(RoundDeal),
    Act(Seat, Action),
}

/// Plays one complete game; returns its steps.
fn play(options: Options, seed: u64) -> Vec<Step> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut game = Game::new(options).expect("valid options");
    let mut steps = Vec::new();
    let mut drawn = None;
    while !game.is_over() && steps.len() < 20_000 {
        if game.needs_round() {
            let deal = RoundDeal {
                seed: Seed(rng.random()),
                stacked: None,
            };
            game.start_round_mut(&deal).expect("a deal");
            steps.push(Step::Deal(deal));
            continue;
        }
        let (seat, action) = choose(&game, drawn, &mut rng).expect("someone acts");
        let events = game.apply_mut(seat, &action).expect("a legal action");
        for event in &events {
            if let Event::Drew { card, .. } = event {
                drawn = *card;
            }
        }
        steps.push(Step::Act(seat, action));
    }
    steps
}

/// Replays recorded games: `legal_actions` of the acting seat, then `apply_mut`, per action.
fn replay(games: &[(Options, Vec<Step>)]) -> usize {
    let mut actions = 0;
    for (options, steps) in games {
        let mut game = Game::new(options.clone()).unwrap();
        for step in steps {
            match step {
                Step::Deal(deal) => drop(game.start_round_mut(deal).unwrap()),
                Step::Act(seat, action) => {
                    black_box(game.legal_actions(*seat));
                    black_box(game.apply_mut(*seat, action).unwrap());
                    actions += 1;
                }
            }
        }
    }
    actions
}

fn recorded(round: u64) -> Vec<(Options, Vec<Step>)> {
    variants()
        .into_iter()
        .enumerate()
        .map(|(i, options)| (options.clone(), play(options, round * 100 + i as u64)))
        .collect()
}

fn count_actions(games: &[(Options, Vec<Step>)]) -> usize {
    games
        .iter()
        .flat_map(|(_, s)| s)
        .filter(|s| matches!(s, Step::Act(..)))
        .count()
}

/// A plain timing first, so that the two figures are printed in one place.
fn summary() {
    let games = recorded(1);
    let actions = count_actions(&games);
    let start = Instant::now();
    let mut rounds = 0;
    while start.elapsed().as_secs_f64() < 2.0 {
        black_box(replay(&games));
        rounds += 1;
    }
    let per_second = (actions * rounds) as f64 / start.elapsed().as_secs_f64();
    let start = Instant::now();
    let mut played = 0;
    while start.elapsed().as_secs_f64() < 2.0 {
        for (i, options) in variants().into_iter().enumerate() {
            black_box(play(options, played * 100 + i as u64));
        }
        played += 1;
    }
    let games_per_second = (played * 24) as f64 / start.elapsed().as_secs_f64();
    println!("racko-rules engine, one core, all 24 variants:");
    println!("  applied actions (legal_actions + apply_mut): {per_second:.0} actions/s");
    println!("  complete random games (deal, policy, play):  {games_per_second:.0} games/s");
    println!(
        "  ({actions} actions in 24 recorded games, {:.0} actions per game)",
        actions as f64 / 24.0
    );
}

fn benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("engine");
    let games = recorded(1);
    group.throughput(Throughput::Elements(count_actions(&games) as u64));
    group.bench_function("actions", |b| b.iter(|| replay(&games)));
    let variants = variants();
    group.throughput(Throughput::Elements(variants.len() as u64));
    let mut seed = 0;
    group.bench_function("complete_games", |b| {
        b.iter(|| {
            seed += 1;
            for (i, options) in variants.iter().enumerate() {
                black_box(play(options.clone(), seed * 100 + i as u64));
            }
        })
    });
    group.finish();
}

fn main() {
    // `cargo test --benches` runs each bench once with --test: no timing then.
    let testing = std::env::args().any(|a| a == "--test" || a == "--list");
    if !testing {
        summary();
    }
    let mut criterion = Criterion::default().configure_from_args();
    benches(&mut criterion);
    criterion.final_summary();
}
