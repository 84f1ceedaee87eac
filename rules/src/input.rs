//! What moves a game on, as data: a deal, one seat's action, a timeout, a resignation.
//! [`Game::play`](crate::Game::play) takes any of them, and [`Event::input`](crate::Event::input)
//! gives back the input a logged event records, so a replay runs one loop over the log and a
//! new kind of change is one more variant here.
//!
//! Who chooses each input is a fact of the rules too ([`Actor`]): a log names a seat's player
//! as the actor of that seat's own choices only.

use crate::{Action, RoundDeal, Seat};

/// One input to a game. Everything else in a log follows from the inputs by the rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// Deal the next round (R2, R7.3) from a seed, or a stacked deck in test mode (R9.2).
    Deal(RoundDeal),
    /// One action of one seat (R3, R4.2, R7.3).
    Act { seat: Seat, action: Action },
    /// R10.2: the seat's deadline passed. The moves made for it follow as `Act`s.
    TimeOut { seat: Seat },
    /// R10.3: the seat's player resigns.
    Resign { seat: Seat },
}

impl Input {
    /// Who chooses this input: the seat for its own action or resignation, the server for a
    /// deal (R9.2) or a timeout (R10.2).
    pub fn actor(&self) -> Actor {
        match *self {
            Input::Act { seat, .. } | Input::Resign { seat } => Actor::Seat(seat),
            Input::Deal(_) | Input::TimeOut { .. } => Actor::Server,
        }
    }
}

/// Whose choice an event records (R9.2, R10): the one fact that says which events of a log
/// name an actor and which are the server's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Actor {
    /// The seat's own choice: one of its actions or its resignation (R10.3). After the seat's
    /// deadline passed, or once it resigned, the server makes its actions for it (R10.2,
    /// R10.3).
    Seat(Seat),
    /// The server's: a deal (R9.2), a timeout, a resignation for timeouts (R10.2).
    Server,
    /// Nobody's: the event follows from the rules (a turn begins, a round ends, ...).
    Rules,
}

impl Actor {
    /// The seat whose own choice it is, if any.
    pub fn seat(self) -> Option<Seat> {
        match self {
            Actor::Seat(seat) => Some(seat),
            Actor::Server | Actor::Rules => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::replay;
    use crate::{Event, Game, Options, Seed};

    /// The next input of a 3-player game that deals, acts, times out now and then (so seats
    /// also resign for timeouts) and has seat 2 resign once.
    fn next_input(game: &Game, step: usize) -> Input {
        if game.needs_round() {
            let seed = Seed([step as u8; 32]);
            return Input::Deal(RoundDeal {
                seed,
                stacked: None,
            });
        }
        if let Some(seat) = game.played_for() {
            let action = game
                .simplest_move(seat)
                .expect("a played-for seat has a move");
            return Input::Act { seat, action };
        }
        if step == 40 && !game.resigned(2) {
            return Input::Resign { seat: 2 };
        }
        let seat = game.awaiting()[0];
        if step % 5 == 3 && !game.resigned(seat) {
            return Input::TimeOut { seat };
        }
        let action = game.legal_actions(seat)[0];
        Input::Act { seat, action }
    }

    #[test]
    fn r9_2_each_input_played_is_recorded_by_one_event_that_gives_it_back() {
        let options = Options {
            players: 3,
            ..Options::default()
        };
        let mut game = Game::new(options.clone()).expect("valid options");
        let mut log = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        for step in 0..600 {
            if game.is_over() {
                break;
            }
            let input = next_input(&game, step);
            let (after, events) = game.play(&input).expect("a legal input");
            let recorded: Vec<Input> = events.iter().filter_map(Event::input).collect();
            assert_eq!(recorded, std::slice::from_ref(&input), "step {step}");
            for event in &events {
                seen.insert(event.kind());
                let expected = match event.input() {
                    Some(_) => input.actor(),
                    None if matches!(event, Event::Resigned { .. }) => Actor::Server,
                    None => Actor::Rules,
                };
                assert_eq!(event.actor(), expected, "step {step}: {event:?}");
            }
            let mut in_place = game.clone();
            assert_eq!(in_place.play_mut(&input), Ok(events.clone()));
            assert_eq!(in_place, after);
            log.extend(events);
            game = after;
        }
        for kind in ["round_started", "turn_timed_out", "resigned", "drew"] {
            assert!(seen.contains(kind), "the game never had {kind}");
        }
        assert_eq!(replay(&options, &log), Ok(game));
    }

    #[test]
    fn r10_a_refused_input_leaves_the_game_as_it_was() {
        let game = Game::new(Options::default()).expect("valid options");
        let draw = Input::Act {
            seat: 0,
            action: Action::Draw,
        };
        assert_eq!(
            game.play(&draw).map(|_| ()),
            Err(crate::RulesError::RoundNotStarted)
        );
        let mut same = game.clone();
        let refused = same.play_mut(&Input::TimeOut { seat: 1 });
        assert_eq!(refused, Err(crate::RulesError::NotAwaited));
        assert_eq!(same, game);
        assert_eq!(
            game.play(&Input::Resign { seat: 5 }).map(|_| ()),
            Err(crate::RulesError::SeatOutOfRange(5))
        );
    }

    #[test]
    fn r9_2_r10_the_server_deals_and_times_out_the_seats_act_and_resign() {
        let deal = Input::Deal(RoundDeal {
            seed: Seed([1; 32]),
            stacked: None,
        });
        assert_eq!(deal.actor(), Actor::Server);
        assert_eq!(Input::TimeOut { seat: 1 }.actor(), Actor::Server);
        assert_eq!(Input::Resign { seat: 1 }.actor(), Actor::Seat(1));
        let act = Input::Act {
            seat: 2,
            action: Action::CallRacko,
        };
        assert_eq!(act.actor().seat(), Some(2));
        assert_eq!(Actor::Rules.seat(), None);
    }
}
