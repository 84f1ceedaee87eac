//! Games made by play, for a population of stored games (`examples/scale` measures how the
//! server's costs grow with its data). Each game is played by two computer players through
//! the rules and logged as the service logs a game created by one player and joined by
//! another: the lobby facts, each round dealt from a fresh seed, each action with the account
//! of its seat. So every stored log replays and verifies like one the server wrote.

use std::time::Duration;

use chrono::{DateTime, Utc};
use racko_bots::Level;
use racko_rules::{Game, Input, Options, Viewer, RULES_VERSION};
use uuid::Uuid;

use super::due;
use super::log_event::SeatedPlayer;
use super::write::{deal_round, Logged};
use super::LogEvent;
use crate::error::ServiceError;
use crate::store::{Access, GameStatus, NewEvent, NewGame, SeatRecord};

/// An account that plays in the population.
#[derive(Clone, Debug)]
pub struct Player {
    pub id: Uuid,
    pub username: String,
}

/// How far a game of the population got.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Created, waiting for a second player (the lobby).
    Open,
    /// Started, `actions` actions played (fewer if it ended before).
    Active { actions: usize },
    /// Played to its end.
    Finished,
}

/// A two-player game (the default options: to 500 points, a 3-day turn time) between `host`
/// and `guest`, created at `at` with `invite_code`, taken to `stage` by a `strong` and a
/// `basic` computer player (`seed`: their chance). The game and its log, ready to insert.
pub fn game(
    (host, guest): (&Player, &Player),
    stage: Stage,
    (at, reminder_lead): (DateTime<Utc>, Duration),
    invite_code: String,
    seed: u64,
) -> Result<(NewGame, Vec<NewEvent>), ServiceError> {
    let options = Options::default();
    let mut state = Game::new(options.clone())?;
    let mut log = vec![
        logged(
            Some(host.id),
            LogEvent::GameCreated {
                options: options.clone(),
                rules_version: RULES_VERSION,
                created_by: host.username.clone(),
            },
        ),
        logged(
            Some(host.id),
            LogEvent::PlayerJoined {
                seat: 0,
                username: host.username.clone(),
            },
        ),
    ];
    let mut seats = vec![seat(0, host)];
    let mut status = GameStatus::Open;
    if stage != Stage::Open {
        seats.push(seat(1, guest));
        log.push(logged(
            Some(guest.id),
            LogEvent::PlayerJoined {
                seat: 1,
                username: guest.username.clone(),
            },
        ));
        let players = SeatedPlayer::all(&seats);
        log.push(logged(None, LogEvent::GameStarted { players }));
        status = GameStatus::Active;
        state = deal(&state, &mut log)?;
        let limit = match stage {
            Stage::Active { actions } => actions,
            _ => usize::MAX,
        };
        let mut played = 0;
        while !state.is_over() && played < limit {
            let Some(&at_turn) = state.awaiting().first() else {
                break;
            };
            let level = if at_turn == 0 {
                Level::Strong
            } else {
                Level::Basic
            };
            let view = state.view(Viewer::Seat { seat: at_turn });
            let Some(action) = racko_bots::decide(level, &view, seed.wrapping_add(played as u64))
            else {
                break;
            };
            // As the service logs an action: the round it was played in, and as its actor
            // the account of the seat whose own choice each event records.
            let round = state.round();
            let (next, events) = state.play(&Input::Act {
                seat: at_turn,
                action,
            })?;
            for event in events {
                log.push(Logged {
                    round,
                    actor: super::play::account_acting(&seats, &event),
                    event: LogEvent::Play(event),
                });
            }
            state = next;
            played += 1;
            if state.needs_round() {
                state = deal(&state, &mut log)?;
            }
        }
        if state.is_over() {
            status = GameStatus::Finished;
        }
    }
    let due_at = due::settle(&state, status, (&[], &log), &mut seats, at, reminder_lead);
    let events = log
        .iter()
        .map(|entry| entry.event.to_new(entry.round, entry.actor))
        .collect::<Result<Vec<_>, _>>()?;
    let game = NewGame {
        id: Uuid::new_v4(),
        created_by: host.id,
        invite_code,
        options,
        rules_version: RULES_VERSION,
        state,
        status,
        seats,
        test_mode: false,
        stacked: Vec::new(),
        created_at: at,
        due_at,
        rematch_of: None,
        access: Access::default(),
    };
    Ok((game, events))
}

fn logged(actor: Option<Uuid>, event: LogEvent) -> Logged {
    Logged {
        round: 0,
        actor,
        event,
    }
}

fn seat(seat: u8, player: &Player) -> SeatRecord {
    SeatRecord {
        seat,
        account_id: player.id,
        username: player.username.clone(),
        awaiting: false,
        deadline: None,
        reminded: false,
        away_until: None,
    }
}

/// Deals the next round of `state` (a fresh seed, as the service deals), logging it.
fn deal(state: &Game, log: &mut Vec<Logged>) -> Result<Game, ServiceError> {
    let (dealt, events) = deal_round(state, false, &[])?;
    let round = dealt.round();
    log.extend(events.into_iter().map(|event| Logged {
        round,
        actor: None,
        event: LogEvent::Play(event),
    }));
    Ok(dealt)
}
