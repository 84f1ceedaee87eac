//! Property tests: many complete random games over every variant, played by a simple policy
//! with random deviations, checked at every step (see `common::Table`): card conservation,
//! legality, engine/tracker agreement; on a sample of games also the R8 projections, probes of
//! random (mostly illegal) actions of every kind by every seat, and replay (R9.2).
//!
//! Debug builds run this in well under two minutes on two cores: the cheap checks run on
//! every step of every game, the expensive ones on every `FULL_EVERY`-th game.

mod common;

use std::collections::BTreeMap;

use common::{Checks, Table};
use racko_rules::{Action, BlitzMode, DeckCounts, Event, Options, RoundDeal, RoundEnd, Seed, Slot};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use common::policy::Policy;

/// Override with RACKO_PROPERTY_GAMES for a quick or a longer run.
fn games() -> u64 {
    let games = std::env::var("RACKO_PROPERTY_GAMES").ok();
    games.and_then(|g| g.parse().ok()).unwrap_or(20_000)
}
const FULL_EVERY: u64 = 200;
const REPLAY_EVERY: u64 = 10;
const MAX_STEPS: usize = 6_000;

/// Every combination of the variants, with the default deck and with a small deck rich in
/// event cards (so that swaps, skips and reshuffles happen often).
fn variants() -> Vec<Options> {
    let mut all = Vec::new();
    for (players, partner) in [(2, false), (3, false), (4, false), (4, true)] {
        for bonus in [false, true] {
            for blitz in [
                BlitzMode::Off,
                BlitzMode::EveryRound,
                BlitzMode::DealersChoice,
            ] {
                for small in [false, true] {
                    let deck = small.then_some(DeckCounts {
                        max_number: 12 * u16::from(players) + 6,
                        jokers: 3,
                        card_swaps: 3,
                        skips: 2,
                        rack_swaps: 2,
                    });
                    let target = 150;
                    all.push(Options {
                        players,
                        partner,
                        bonus,
                        blitz,
                        target,
                        deck,
                        ..Options::default()
                    });
                }
            }
        }
    }
    all
}

#[derive(Default)]
struct Stats {
    games: u64,
    capped: u64,
    steps: u64,
    actions: BTreeMap<&'static str, u64>,
    events: BTreeMap<&'static str, u64>,
    ends: BTreeMap<&'static str, u64>,
    probes: u64,
}

impl Stats {
    fn merge(&mut self, other: Stats) {
        self.games += other.games;
        self.capped += other.capped;
        self.steps += other.steps;
        self.probes += other.probes;
        for (k, v) in other.actions {
            *self.actions.entry(k).or_default() += v;
        }
        for (k, v) in other.events {
            *self.events.entry(k).or_default() += v;
        }
        for (k, v) in other.ends {
            *self.ends.entry(k).or_default() += v;
        }
    }

    fn record(&mut self, events: &[Event]) {
        for event in events {
            *self.events.entry(event.kind()).or_default() += 1;
            if let Event::RoundEnded { end, .. } = event {
                let end = match end {
                    RoundEnd::Racko { .. } => "racko",
                    RoundEnd::BlitzRacko { .. } => "blitz_racko",
                    RoundEnd::StockExhausted => "stock_exhausted",
                };
                *self.ends.entry(end).or_default() += 1;
            }
        }
    }
}

fn random_slot(rng: &mut StdRng) -> Slot {
    // Mostly real slots, sometimes a label that does not exist.
    match rng.random_range(0..16) {
        0 => Slot(0),
        1 => Slot(7),
        2 => Slot(65),
        _ => Slot::from_index(rng.random_range(0..12)),
    }
}

/// One random action of each kind, with random seats, slots and targets.
fn random_actions(players: u8, rng: &mut StdRng) -> [Action; 9] {
    let with = rng.random_range(0..=players);
    [
        Action::ChooseDeal {
            blitz: rng.random(),
        },
        Action::PlaceBlitzCard {
            slot: random_slot(rng),
        },
        Action::TakeDiscard {
            slot: random_slot(rng),
        },
        Action::Draw,
        Action::PlaceDrawn {
            slot: random_slot(rng),
        },
        Action::DiscardDrawn,
        Action::SwapCard {
            with,
            their_slot: random_slot(rng),
            my_slot: random_slot(rng),
        },
        Action::SwapRacks { with },
        Action::CallRacko,
    ]
}

/// Every seat (and one not at the table) tries one action of every kind on a copy of the game:
/// it is accepted exactly when listed as legal, and a refused one leaves the copy unchanged.
/// A few listed actions are applied too.
fn probe(table: &Table, rng: &mut StdRng) -> u64 {
    let game = &table.game;
    let players = table.players();
    let mut probes = 0;
    for seat in 0..=players {
        let legal = game.legal_actions(seat);
        let sampled = [legal.first(), legal.last()];
        let tries = random_actions(players, rng)
            .into_iter()
            .chain(sampled.into_iter().flatten().copied());
        for action in tries {
            let mut copy = game.clone();
            let result = copy.apply_mut(seat, &action);
            let listed = legal.contains(&action);
            assert_eq!(result.is_ok(), listed, "seat {seat} {action:?}: {result:?}");
            if result.is_err() {
                assert_eq!(&copy, game, "a refused {action:?} changed the game");
            }
            probes += 1;
        }
    }
    probes
}

fn play_game(options: Options, rng: &mut StdRng, full: bool, replay: bool, stats: &mut Stats) {
    let checks = if full { Checks::Full } else { Checks::Light };
    let mut table = Table::new(options, checks);
    let policy = Policy {
        deviation: 0.1,
        call_rate: 0.9,
    };
    let mut steps = 0;
    while !table.game.is_over() {
        if steps == MAX_STEPS {
            stats.capped += 1;
            break;
        }
        if table.game.needs_round() {
            let deal = RoundDeal {
                seed: Seed(rng.random()),
                stacked: None,
            };
            let events = table.start_round(&deal).expect("a round can be dealt");
            stats.record(&events);
            continue;
        }
        if full {
            stats.probes += probe(&table, rng);
        }
        let (seat, action) = policy
            .choose(&table.game, &table.tracker, rng)
            .expect("during a round some seat can act");
        let events = table.play(seat, action);
        stats.record(&events);
        *stats.actions.entry(action.kind()).or_default() += 1;
        steps += 1;
    }
    if replay {
        table.check_replay();
    }
    stats.games += 1;
    stats.steps += steps as u64;
}

/// Plays games `first..GAMES` step `stride` (one share per thread).
fn play_share(first: u64, stride: u64) -> Stats {
    let variants = variants();
    let mut stats = Stats::default();
    let (mut game, games) = (first, games());
    while game < games {
        let mut rng = StdRng::seed_from_u64(game);
        let options = variants[(game % variants.len() as u64) as usize].clone();
        let (full, replay) = (game % FULL_EVERY == 0, game % REPLAY_EVERY == 0);
        play_game(options, &mut rng, full, replay, &mut stats);
        game += stride;
    }
    stats
}

#[test]
fn random_games_keep_every_invariant() {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()) as u64;
    let mut stats = Stats::default();
    std::thread::scope(|scope| {
        let shares: Vec<_> = (0..threads)
            .map(|t| scope.spawn(move || play_share(t, threads)))
            .collect();
        for share in shares {
            stats.merge(share.join().expect("no game failed"));
        }
    });
    println!(
        "{} games, {} steps, {} probes, {} capped\nactions {:?}\nevents {:?}\nends {:?}",
        stats.games,
        stats.steps,
        stats.probes,
        stats.capped,
        stats.actions,
        stats.events,
        stats.ends
    );
    assert_eq!(stats.games, games());
    assert!(
        stats.capped * 200 < games(),
        "the policy should finish nearly every game"
    );
    let kinds = [
        "choose_deal",
        "place_blitz_card",
        "take_discard",
        "draw",
        "place_drawn",
        "discard_drawn",
        "swap_card",
        "swap_racks",
        "call_racko",
    ];
    for kind in kinds {
        assert!(
            stats.actions.get(kind).copied().unwrap_or(0) > 0,
            "no {kind} was played"
        );
    }
    for kind in [
        "skipped",
        "card_swap_void",
        "stock_reshuffled",
        "game_ended",
    ] {
        assert!(
            stats.events.get(kind).copied().unwrap_or(0) > 0,
            "no {kind} event"
        );
    }
    for end in ["racko", "blitz_racko"] {
        assert!(
            stats.ends.get(end).copied().unwrap_or(0) > 0,
            "no round ended by {end}"
        );
    }
    // R3.6's "nothing to draw or take" needs all cards but one event card in the racks, which
    // no R1.4 deck allows (a number card is always left outside the racks).
    assert_eq!(stats.ends.get("stock_exhausted"), None);
}
