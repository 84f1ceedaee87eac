//! The end of a round (R5, R7.2, R7.3) and of the game (R6.1, R7.1).

use super::{Game, Phase};
use crate::event::RoundEnd;
use crate::score::{prefix_score, racko_score, BLITZ_RACKO_SCORE};
use crate::view::RoundResult;
use crate::{Event, Seat};

impl Game {
    /// Scores the round, shows every rack and the seed (R8.2), and ends the game if a total
    /// reached the target (R6.1).
    pub(super) fn end_round(&mut self, end: RoundEnd, events: &mut Vec<Event>) {
        let scores: Vec<u32> = self
            .seats()
            .map(|seat| self.round_score(&end, seat))
            .collect();
        for (total, score) in self.totals.iter_mut().zip(&scores) {
            *total += score;
        }
        self.round_scores.push(scores.clone());
        let racks = self.racks.clone();
        events.push(Event::RoundEnded {
            round: self.round,
            end: end.clone(),
            racks: racks.clone(),
            scores: scores.clone(),
            totals: self.totals.clone(),
            seed: self.seed,
        });
        self.last_round = Some(RoundResult {
            round: self.round,
            dealer: self.dealer,
            end,
            racks,
            scores,
            seed: self.seed,
        });
        // The round's cards are gone from the table; its racks live on in `last_round`.
        self.stock.clear();
        self.discard.clear();
        self.drawn = None;
        self.blitz = None;
        self.pending_stack = None;
        self.phase = match self.winners() {
            Some(winners) => {
                events.push(Event::GameEnded {
                    winners: winners.clone(),
                    totals: self.totals.clone(),
                });
                Phase::GameOver { winners }
            }
            None => Phase::AwaitingRound,
        };
    }

    /// R5.1, R5.2, R5.3, R7.3
    fn round_score(&self, end: &RoundEnd, seat: Seat) -> u32 {
        let rack = self.rack_cards(seat);
        match *end {
            RoundEnd::Racko { seat: caller } if caller == seat => {
                racko_score(rack, self.options.bonus, self.deck.max_number)
            }
            RoundEnd::BlitzRacko { seat: winner } if winner == seat => BLITZ_RACKO_SCORE,
            _ => prefix_score(rack),
        }
    }

    /// R7.1: team totals (seats 0+2, then 1+3), with Partner only.
    pub(super) fn team_totals(&self) -> Option<Vec<u32>> {
        if !self.options.partner {
            return None;
        }
        let mut teams = vec![0; 2];
        for (seat, total) in self.totals.iter().enumerate() {
            teams[seat % 2] += total;
        }
        Some(teams)
    }

    /// R6.1: None while no player (team) has reached the target; else every seat of the
    /// highest total (both partners of a team). R10.3: any total may end the game, but only
    /// seats that have not resigned win (with two players or Partner a resignation has ended
    /// the game already).
    fn winners(&self) -> Option<Vec<Seat>> {
        let sides = self.team_totals().unwrap_or_else(|| self.totals.clone());
        let side_of = |seat: Seat| usize::from(seat) % sides.len();
        let highest = sides.iter().copied().max()?;
        if highest < self.options.target {
            return None;
        }
        let playing = || self.seats().filter(|s| !self.resigned(*s));
        let best = playing().map(|s| sides[side_of(s)]).max();
        Some(
            playing()
                .filter(|s| Some(sides[side_of(*s)]) == best)
                .collect(),
        )
    }
}
