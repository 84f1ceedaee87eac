//! Shared helpers of the integration tests: a table that drives a game and checks every
//! transition, an independent tracker of the cards, the R8 leak checks, a compact card
//! notation and a simple playing policy. Each test binary uses a part of it.
#![allow(dead_code)]

pub mod deal;
pub mod leaks;
pub mod notation;
pub mod policy;
pub mod tracker;

use racko_rules::{Action, Event, Game, Options, Phase, RoundDeal, RulesError, Seat, Seed};

use tracker::Tracker;

/// How much a table checks at each step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Checks {
    /// The tracker's event-by-event checks and the legality of each applied action at every
    /// step; the card recount and the engine/tracker agreement every 8th step.
    Light,
    /// All of those at every step, and the R8 projections, and that a refused action leaves
    /// the game unchanged.
    Full,
}

/// A game with its full event log and a tracker fed from the events.
pub struct Table {
    pub game: Game,
    pub events: Vec<Event>,
    pub tracker: Tracker,
    pub checks: Checks,
    steps: u64,
}

impl Table {
    pub fn new(options: Options, checks: Checks) -> Table {
        let mut tracker = Tracker::new(&options);
        tracker.track_knowledge = checks == Checks::Full;
        let game = Game::new(options).expect("valid options");
        Table {
            game,
            events: Vec::new(),
            tracker,
            checks,
            steps: 0,
        }
    }

    pub fn options(&self) -> &Options {
        self.game.options()
    }

    pub fn players(&self) -> u8 {
        self.game.options().players
    }

    pub fn start_round(&mut self, deal: &RoundDeal) -> Result<Vec<Event>, RulesError> {
        let events = self.game.start_round_mut(deal)?;
        for event in &events {
            assert_eq!(event.action(), None, "a deal records no player's choice");
        }
        self.record(&events);
        Ok(events)
    }

    /// R10.2: the seat's deadline passes; the timeout and the stand-in's moves, recorded.
    pub fn stand_in(&mut self, seat: Seat) -> Result<Vec<Event>, RulesError> {
        let (game, events) = self.game.stand_in(seat)?;
        self.game = game;
        self.record(&events);
        Ok(events)
    }

    /// Applies an action, checking that it is accepted exactly when it is listed as legal and
    /// that a refused action changes nothing.
    pub fn act(&mut self, seat: Seat, action: Action) -> Result<Vec<Event>, RulesError> {
        let listed = self.game.legal_actions(seat).contains(&action);
        let before = (self.checks == Checks::Full).then(|| self.game.clone());
        let result = self.game.apply_mut(seat, &action);
        match &result {
            Ok(events) => {
                assert!(
                    listed,
                    "seat {seat}: {action:?} was accepted but not listed as legal"
                );
                let inputs = events.iter().filter_map(Event::action).collect::<Vec<_>>();
                // Exactly one event records the choice, so that a log replays (R9.2).
                assert_eq!(
                    inputs,
                    [(seat, action)],
                    "the one input event of {action:?}"
                );
                self.record(events);
            }
            Err(error) => {
                assert!(
                    !listed,
                    "seat {seat}: {action:?} is listed as legal but refused: {error}"
                );
                if let Some(before) = before {
                    assert_eq!(before, self.game, "a refused action changes nothing");
                }
            }
        }
        result
    }

    /// As `act`, for an action the test expects to be accepted.
    pub fn play(&mut self, seat: Seat, action: Action) -> Vec<Event> {
        self.act(seat, action)
            .unwrap_or_else(|e| panic!("seat {seat}: {action:?} refused: {} ({e})", e.code()))
    }

    fn record(&mut self, events: &[Event]) {
        for event in events {
            self.tracker.apply(event);
            if self.checks == Checks::Full {
                leaks::check_event(event, &self.tracker);
                assert_eq!(&round_trip(event), event, "an event survives storage");
            }
        }
        if self.checks == Checks::Full {
            assert_eq!(
                round_trip(&self.game),
                self.game,
                "the game survives storage"
            );
        }
        // The tracker checks each event against its state as it goes, so a whole recount
        // is needed only now and then in light checking (a broken state persists).
        self.steps += 1;
        if self.checks == Checks::Full || self.steps.is_multiple_of(8) {
            self.tracker.check_conservation();
            self.check_engine_agrees();
        }
        if self.checks == Checks::Full {
            leaks::check_views(&self.game, &self.tracker);
        }
        self.events.extend_from_slice(events);
    }

    /// The engine's own state (its accessors) agrees with the tracker's, during play.
    fn check_engine_agrees(&self) {
        if !matches!(self.game.phase(), Phase::Turn { .. }) {
            return;
        }
        let t = &self.tracker;
        for seat in 0..self.players() {
            let rack = self
                .game
                .rack(seat)
                .expect("a seat at the table has a rack");
            let mine = &t.racks[usize::from(seat)];
            let same = rack.0.iter().zip(mine).all(|(a, b)| Some(*a) == *b);
            assert!(
                same,
                "seat {seat}'s rack: engine {rack:?}, tracker {mine:?}"
            );
        }
        assert_eq!(
            self.game.discard_pile(),
            t.discard.as_slice(),
            "discard pile"
        );
        assert_eq!(self.game.stock_size(), t.stock, "stock size");
    }

    /// `replay::replay` of the options and the full log rebuilds this very game (R9.2).
    pub fn check_replay(&self) {
        let replayed = racko_rules::replay::replay(self.game.options(), &self.events)
            .unwrap_or_else(|e| panic!("the log does not replay: {e}"));
        assert_eq!(
            replayed, self.game,
            "the replayed game equals the played one"
        );
    }
}

/// Through JSON and back, as the service stores games and events.
pub fn round_trip<T: serde::Serialize + serde::de::DeserializeOwned>(value: &T) -> T {
    let json = serde_json::to_string(value).expect("serializes");
    serde_json::from_str(&json).unwrap_or_else(|e| panic!("does not deserialize: {e}\n{json}"))
}

/// A fixed seed for stacked rounds; the seed still drives reshuffles (R3.6).
pub fn seed(byte: u8) -> Seed {
    Seed([byte; 32])
}
