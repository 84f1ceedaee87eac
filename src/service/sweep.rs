//! The server's own moves, made by the sweeper of every process when a game's `due_at` comes:
//! a computer seat's move, a resigned seat's (R10.3), an off-turn Racko call of either (R4.2),
//! and for a seat whose deadline passed a `turn_timed_out` and the simplest move made for it
//! (R10.2), once per passed deadline. Each goes through the game's one write path, decided on the locked,
//! current game; several processes may find the same game due and the later one finds nothing
//! left to do, so every move is made once.

use chrono::{DateTime, Utc};
use racko_rules::{Action, Game, Input, RulesCode, Seat, Viewer};
use uuid::Uuid;

use super::due::{self, played_by_server};
use super::write::{change_game_by_server, Decision, Served};
use super::{LogEvent, Service};
use crate::error::{Code, ServiceError};
use crate::store::{GameRecord, GameStatus, SeatRecord, VacationRecord};

/// Moves made in one transaction at most: a table of computers plays on in the next one.
const MAX_MOVES: usize = 64;

/// What one look at a due game did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Swept {
    /// Moves were made; the game is at this version.
    Moved { version: i64 },
    /// Nothing was due after all (another process came first); `due_at` was set right.
    NothingDue,
    /// Another transaction holds the game: its own sweeper or a player is on it.
    Held,
}

/// Makes the moves game `id` is due (see the module docs).
pub fn sweep_game(store: &Service, id: Uuid) -> Result<Swept, ServiceError> {
    let lead = store.reminder_lead();
    // R10.5: the players' vacations, read only when a person's deadline or reminder is due (a
    // computer's move needs none), then the look is made again with them.
    let mut away: Option<Vec<VacationRecord>> = None;
    loop {
        let wanted = std::cell::Cell::new(false);
        let served = change_game_by_server(store, id, |game| {
            let now = store.now();
            if away.is_none() && person_due(game, now, lead) {
                wanted.set(true);
                return Err(nothing_due());
            }
            decide(game, away.as_deref().unwrap_or_default(), now, lead)
        })?;
        match served {
            Served::Written(game) => {
                return Ok(Swept::Moved {
                    version: game.version,
                })
            }
            Served::Held => return Ok(Swept::Held),
            Served::NothingToDo(_) if wanted.get() => {
                let since = store.now() - chrono::Duration::days(366);
                away = Some(store.vacations_at_table(id, since)?);
            }
            Served::NothingToDo(game) => {
                let mut seats = game.seats.clone();
                let (state, status) = (&game.state, game.status);
                let before = (game.seats.as_slice(), &[][..]);
                let due = due::settle(state, status, before, &mut seats, store.now(), lead);
                store.set_due(id, game.version, due)?;
                return Ok(Swept::NothingDue);
            }
        }
    }
}

/// True when a seat's deadline or its reminder has come by `now`: what a vacation may move.
fn person_due(game: &GameRecord, now: DateTime<Utc>, lead: std::time::Duration) -> bool {
    game.status == GameStatus::Active
        && game.seats.iter().any(|seat| {
            seat.deadline.is_some_and(|deadline| {
                deadline <= now
                    || (!seat.reminded && due::remind_at(&game.state, deadline, lead) <= now)
            })
        })
}

fn nothing_due() -> ServiceError {
    ServiceError::new(Code::Rules(RulesCode::NotAwaited), "nothing is due")
}

/// The moves and reminders due at `now`, as one decision; `not_awaited` when there are none.
pub fn decide(
    game: &GameRecord,
    away: &[VacationRecord],
    now: DateTime<Utc>,
    lead: std::time::Duration,
) -> Result<Decision, ServiceError> {
    if game.status != GameStatus::Active {
        return Err(nothing_due());
    }
    // R10.5 first: a deadline that should count a vacation is moved before it is looked at.
    let mut caught_up;
    let mut moved = false;
    let game = if away.is_empty() {
        game
    } else {
        caught_up = game.clone();
        let turn = due::turn_time(&game.state);
        moved = super::away::catch_up(&mut caught_up.seats, turn, away, now);
        &caught_up
    };
    let mut decision = Decision::keep(game);
    let reminded = due::remind(&decision.state, &mut decision.seats, now, lead);
    for _ in 0..MAX_MOVES {
        if decision.state.needs_round() || decision.state.is_over() {
            break;
        }
        if let Some((seat, action, actor)) = server_move(&decision.state, &decision.seats) {
            play(&mut decision, seat, &action, actor)?;
            continue;
        }
        // R10.2: the earliest seat whose stored deadline has passed, if it is still awaited in
        // that deadline's stage (a seat awaited anew by this decision has a fresh one).
        let before = (game.seats.as_slice(), decision.log.as_slice());
        if let Some(seat) = due::overdue(&decision.state, before, now) {
            time_out(&mut decision, seat)?;
            continue;
        }
        break;
    }
    if decision.log.is_empty() && !reminded && !moved {
        return Err(nothing_due());
    }
    Ok(decision)
}

/// The next move of a seat the server plays: an off-turn Racko call first (R4.2: a swap may
/// have ordered its rack), then an awaited seat's move.
fn server_move(state: &Game, seats: &[SeatRecord]) -> Option<(Seat, Action, Option<Uuid>)> {
    let played = seats
        .iter()
        .filter_map(|s| played_by_server(state, s).map(|level| (s, level)));
    let mut awaited = None;
    for (seat, level) in played {
        let actor = super::computer::level_of(seat.account_id).map(|_| seat.account_id);
        let legal = state.legal_actions(seat.seat);
        if legal.contains(&Action::CallRacko) {
            return Some((seat.seat, Action::CallRacko, actor));
        }
        if awaited.is_none() && state.awaiting().contains(&seat.seat) {
            let action = choose(state, seat.seat, level)?;
            awaited = Some((seat.seat, action, actor));
        }
    }
    awaited
}

/// The computer's choice for `seat` from its own view (it cannot see more), or
/// R10.2's simplest move should it have none.
fn choose(state: &Game, seat: Seat, level: racko_bots::Level) -> Option<Action> {
    let view = state.view(Viewer::Seat { seat });
    racko_bots::decide(level, &view, rand::random()).or_else(|| state.simplest_move(seat))
}

fn play(
    decision: &mut Decision,
    seat: Seat,
    action: &Action,
    actor: Option<Uuid>,
) -> Result<(), ServiceError> {
    let round = decision.state.round();
    let action = *action;
    let (state, events) = decision
        .state
        .play(&Input::Act { seat, action })
        .map_err(ServiceError::internal)?;
    for event in events {
        decision.log(round, actor, LogEvent::Play(event));
    }
    decision.state = state;
    Ok(())
}

/// R10.2: `turn_timed_out`, then the simplest move for the seat until its stage ends (the
/// rules resign it after the N-th such turn).
fn time_out(decision: &mut Decision, seat: Seat) -> Result<(), ServiceError> {
    let round = decision.state.round();
    let (state, events) = decision
        .state
        .stand_in(seat)
        .map_err(ServiceError::internal)?;
    for event in events {
        decision.log(round, None, LogEvent::Play(event));
    }
    decision.state = state;
    Ok(())
}
