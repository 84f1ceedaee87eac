//! R10: games that outlast their players. The service decides when a deadline has passed (the
//! rules read no clock); the rules count the timeouts, name the simplest move, carry out a
//! resignation and decide who wins after one.

use super::{Game, Phase, TurnStage};
use crate::deadline::begins_stage;
use crate::event::ResignReason;
use crate::{Action, Event, RulesError, Seat, Slot};

/// Single actions one stage can take at most: a Blitz deal of twelve cards is the longest.
const MAX_STAND_IN_MOVES: usize = 64;

impl Game {
    /// R10.2: `seat`'s deadline has passed ([`Input::TimeOut`](crate::Input::TimeOut)).
    /// Counts a timeout for the seat and marks it as played for: the caller then plays moves
    /// for it (a computer player's, or [`simplest_move`](Self::simplest_move)'s) until the game
    /// no longer awaits it.
    ///
    /// Refused with `seat_out_of_range`, `already_resigned` (a resigned seat is played at
    /// once, it never waits), or `not_awaited` when the game does not wait for the seat or
    /// a seat is already being played for.
    pub(super) fn time_out(&mut self, seat: Seat) -> Result<Vec<Event>, RulesError> {
        if seat >= self.players() {
            return Err(RulesError::SeatOutOfRange(seat));
        }
        if self.resigned(seat) {
            return Err(RulesError::AlreadyResigned);
        }
        if self.played_for.is_some() || !self.awaiting().contains(&seat) {
            return Err(RulesError::NotAwaited);
        }
        let count = self.timeouts.entry(seat).or_insert(0);
        *count = count.saturating_add(1);
        self.played_for = Some(seat);
        Ok(vec![Event::TurnTimedOut { seat }])
    }

    /// R10.2 for a person's seat whose deadline has passed: the timeout ([`Input::TimeOut`](crate::Input::TimeOut)), then the simplest
    /// move for the seat until its stage ends (a Blitz deal's every card counts as one
    /// timeout), and the resignation if this was the N-th in a row. Refused as `time_out`.
    pub fn stand_in(&self, seat: Seat) -> Result<(Game, Vec<Event>), RulesError> {
        let mut next = self.clone();
        let mut events = next.time_out(seat)?;
        for _ in 0..MAX_STAND_IN_MOVES {
            if next.played_for != Some(seat) {
                return Ok((next, events));
            }
            let action = next.simplest_move(seat).ok_or(RulesError::NotAwaited)?;
            events.extend(next.apply_mut(seat, &action)?);
        }
        Err(RulesError::NotAwaited)
    }

    /// R10.3: `seat` resigns ([`Input::Resign`](crate::Input::Resign)). With two players or
    /// Partner the game ends at once and the other player (team) wins; with three or four the
    /// seat stays at the table, and the game ends without a winner once every seat has
    /// resigned. Refused with `seat_out_of_range`, `game_over` or `already_resigned`.
    pub(super) fn resign(&mut self, seat: Seat) -> Result<Vec<Event>, RulesError> {
        if seat >= self.players() {
            return Err(RulesError::SeatOutOfRange(seat));
        }
        if self.is_over() {
            return Err(RulesError::GameOver);
        }
        if self.resigned(seat) {
            return Err(RulesError::AlreadyResigned);
        }
        let mut events = Vec::with_capacity(2);
        self.resign_seat(seat, ResignReason::Player, &mut events);
        Ok(events)
    }

    /// R10.2: the simplest move for `seat`'s next single action, None when the game does not
    /// await the seat. Applied again and again it plays the seat until it is no longer
    /// awaited. It never calls Racko.
    pub fn simplest_move(&self, seat: Seat) -> Option<Action> {
        if !self.awaiting().contains(&seat) {
            return None;
        }
        match self.phase {
            Phase::ChoosingDeal { .. } => Some(Action::ChooseDeal { blitz: false }),
            Phase::BlitzDeal => {
                (0..12)
                    .find(|i| !self.slot_filled(seat, *i))
                    .map(|i| Action::PlaceBlitzCard {
                        slot: Slot::from_index(i),
                    })
            }
            Phase::Turn {
                stage: TurnStage::Begin,
                ..
            } => {
                if self.can_draw() {
                    Some(Action::Draw)
                } else if self.top_discard_takeable() {
                    // R3.6: nothing to draw; the top discard goes into slot 5.
                    Some(Action::TakeDiscard {
                        slot: Slot::from_index(0),
                    })
                } else {
                    None
                }
            }
            Phase::Turn {
                stage: TurnStage::Drawn,
                ..
            } => Some(Action::DiscardDrawn),
            // An event card: the first of its legal choices, as they are listed.
            Phase::Turn { .. } => self
                .legal_actions(seat)
                .into_iter()
                .find(|action| *action != Action::CallRacko),
            Phase::AwaitingRound | Phase::GameOver { .. } => None,
        }
    }

    /// R10.3: true when `seat` has resigned.
    pub fn resigned(&self, seat: Seat) -> bool {
        self.resigned.contains(&seat)
    }

    /// R10.3: the seats that resigned, ascending.
    pub fn resigned_seats(&self) -> Vec<Seat> {
        self.resigned.clone()
    }

    /// R10.2: the turns in a row on which `seat` ran out of time (0 for a seat not at the
    /// table).
    pub fn timeouts(&self, seat: Seat) -> u8 {
        self.timeouts.get(&seat).copied().unwrap_or(0)
    }

    /// R10.2: the seat being played for after its deadline passed, if any.
    pub fn played_for(&self) -> Option<Seat> {
        self.played_for
    }

    /// R10.2, after an action: the seat played for stays so while the game still awaits it
    /// in the same stage; once it is no longer awaited, or the action's `events` begin a new
    /// stage for it (a skip that gives it the next turn as well, a filled Blitz rack followed
    /// by its first turn), the mark ends, and a seat that has run out of time on
    /// `timeouts_to_resign` turns in a row resigns.
    pub(super) fn settle_played_for(&mut self, events: &mut Vec<Event>) {
        let Some(seat) = self.played_for else {
            return;
        };
        let same_stage = !events.iter().any(|e| begins_stage(e, seat));
        if same_stage && self.awaiting().contains(&seat) {
            return;
        }
        self.played_for = None;
        let limit = self.options.timeouts_to_resign;
        if !self.is_over() && !self.resigned(seat) && self.timeouts(seat) >= limit {
            self.resign_seat(seat, ResignReason::Timeouts, events);
        }
    }

    /// R10.3, checked: records the resignation and ends the game if it must.
    fn resign_seat(&mut self, seat: Seat, reason: ResignReason, events: &mut Vec<Event>) {
        if let Err(at) = self.resigned.binary_search(&seat) {
            self.resigned.insert(at, seat);
        }
        events.push(Event::Resigned { seat, reason });
        if self.players() == 2 || self.options.partner {
            let partner = self.options.partner;
            let same_side = |s: Seat| s == seat || (partner && s % 2 == seat % 2);
            let winners = self.seats().filter(|s| !same_side(*s)).collect();
            self.end_game(winners, events);
        } else if self.resigned.len() == usize::from(self.players()) {
            self.end_game(Vec::new(), events);
        }
    }

    /// R10.3: the game ends at once; the round in progress is not scored, the totals stand.
    fn end_game(&mut self, winners: Vec<Seat>, events: &mut Vec<Event>) {
        self.stock.clear();
        self.discard.clear();
        self.drawn = None;
        self.blitz = None;
        self.pending_stack = None;
        self.played_for = None;
        events.push(Event::GameEnded {
            winners: winners.clone(),
            totals: self.totals.clone(),
        });
        self.phase = Phase::GameOver { winners };
    }
}
