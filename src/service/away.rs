//! R10.5: a seat's deadline while its player is on vacation. Turn time does not run while a
//! player is away: a deadline that had not passed when the vacation began moves to its end
//! plus the time that was left, and a stage that begins during it gets its whole turn time
//! from its end (`due::settle`, from the seat's `away_until`). The seat remembers the end its
//! deadline counts (`away_until`), so a vacation is counted once, and an early return moves
//! the deadline back by the unused time.
//!
//! Every change of a vacation moves the deadlines of the person's games through their write
//! path (`vacation`); the sweeper, before it reminds or times out a seat, catches up with any
//! vacation the seat's deadline does not count yet (a seat taken while away, a change that
//! lost a race), so a deadline never passes while its player is away.

use chrono::{DateTime, Duration, Utc};

use crate::store::{SeatRecord, VacationRecord};

/// Makes `seat`'s deadline count the vacation from `start` to `end` (`end` may be an early
/// return): a deadline moved for this vacation before moves by the change of its end; one not
/// moved yet, that had not passed at `start` and whose stage began before `end`, becomes `end`
/// plus the time left at `start` (at most the turn time `turn`).
pub fn account_for(
    seat: &mut SeatRecord,
    (start, end): (DateTime<Utc>, DateTime<Utc>),
    turn: Option<Duration>,
) {
    let counted = seat.away_until.filter(|until| *until >= start);
    if let Some(deadline) = seat.deadline.filter(|_| seat.awaiting) {
        seat.deadline = Some(match counted {
            Some(until) => deadline + (end - until),
            None => moved(deadline, (start, end), turn),
        });
    }
    seat.away_until = Some(end);
}

/// The deadline `deadline`, not yet moved for the vacation from `start` to `end`, moved.
fn moved(
    deadline: DateTime<Utc>,
    (start, end): (DateTime<Utc>, DateTime<Utc>),
    turn: Option<Duration>,
) -> DateTime<Utc> {
    match turn {
        // The stage began at `deadline - turn`, or later if the deadline was moved before.
        Some(turn) if deadline > start && deadline - turn < end => {
            end + (deadline - start).min(turn)
        }
        _ => deadline,
    }
}

/// The sweeper's look: moves each awaited seat's deadline for every vacation of its player
/// that began by `now` and that the deadline should count but does not. True when it moved
/// any.
pub fn catch_up(
    seats: &mut [SeatRecord],
    turn: Option<Duration>,
    vacations: &[VacationRecord],
    now: DateTime<Utc>,
) -> bool {
    let mut any = false;
    for seat in seats.iter_mut() {
        let account = seat.account_id;
        let theirs = vacations
            .iter()
            .filter(|v| v.account_id == account && v.starts_at <= now);
        for vacation in theirs {
            let span = (vacation.starts_at, vacation.end());
            let counted = seat.away_until.is_some_and(|until| until >= span.0);
            let Some(deadline) = seat.deadline.filter(|_| seat.awaiting) else {
                continue;
            };
            if counted || moved(deadline, span, turn) == deadline {
                continue;
            }
            account_for(seat, span, turn);
            any = true;
        }
    }
    any
}

#[cfg(test)]
mod tests {
    use super::*;
    use uuid::Uuid;

    fn at(hours: i64) -> DateTime<Utc> {
        DateTime::<Utc>::UNIX_EPOCH + Duration::hours(hours)
    }

    fn seat(deadline: i64) -> SeatRecord {
        SeatRecord {
            seat: 0,
            account_id: Uuid::nil(),
            username: "ann".into(),
            awaiting: true,
            deadline: Some(at(deadline)),
            reminded: false,
            away_until: None,
        }
    }

    const DAY: i64 = 24;

    #[test]
    fn r10_5_e9_the_time_left_is_kept_and_an_early_return_gives_back_the_rest() {
        // E9: a 3-day turn time, 1 day left when a 7-day vacation begins.
        let turn = Some(Duration::days(3));
        let mut ann = seat(10 * DAY);
        account_for(&mut ann, (at(9 * DAY), at(16 * DAY)), turn);
        assert_eq!(ann.deadline, Some(at(17 * DAY)));
        assert_eq!(ann.away_until, Some(at(16 * DAY)));
        // Back after 2 days.
        account_for(&mut ann, (at(9 * DAY), at(11 * DAY)), turn);
        assert_eq!(ann.deadline, Some(at(12 * DAY)));
    }

    #[test]
    fn r10_5_a_stage_begun_while_away_gets_its_whole_turn_time_from_the_return() {
        let turn = Some(Duration::days(3));
        let vacation = VacationRecord {
            id: Uuid::nil(),
            account_id: Uuid::nil(),
            starts_at: at(0),
            ends_at: at(7 * DAY),
            ended_at: None,
        };
        // Awaited from day 2 (a seat taken while away): the deadline the write path set.
        let mut ann = vec![seat(5 * DAY)];
        assert!(catch_up(
            &mut ann,
            turn,
            std::slice::from_ref(&vacation),
            at(4 * DAY)
        ));
        assert_eq!(ann[0].deadline, Some(at(10 * DAY)));
        // Counted once.
        assert!(!catch_up(
            &mut ann,
            turn,
            std::slice::from_ref(&vacation),
            at(5 * DAY)
        ));
        // A stage that began after the vacation is not moved.
        let mut bob = vec![seat(11 * DAY)];
        assert!(!catch_up(&mut bob, turn, &[vacation], at(9 * DAY)));
        assert_eq!(bob[0].deadline, Some(at(11 * DAY)));
    }

    #[test]
    fn r10_5_a_deadline_passed_before_the_vacation_stays_passed() {
        let turn = Some(Duration::days(3));
        let mut ann = seat(DAY);
        account_for(&mut ann, (at(2 * DAY), at(9 * DAY)), turn);
        assert_eq!(ann.deadline, Some(at(DAY)));
    }
}
