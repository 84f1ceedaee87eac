//! What the server owes a game, worked out in the write path after every change (issues 11
//! and 12): which seats are awaited, each awaited seat's deadline (R10.1), and `due_at`, the
//! earliest moment the server must act for a seat itself. The sweeper (`sweep`) acts when
//! `due_at` comes; both read the same rules from here, so a game is due exactly when the
//! sweeper has something to do.

use chrono::{DateTime, Duration, Utc};
use racko_bots::Level;
use racko_rules::{Action, Game, Seat};

use super::computer;
use crate::store::{GameStatus, SeatRecord};

/// Who plays a seat when the server does: a computer seat at its level; a resigned seat
/// (R10.3) and a seat whose time ran out (R10.2) at `strong`.
pub const STAND_IN: Level = Level::Strong;

/// The level the server plays `seat` at by itself, whenever it has something to do; None for
/// a seat its player plays.
pub fn played_by_server(state: &Game, seat: &SeatRecord) -> Option<Level> {
    computer::level_of(seat.account_id).or_else(|| state.resigned(seat.seat).then_some(STAND_IN))
}

/// True when `seat` has something to do now: it is awaited, or (R4.2) it may call Racko.
pub fn has_move(state: &Game, seat: Seat) -> bool {
    state.awaiting().contains(&seat) || state.legal_actions(seat).contains(&Action::CallRacko)
}

/// The game's turn time (R10.1), if it has one.
pub fn turn_time(state: &Game) -> Option<Duration> {
    state
        .options()
        .turn_time
        .map(|secs| Duration::seconds(i64::from(secs)))
}

/// Sets each seat's `awaiting` flag, deadline and reminder flag for `state`, and returns the
/// game's `due_at`. `before` are the seats as they were: a seat still awaited keeps its
/// deadline (R10.1: drawing within a turn does not restart it) and whether it was reminded.
pub fn settle(
    state: &Game,
    status: GameStatus,
    before: &[SeatRecord],
    seats: &mut [SeatRecord],
    now: DateTime<Utc>,
    lead: std::time::Duration,
) -> Option<DateTime<Utc>> {
    let awaiting = state.awaiting();
    let active = status == GameStatus::Active;
    let mut due: Option<DateTime<Utc>> = None;
    let mut due_by = |at: DateTime<Utc>| due = Some(due.map_or(at, |d: DateTime<Utc>| d.min(at)));
    for seat in seats.iter_mut() {
        seat.awaiting = awaiting.contains(&seat.seat);
        let kept = before
            .iter()
            .find(|b| b.seat == seat.seat && b.account_id == seat.account_id && b.awaiting)
            .and_then(|b| b.deadline);
        if !active || !seat.awaiting || kept.is_none() {
            seat.reminded = false;
        }
        seat.deadline = None;
        if !active {
            continue;
        }
        if played_by_server(state, seat).is_some() {
            if has_move(state, seat.seat) {
                due_by(now);
            }
            continue;
        }
        if seat.awaiting {
            seat.deadline = kept.or_else(|| turn_time(state).map(|t| now + t));
        }
        if let Some(deadline) = seat.deadline {
            due_by(deadline);
            if !seat.reminded {
                due_by(remind_at(state, deadline, lead));
            }
        }
    }
    due
}

/// When the player of a seat with `deadline` is reminded of it (issue 11.4): `lead` before it,
/// but never earlier than half the turn time into the turn.
pub fn remind_at(
    state: &Game,
    deadline: DateTime<Utc>,
    lead: std::time::Duration,
) -> DateTime<Utc> {
    let lead = Duration::from_std(lead).unwrap_or(Duration::MAX);
    let half_turn = turn_time(state).map_or(lead, |t| t / 2);
    deadline - lead.min(half_turn)
}

/// Marks the seats whose reminder is due by `now` and whose deadline has not passed; true
/// when it marked any (the write path then tells them, `feed::items`).
pub fn remind(
    state: &Game,
    seats: &mut [SeatRecord],
    now: DateTime<Utc>,
    lead: std::time::Duration,
) -> bool {
    let mut any = false;
    for seat in seats.iter_mut() {
        let Some(deadline) = seat.deadline else {
            continue;
        };
        if !seat.reminded && now < deadline && remind_at(state, deadline, lead) <= now {
            seat.reminded = true;
            any = true;
        }
    }
    any
}

/// The seat whose deadline has passed by `now`, the earliest first (R10.2).
pub fn overdue(seats: &[SeatRecord], now: DateTime<Utc>) -> Option<&SeatRecord> {
    seats
        .iter()
        .filter(|s| s.deadline.is_some_and(|d| d <= now))
        .min_by_key(|s| (s.deadline, s.seat))
}
