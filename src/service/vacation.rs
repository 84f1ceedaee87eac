//! R10.5: vacations. A registered person may be away 1 to 14 days at a time and 30 days per
//! calendar year (UTC, counted in the year a vacation begins; whole days, an early return
//! gives back the days not begun). While away, their turn time does not run: every change of
//! a vacation moves the deadlines of their open and active games through each game's write
//! path (`away` says how), so the others see the move and the time they are away at once.

use chrono::{DateTime, Datelike, Duration, TimeZone, Utc};
use racko_rules::RulesCode;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use super::write::{change_game, Asker, Decision, Expect};
use super::{away, due, farewell, Caller, Service};
use crate::error::{Code, ServiceError};
use crate::store::{GameStatus, StoredAs, VacationRecord};

/// The longest vacation, in days.
pub const MAX_DAYS: i64 = 14;
/// The days of vacation a calendar year allows.
pub const DAYS_PER_YEAR: i64 = 30;

/// How long to be away: `days` from now, or `until` a time 1 to 14 days ahead.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({ "days": 7 }))]
pub struct VacationRequest {
    /// Days away, from now: 1 to 14. Give this or `until`, not both.
    #[schema(minimum = 1, maximum = 14)]
    pub days: Option<i64>,
    /// Back at this time, 1 to 14 days from now (counted as whole days begun). Give this or
    /// `days`, not both.
    pub until: Option<DateTime<Utc>>,
}

/// A vacation: away from `starts_at` until `ends_at`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Vacation {
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
}

/// The caller's vacation, if one is on, and what this year's allowance has left.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct VacationStatus {
    /// The vacation on now; null when the caller is not away.
    pub vacation: Option<Vacation>,
    /// The calendar year (UTC) the days below count in: the current one.
    pub year: i32,
    /// Days taken this year: each vacation begun this year, in whole days begun (the
    /// planned days while it is on).
    #[schema(minimum = 0, maximum = 30)]
    pub days_taken: i64,
    /// Days still allowed this year (30 a year).
    #[schema(minimum = 0, maximum = 30)]
    pub days_left: i64,
}

/// The whole days begun of a vacation, as charged to the allowance.
fn charged(vacation: &VacationRecord) -> i64 {
    const DAY: i64 = 86_400_000_000;
    let away = vacation.end() - vacation.starts_at;
    let micros = away.num_microseconds().unwrap_or(i64::MAX / 2).max(0);
    micros.div_euclid(DAY) + i64::from(micros.rem_euclid(DAY) > 0)
}

/// The first moment of the calendar year of `now`, and of the one before (a vacation begun
/// then may still be on).
fn years(now: DateTime<Utc>) -> (DateTime<Utc>, DateTime<Utc>) {
    let start = |year| Utc.with_ymd_and_hms(year, 1, 1, 0, 0, 0).single();
    let this = start(now.year()).unwrap_or(now);
    (this, start(now.year() - 1).unwrap_or(this))
}

fn on_at(vacations: &[VacationRecord], now: DateTime<Utc>) -> Option<&VacationRecord> {
    vacations
        .iter()
        .find(|v| v.starts_at <= now && now < v.end())
}

fn taken(vacations: &[VacationRecord], year_start: DateTime<Utc>) -> i64 {
    vacations
        .iter()
        .filter(|v| v.starts_at >= year_start)
        .map(charged)
        .sum()
}

fn status_of(vacations: &[VacationRecord], now: DateTime<Utc>) -> VacationStatus {
    let (this_year, _) = years(now);
    let days_taken = taken(vacations, this_year);
    VacationStatus {
        vacation: on_at(vacations, now).map(|v| Vacation {
            starts_at: v.starts_at,
            ends_at: v.end(),
        }),
        year: now.year(),
        days_taken,
        days_left: (DAYS_PER_YEAR - days_taken).max(0),
    }
}

/// The caller's vacation and allowance now.
pub fn status(store: &Service, caller: &Caller) -> Result<VacationStatus, ServiceError> {
    let now = store.now();
    let vacations = store.vacations_of(caller.id, years(now).1)?;
    Ok(status_of(&vacations, now))
}

/// The end of a vacation beginning at `now` for `request`, checked against R10.5's bounds.
fn end_of(request: &VacationRequest, now: DateTime<Utc>) -> Result<DateTime<Utc>, ServiceError> {
    let length = match (request.days, request.until) {
        (Some(days), None) if days < 1 => return Err(too_short()),
        (Some(days), None) if days > MAX_DAYS => return Err(too_long()),
        (Some(days), None) => Duration::days(days),
        (None, Some(until)) => until - now,
        _ => {
            return Err(ServiceError::new(
                Code::InvalidBody,
                "give either days or until",
            ))
        }
    };
    if length < Duration::days(1) {
        return Err(too_short());
    }
    if length > Duration::days(MAX_DAYS) {
        return Err(too_long());
    }
    Ok(now + length)
}

fn too_short() -> ServiceError {
    ServiceError::new(Code::VacationTooShort, "a vacation lasts at least 1 day")
}

fn too_long() -> ServiceError {
    ServiceError::new(
        Code::VacationTooLong,
        format!("a vacation lasts at most {MAX_DAYS} days"),
    )
}

/// Begins the caller's vacation now, within this year's allowance, and moves the deadlines of
/// its games (R10.5). Guests may not: their account lasts only while they play.
pub fn take(
    store: &Service,
    caller: &Caller,
    guest: bool,
    request: &VacationRequest,
) -> Result<VacationStatus, ServiceError> {
    if guest {
        return Err(ServiceError::new(
            Code::VacationNeedsAccount,
            "guests cannot take a vacation: register first",
        ));
    }
    let now = store.now();
    let vacation = VacationRecord {
        id: Uuid::new_v4(),
        account_id: caller.id,
        starts_at: now,
        ends_at: end_of(request, now)?,
        ended_at: None,
    };
    let (this_year, since) = years(now);
    let allowed = |earlier: &[VacationRecord]| {
        if let Some(on) = on_at(earlier, now) {
            return Err(ServiceError::new(
                Code::AlreadyOnVacation,
                format!("already on vacation until {}", on.end().to_rfc3339()),
            ));
        }
        let left = DAYS_PER_YEAR - taken(earlier, this_year);
        if charged(&vacation) > left {
            return Err(ServiceError::new(
                Code::VacationAllowanceExhausted,
                format!("{left} of this year's {DAYS_PER_YEAR} days of vacation are left"),
            ));
        }
        Ok(())
    };
    store.take_vacation(&vacation, since, allowed)??;
    move_deadlines(store, caller.id, &vacation);
    status(store, caller)
}

/// Ends the caller's vacation now: the unused days return to the allowance, and each
/// deadline moves back by the time not spent away (R10.5).
pub fn end(store: &Service, caller: &Caller) -> Result<VacationStatus, ServiceError> {
    let Some(ended) = store.end_vacation(caller.id, store.now())? else {
        return Err(ServiceError::new(
            Code::VacationNotFound,
            "the caller is not on vacation",
        ));
    };
    move_deadlines(store, caller.id, &ended);
    status(store, caller)
}

/// Makes every open and active game of `account` count `vacation` on its seats. A game that
/// fails here is left to the sweeper, which catches up before it acts (`away::catch_up`).
fn move_deadlines(store: &Service, account: Uuid, vacation: &VacationRecord) {
    let span = (vacation.starts_at, vacation.end());
    let decide = |game: &crate::store::GameRecord| {
        let mut decision = Decision::keep(game);
        let turn = due::turn_time(&game.state);
        for seat in decision
            .seats
            .iter_mut()
            .filter(|s| s.account_id == account)
        {
            away::account_for(seat, span, turn);
        }
        if decision.seats == game.seats {
            return Err(ServiceError::new(
                Code::Rules(RulesCode::NotAwaited),
                "nothing to move",
            ));
        }
        Ok(decision)
    };
    let asker = Asker {
        account,
        key: None,
        keeps: StoredAs::Answer,
    };
    for status in [GameStatus::Active, GameStatus::Open] {
        let games = match farewell::games_of(store, account, status) {
            Ok(games) => games,
            Err(e) => {
                return tracing::warn!(code = %e.code, error = %e.detail, "vacation: no games")
            }
        };
        for id in games {
            let moved = change_game(store, id, Expect::Latest, asker, decide, |_| ());
            if let Err(e) = moved.map(drop) {
                if e.code != Code::Rules(RulesCode::NotAwaited) {
                    tracing::warn!(game = %id, code = %e.code, error = %e.detail, "vacation: deadlines not moved");
                }
            }
        }
    }
}
