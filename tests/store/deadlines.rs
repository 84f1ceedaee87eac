//! R10.1-R10.2 as a property, through the service on each store: random games (2-4 seats,
//! computers, Partner, Blitz, dealer's choice, 1-3 timeouts to resign) played with random
//! actions and random clock moves, the sweeper run after each step as every process runs it.
//! After every step each awaited seat's stored deadline is a turn time after its stage began,
//! and no two timeouts of one seat ever share one deadline.

use std::collections::HashSet;

use chrono::{DateTime, Duration, Utc};
use racko::service::computer::ComputerSeat;
use racko::service::lobby::{self, CreateGame};
use racko::service::{play, sweep, Caller, LogEvent, Service};
use racko::store::Visibility;
use racko_bots::Level;
use racko_rules::deadline::{begins_stage, DeadlineCheck};
use racko_rules::{BlitzMode, Event, Options, Seat};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::*;

const GAMES: usize = 16;
const STEPS: usize = 120;
const TURN_TIME: u32 = 60;

store_tests! {
    fn r10_2_random_games_and_clock_moves_never_count_one_deadline_twice(store: Store, _db: &TestDb) {
        let seed: u64 = rand::random();
        eprintln!("seed {seed}");
        let mut rng = StdRng::seed_from_u64(seed);
        let people: Vec<Caller> = ["ann", "bob", "cid", "dan"]
            .iter()
            .map(|name| {
                let a = account(&store, name);
                Caller { id: a.id, username: a.username }
            })
            .collect();
        let mut timeouts = 0;
        for _ in 0..GAMES {
            timeouts += play_one(&Service::new(store.clone()), &people, &mut rng);
        }
        assert!(timeouts > 0, "the games must time out now and then (seed {seed})");
    }
}

/// Options and computer seats drawn at random.
fn random_game(rng: &mut StdRng) -> CreateGame {
    let players: u8 = rng.random_range(2..=4);
    let blitz = [
        BlitzMode::Off,
        BlitzMode::EveryRound,
        BlitzMode::DealersChoice,
    ];
    let options = Options {
        players,
        partner: players == 4 && rng.random_bool(0.5),
        blitz: blitz[rng.random_range(0..3)],
        turn_time: Some(TURN_TIME),
        timeouts_to_resign: rng.random_range(1..=3),
        target: 150,
        ..Options::default()
    };
    let mut computer = Vec::new();
    for seat in 1..players {
        if rng.random_bool(0.4) {
            let level = Level::ALL[rng.random_range(0..Level::ALL.len())];
            computer.push(ComputerSeat { seat, level });
        }
    }
    CreateGame {
        options,
        computer,
        // The others join by id.
        visibility: Some(Visibility::Public),
        ..CreateGame::default()
    }
}

/// Plays one random game; returns its timeouts.
fn play_one(store: &Service, people: &[Caller], rng: &mut StdRng) -> usize {
    let request = random_game(rng);
    let created = lobby::create(store, &people[0], false, &request, None).expect("created");
    let racko::service::Reply::Fresh(created) = created else {
        panic!("a new game is a fresh answer");
    };
    let id = created.id;
    let players = request.options.players;
    let humans: Vec<Seat> = (0..players)
        .filter(|s| !request.computer.iter().any(|c| c.seat == *s))
        .collect();
    for seat in &humans[1..] {
        lobby::join(store, &people[usize::from(*seat)], id, None).expect("joined");
    }
    let mut used = HashSet::new();
    for _ in 0..STEPS {
        sweep_until_settled(store, id, &mut used);
        let game = store.game(id).expect("read").expect("the game");
        if game.state.is_over() {
            break;
        }
        check_stored_deadlines(store, &game);
        let movers: Vec<Seat> = humans
            .iter()
            .copied()
            .filter(|s| !game.state.resigned(*s) && !game.state.legal_actions(*s).is_empty())
            .collect();
        if movers.is_empty() || rng.random_bool(0.4) {
            let seconds = [1, 20, 59, 60, 61, 90, 200][rng.random_range(0..7)];
            store.raise_clock_offset(store.clock_offset() + seconds * 1_000_000);
            continue;
        }
        let seat = movers[rng.random_range(0..movers.len())];
        let legal = game.state.legal_actions(seat);
        let action = legal[rng.random_range(0..legal.len())];
        let caller = &people[usize::from(seat)];
        play::act(store, caller, id, game.version, &action, None).expect("a legal action");
    }
    check_log(store, id, &request.options)
}

/// Runs the sweeper on the game until it finds nothing due, noting each timeout's deadline
/// (the seat's stored one before that sweep): each must have passed, and be new.
fn sweep_until_settled(store: &Service, id: Uuid, used: &mut HashSet<(Seat, DateTime<Utc>)>) {
    for _ in 0..100 {
        let before = store.game(id).expect("read").expect("the game");
        let swept = sweep::sweep_game(store, id).expect("a sweep");
        for event in play_events(store, id, before.last_seq) {
            let Event::TurnTimedOut { seat } = event.1 else {
                continue;
            };
            let deadline = before
                .seats
                .iter()
                .find(|s| s.seat == seat)
                .and_then(|s| s.deadline)
                .expect("a seat that times out has a deadline");
            assert!(
                deadline <= event.0,
                "seat {seat} timed out before {deadline}"
            );
            assert!(
                used.insert((seat, deadline)),
                "seat {seat} timed out twice on the deadline {deadline}"
            );
        }
        if !matches!(swept, sweep::Swept::Moved { .. }) {
            return;
        }
    }
    panic!("the sweeper never settled");
}

/// The game's rules events after `after`, with their times.
fn play_events(store: &Store, id: Uuid, after: i64) -> Vec<(DateTime<Utc>, Event)> {
    let events = store.events(id, after, 10_000).expect("events");
    events
        .into_iter()
        .filter_map(|e| match serde_json::from_value(e.payload) {
            Ok(LogEvent::Play(event)) => Some((e.created_at, event)),
            _ => None,
        })
        .collect()
}

/// R10.1: each awaited seat of a person has the deadline a turn time after the event that
/// began its stage.
fn check_stored_deadlines(store: &Store, game: &GameRecord) {
    let events = play_events(store, game.id, 0);
    for seat in &game.seats {
        let Some(deadline) = seat.deadline else {
            continue;
        };
        let began = events
            .iter()
            .rev()
            .find(|(_, e)| begins_stage(e, seat.seat))
            .map(|(at, _)| *at)
            .expect("an awaited seat's stage began");
        assert_eq!(
            deadline - began,
            Duration::seconds(i64::from(TURN_TIME)),
            "seat {}'s deadline is a turn time after its stage began",
            seat.seat
        );
    }
}

/// The whole log through the rules' deadline check; returns its timeouts.
fn check_log(store: &Store, id: Uuid, options: &Options) -> usize {
    let mut check = DeadlineCheck::new(options);
    for (at, event) in play_events(store, id, 0) {
        check
            .observe(at.timestamp_micros(), &event)
            .unwrap_or_else(|e| panic!("{e}"));
    }
    check.timeouts()
}
