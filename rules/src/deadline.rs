//! R10.1 and R10.2 as facts about the log: which events start a seat's deadline afresh, and a
//! check that every timeout in a log had a passed deadline of its own. The rules read no
//! clock: the caller gives each event's time, as microseconds since any fixed epoch.
//!
//! A stage is what a seat's deadline belongs to: one turn, the dealer's choice, or one Blitz
//! deal. Within a stage the deadline stays; a change that ends one stage for a seat and begins
//! another gives it a fresh deadline, even when the seat is awaited before and after it.

use crate::{Event, Options, Seat};

/// R10.1: true when `event` begins a new stage for `seat`, so that the seat's deadline, if the
/// game then awaits it, starts at this event's time. A round's start begins one for every seat
/// (the dealer's choice or the first turn follows); so does a Blitz deal; a turn begins one
/// for its seat.
pub fn begins_stage(event: &Event, seat: Seat) -> bool {
    match event {
        Event::RoundStarted { .. } | Event::BlitzDealStarted => true,
        Event::TurnStarted { seat: on_turn } => *on_turn == seat,
        _ => false,
    }
}

/// Why a log's timeouts break R10.2.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DeadlineError {
    /// A timeout in a game without a turn time.
    #[error("seat {seat} timed out, but the game has no turn time")]
    NoTurnTime { seat: Seat },
    /// A timeout before any stage of the seat began.
    #[error("seat {seat} timed out before it was ever awaited")]
    NeverAwaited { seat: Seat },
    /// A timeout before the seat's deadline (times in microseconds).
    #[error("seat {seat} timed out {early_by} µs before its deadline")]
    Early { seat: Seat, early_by: i64 },
    /// A second timeout within one stage: one deadline counted twice.
    #[error("seat {seat} timed out twice on one deadline")]
    Twice { seat: Seat },
}

/// Follows a log event by event and checks each `turn_timed_out` against the deadline it
/// claims: the seat's stage began at least a turn time earlier, and no other timeout of the
/// seat used the same stage.
#[derive(Clone, Debug)]
pub struct DeadlineCheck {
    turn_time: Option<i64>,
    /// By seat: when its current stage began, and whether that stage's deadline was used.
    stages: Vec<Option<(i64, bool)>>,
    timeouts: usize,
}

impl DeadlineCheck {
    pub fn new(options: &Options) -> DeadlineCheck {
        DeadlineCheck {
            turn_time: options
                .turn_time
                .map(|secs| i64::from(secs).saturating_mul(1_000_000)),
            stages: vec![None; usize::from(options.players)],
            timeouts: 0,
        }
    }

    /// The next event of the log, at `at` microseconds.
    pub fn observe(&mut self, at: i64, event: &Event) -> Result<(), DeadlineError> {
        if let Event::TurnTimedOut { seat } = *event {
            let turn_time = self.turn_time.ok_or(DeadlineError::NoTurnTime { seat })?;
            let stage = self
                .stages
                .get_mut(usize::from(seat))
                .and_then(Option::as_mut)
                .ok_or(DeadlineError::NeverAwaited { seat })?;
            let (began, used) = *stage;
            if used {
                return Err(DeadlineError::Twice { seat });
            }
            let deadline = began.saturating_add(turn_time);
            if at < deadline {
                return Err(DeadlineError::Early {
                    seat,
                    early_by: deadline - at,
                });
            }
            stage.1 = true;
            self.timeouts += 1;
            return Ok(());
        }
        for (seat, stage) in (0..).zip(self.stages.iter_mut()) {
            if begins_stage(event, seat) {
                *stage = Some((at, false));
            }
        }
        Ok(())
    }

    /// The timeouts checked so far.
    pub fn timeouts(&self) -> usize {
        self.timeouts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: i64 = 1_000_000;

    fn options(turn_time: Option<u32>) -> Options {
        Options {
            players: 3,
            turn_time,
            ..Options::default()
        }
    }

    #[test]
    fn r10_1_a_turn_begins_a_stage_for_its_seat_only_and_a_round_or_blitz_deal_for_all() {
        let turn = Event::TurnStarted { seat: 1 };
        assert!(begins_stage(&turn, 1));
        assert!(!begins_stage(&turn, 0));
        assert!((0..4).all(|s| begins_stage(&Event::BlitzDealStarted, s)));
        let drew = Event::Drew {
            seat: 1,
            card: None,
        };
        assert!(!begins_stage(&drew, 1), "a draw is within the turn");
    }

    #[test]
    fn r10_2_one_timeout_per_deadline_and_never_before_it() {
        let mut check = DeadlineCheck::new(&options(Some(60)));
        let out = Event::TurnTimedOut { seat: 1 };
        assert_eq!(
            check.observe(0, &out),
            Err(DeadlineError::NeverAwaited { seat: 1 })
        );
        check
            .observe(0, &Event::TurnStarted { seat: 1 })
            .expect("a turn");
        assert_eq!(
            check.observe(59 * SECOND, &out),
            Err(DeadlineError::Early {
                seat: 1,
                early_by: SECOND
            })
        );
        check.observe(60 * SECOND, &out).expect("on time");
        assert_eq!(
            check.observe(500 * SECOND, &out),
            Err(DeadlineError::Twice { seat: 1 }),
            "the same deadline twice"
        );
        // A new turn of the same seat is a new deadline.
        let turn = Event::TurnStarted { seat: 1 };
        check.observe(500 * SECOND, &turn).expect("a turn");
        check.observe(560 * SECOND, &out).expect("its own deadline");
        assert_eq!(check.timeouts(), 2);
    }

    #[test]
    fn r10_2_no_timeout_without_a_turn_time() {
        let mut check = DeadlineCheck::new(&options(None));
        check
            .observe(0, &Event::TurnStarted { seat: 0 })
            .expect("a turn");
        assert_eq!(
            check.observe(SECOND, &Event::TurnTimedOut { seat: 0 }),
            Err(DeadlineError::NoTurnTime { seat: 0 })
        );
    }
}
