//! Rebuilding a game from its log (R9.2, audits): the options and the full events suffice.
//!
//! A log is replayed step by step. A step is what one input produces (a deal, an action, a
//! timeout or a resignation): the rules play the input its event records ([`Event::input`])
//! again and must give exactly the recorded events. A `Resigned` for timeouts is no input: it
//! ends the step of the last action made for the seat (R10.2). Events that follow from the rules alone (turns, skips,
//! reshuffles, round ends) may come before the input event of their step (a reshuffle comes
//! before the draw it serves). [`Steps`] walks a log step by step; [`replay`] runs them all.

use crate::{Event, Game, Options, RulesError};

/// Why a log does not replay.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("event {index}: {message}")]
pub struct ReplayError {
    /// Index into the events given.
    pub index: usize,
    pub message: String,
    /// The rules' refusal, when they refused the input event at `index`.
    pub refused: Option<RulesError>,
}

impl ReplayError {
    fn at(index: usize, message: impl Into<String>) -> ReplayError {
        ReplayError {
            index,
            message: message.into(),
            refused: None,
        }
    }
}

/// One step of a replay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The index of the step's first event.
    pub first: usize,
    /// The index of its input event (`first` or later).
    pub input: usize,
    /// What the rules give for the step; a faithful log holds exactly these from `first` on.
    pub produced: Vec<Event>,
}

impl Step {
    /// The index just past the step.
    pub fn end(&self) -> usize {
        self.first + self.produced.len()
    }

    /// Compares what the rules give with what `events` recorded: the first event that differs,
    /// or the log ending early, or a step that does not reach its own input event.
    pub fn check(&self, events: &[Event]) -> Result<(), ReplayError> {
        for (offset, event) in self.produced.iter().enumerate() {
            let at = self.first + offset;
            match events.get(at) {
                Some(recorded) if recorded == event => {}
                Some(recorded) => {
                    return Err(ReplayError::at(
                        at,
                        format!(
                            "recorded {} but the rules give {}",
                            recorded.kind(),
                            event.kind()
                        ),
                    ))
                }
                None => {
                    return Err(ReplayError::at(
                        at,
                        format!("the log ends; the rules give {}", event.kind()),
                    ))
                }
            }
        }
        if self.end() <= self.input {
            return Err(ReplayError::at(
                self.first,
                "the rules do not produce this event here",
            ));
        }
        Ok(())
    }
}

/// A log replayed step by step from a new game. As an iterator it yields each step checked
/// against the log ([`Step::check`]) and ends after the last event or at the first error;
/// [`Steps::game`] is the game after the steps so far.
pub struct Steps<'a> {
    game: Game,
    events: &'a [Event],
    next: usize,
    stopped: bool,
}

impl<'a> Steps<'a> {
    /// The steps of `events` (full, not projected) from a new game of `options`.
    pub fn new(options: &Options, events: &'a [Event]) -> Result<Steps<'a>, ReplayError> {
        let game = Game::new(options.clone()).map_err(|e| ReplayError::at(0, e.to_string()))?;
        Ok(Steps {
            game,
            events,
            next: 0,
            stopped: false,
        })
    }

    /// The game after the steps so far.
    pub fn game(&self) -> &Game {
        &self.game
    }

    pub fn into_game(self) -> Game {
        self.game
    }

    /// The index of the event the next step begins at.
    pub fn position(&self) -> usize {
        self.next
    }

    /// Runs the next step without comparing it with the log (see [`Step::check`]), for a
    /// caller that wants to tell how the log differs. The game moves on by what the rules give,
    /// so after a step that differs from the log the steps that follow mean nothing.
    pub fn run_next(&mut self) -> Option<Result<Step, ReplayError>> {
        if self.stopped || self.next >= self.events.len() {
            return None;
        }
        let step = self.run(self.next);
        match &step {
            Ok(step) if step.end() > step.input => self.next = step.end(),
            _ => self.stopped = true,
        }
        Some(step)
    }

    fn run(&mut self, first: usize) -> Result<Step, ReplayError> {
        let events = self.events;
        let Some(input) = (first..events.len()).find(|i| events[*i].is_input()) else {
            return Err(ReplayError::at(
                first,
                "no action or deal produces this event",
            ));
        };
        let Some(played) = events[input].input() else {
            return Err(ReplayError::at(
                input,
                "the seed is hidden; replay needs the full log",
            ));
        };
        let produced = self.game.play_mut(&played);
        match produced {
            Ok(produced) => Ok(Step {
                first,
                input,
                produced,
            }),
            Err(e) => Err(ReplayError {
                index: input,
                message: format!("refused: {e}"),
                refused: Some(e),
            }),
        }
    }
}

impl Iterator for Steps<'_> {
    type Item = Result<Step, ReplayError>;

    fn next(&mut self) -> Option<Self::Item> {
        let step = self.run_next()?;
        let checked = step.and_then(|step| step.check(self.events).map(|()| step));
        if checked.is_err() {
            self.stopped = true;
        }
        Some(checked)
    }
}

/// Replays `events` (full, not projected) from a new game: each input is played again (a round
/// dealt from the seed or stacked deck of its `RoundStarted`, each action, timeout and
/// resignation), and every event the rules produce must equal the recorded one. Returns the game after the last event.
pub fn replay(options: &Options, events: &[Event]) -> Result<Game, ReplayError> {
    let mut steps = Steps::new(options, events)?;
    for step in &mut steps {
        step?;
    }
    Ok(steps.into_game())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Phase, RoundDeal, Seed};

    /// A 2-player game, dealt from a seed, after `actions` actions (each the first legal one);
    /// the log and where each step of it begins.
    fn played(actions: usize) -> (Options, Vec<Event>, Vec<usize>) {
        let options = Options::default();
        let mut game = Game::new(options.clone()).expect("valid options");
        let deal = RoundDeal {
            seed: Seed([9; 32]),
            stacked: None,
        };
        let mut log = game.start_round_mut(&deal).expect("a seeded deal");
        let mut starts = vec![0];
        for _ in 0..actions {
            let Phase::Turn { seat, .. } = game.phase().clone() else {
                break;
            };
            let action = game.legal_actions(seat)[0];
            starts.push(log.len());
            log.extend(game.apply_mut(seat, &action).expect("a legal action"));
        }
        (options, log, starts)
    }

    #[test]
    fn r9_2_steps_are_one_deal_or_one_action_each() {
        let (options, log, starts) = played(20);
        let mut steps = Steps::new(&options, &log).expect("valid options");
        let mut firsts = Vec::new();
        for step in &mut steps {
            let step = step.expect("the log replays");
            assert_eq!(step.produced, log[step.first..step.end()]);
            assert!(log[step.input].is_input(), "{:?}", log[step.input]);
            firsts.push(step.first);
        }
        assert_eq!(firsts, starts);
        assert_eq!(steps.position(), log.len());
        assert_eq!(Ok(steps.into_game()), replay(&options, &log));
    }

    #[test]
    fn r9_2_a_refused_action_stops_the_steps_and_names_the_refusal() {
        let (options, mut log, starts) = played(6);
        // The first action after the deal, given to the seat that is not on turn.
        let at = (starts[1]..log.len())
            .find(|i| log[*i].action().is_some())
            .expect("an action");
        let mut json = serde_json::to_value(&log[at]).expect("serializes");
        let seat = json["seat"].as_u64().expect("the action names its seat");
        json["seat"] = (1 - seat).into();
        log[at] = serde_json::from_value(json).expect("deserializes");
        let mut steps = Steps::new(&options, &log).expect("valid options");
        assert!(steps.next().is_some_and(|s| s.is_ok()), "the deal replays");
        let err = steps.next().expect("a step").expect_err("refused");
        assert_eq!(err.index, at);
        assert_eq!(err.refused.map(|e| e.code()), Some("not_your_turn"));
        assert!(steps.next().is_none(), "nothing follows an error");
        assert_eq!(replay(&options, &log).map_err(|e| e.index), Err(at));
    }

    #[test]
    fn r9_2_a_step_that_differs_from_the_log_is_checked_or_run_as_is() {
        let (options, mut log, starts) = played(6);
        // A recorded deal whose racks differ from the seed's.
        let dealt = (0..starts[1])
            .find(|i| matches!(log[*i], Event::Dealt { .. }))
            .expect("a normal deal");
        if let Event::Dealt { racks } = &mut log[dealt] {
            racks.swap(0, 1);
        }
        let mut checked = Steps::new(&options, &log).expect("valid options");
        let err = checked
            .next()
            .expect("a step")
            .expect_err("the deal differs");
        assert_eq!(err.index, dealt);
        assert_eq!(err.refused, None);
        let mut unchecked = Steps::new(&options, &log).expect("valid options");
        let step = unchecked
            .run_next()
            .expect("a step")
            .expect("the deal runs");
        assert_eq!((step.first, step.end()), (0, starts[1]));
        assert_ne!(step.produced[dealt], log[dealt]);
        assert!(step.check(&log).is_err());
    }

    #[test]
    fn r9_2_a_log_cut_inside_a_step_does_not_replay() {
        let (options, log, starts) = played(6);
        let cut = &log[..starts[1] - 1];
        let err = replay(&options, cut).expect_err("the deal is cut short");
        assert_eq!(err.index, starts[1] - 1);
        assert!(err.message.contains("the log ends"), "{err}");
    }
}
