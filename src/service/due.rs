//! What the server owes a game, worked out in the write path after every change: which seats
//! are awaited, each awaited seat's deadline (R10.1), and `due_at`, the earliest moment the
//! server must act for a seat itself. The sweeper (`sweep`) acts when `due_at` comes; both
//! read the same rules from here, so a game is due exactly when the sweeper has something to
//! do. Which events start a deadline afresh is the rules' fact (`deadline::begins_stage`).

use chrono::{DateTime, Duration, Utc};
use racko_bots::Level;
use racko_rules::deadline::begins_stage;
use racko_rules::{Action, Game, Seat};

use super::computer;
use super::write::Logged;
use super::LogEvent;
use crate::store::{GameStatus, SeatRecord};

/// Who plays a resigned seat of three or four (R10.3): the strongest computer level. A seat
/// whose time ran out gets R10.2's simplest move instead (`Game::stand_in`).
pub const FOR_RESIGNED: Level = Level::BEST;

/// The level the server plays `seat` at by itself, whenever it has something to do; None for
/// a seat its player plays.
pub fn played_by_server(state: &Game, seat: &SeatRecord) -> Option<Level> {
    computer::level_of(seat.account_id)
        .or_else(|| state.resigned(seat.seat).then_some(FOR_RESIGNED))
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

/// True when the events of `log` begin a new stage for `seat` (R10.1): if the game awaits it
/// afterwards, its deadline starts afresh.
pub fn new_stage(log: &[Logged], seat: Seat) -> bool {
    log.iter().any(|logged| match &logged.event {
        LogEvent::Play(event) => begins_stage(event, seat),
        _ => false,
    })
}

/// Sets each seat's `awaiting` flag, deadline and reminder flag for `state`, and returns the
/// game's `due_at`. `before` are the seats as they were and `log` the change's events: a seat
/// still awaited in the same stage keeps its deadline (R10.1: drawing within a turn does not
/// restart it) and whether it was reminded; a seat awaited in a new stage gets a fresh one.
pub fn settle(
    state: &Game,
    status: GameStatus,
    (before, log): (&[SeatRecord], &[Logged]),
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
        // The decision's own deadline: one a decision moved (R10.5) is kept as moved.
        let kept = before
            .iter()
            .find(|b| b.seat == seat.seat && b.account_id == seat.account_id && b.awaiting)
            .and(seat.deadline)
            .filter(|_| !new_stage(log, seat.seat));
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
        // R10.5: a player away does not use turn time; a new stage's time starts on return.
        let back = seat.away_until.map_or(now, |until| until.max(now));
        if seat.awaiting {
            seat.deadline = kept.or_else(|| turn_time(state).map(|t| back + t));
        }
        if let Some(deadline) = seat.deadline {
            due_by(deadline);
            if !seat.reminded {
                due_by(remind_at(state, deadline, lead).max(back));
            }
        }
    }
    due
}

/// The `due_at` to store when the server next owes the game something at `due` and the game
/// has `stored`: a sooner moment still ahead of `now` is kept. Each turn starts a new deadline
/// (R10.1), so moving `due_at` later on every move would write the sweeper's index entry anew
/// each time and keep the games row from being rewritten in place. Kept, it only brings the
/// sweeper early: it finds nothing due and stores the right moment (`sweep`). Never later than
/// `due`, so the sweeper is never late.
pub fn to_store(
    stored: Option<DateTime<Utc>>,
    due: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
) -> Option<DateTime<Utc>> {
    match (stored, due) {
        (Some(stored), Some(due)) if now < stored && stored <= due => Some(stored),
        _ => due,
    }
}

/// When the player of a seat with `deadline` is reminded of it: `lead` before it,
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

/// Marks the seats whose reminder is due by `now` and whose deadline has not passed, unless
/// the player is away (R10.5); true when it marked any (the write path then tells them, `feed::items`).
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
        let away = seat.away_until.is_some_and(|until| until > now);
        if !seat.reminded && !away && now < deadline && remind_at(state, deadline, lead) <= now {
            seat.reminded = true;
            any = true;
        }
    }
    any
}

/// The seat whose deadline has passed by `now`, the earliest first (R10.2). `before` are the
/// seats with their deadlines as stored, `log` what has been decided since: a deadline counts
/// only while its seat is still awaited in the stage it was set for, so each passed deadline
/// gives one timeout.
pub fn overdue(
    state: &Game,
    (before, log): (&[SeatRecord], &[Logged]),
    now: DateTime<Utc>,
) -> Option<Seat> {
    let awaiting = state.awaiting();
    before
        .iter()
        .filter(|s| s.deadline.is_some_and(|d| d <= now))
        .filter(|s| awaiting.contains(&s.seat) && !new_stage(log, s.seat))
        .min_by_key(|s| (s.deadline, s.seat))
        .map(|s| s.seat)
}

#[cfg(test)]
mod tests {
    use chrono::{Duration, TimeZone, Utc};

    use super::to_store;

    // R10.1: each turn restarts its seat's deadline; the stored moment may be sooner, never later.
    #[test]
    fn r10_1_a_sooner_moment_still_ahead_is_kept() {
        let now = Utc
            .with_ymd_and_hms(2026, 12, 6, 12, 0, 0)
            .single()
            .expect("a valid time");
        let (soon, later) = (now + Duration::hours(1), now + Duration::days(3));
        assert_eq!(to_store(Some(soon), Some(later), now), Some(soon));
        assert_eq!(
            to_store(Some(later), Some(soon), now),
            Some(soon),
            "sooner due: moved"
        );
        assert_eq!(
            to_store(Some(now), Some(later), now),
            Some(later),
            "come: set right"
        );
        assert_eq!(
            to_store(Some(soon), None, now),
            None,
            "nothing owed: cleared"
        );
        assert_eq!(to_store(None, Some(later), now), Some(later));
    }
}
