//! Playing: the caller's view of a game and applying one action.
//!
//! An action is decided against the stored current state (never a replay of the log), so its
//! cost does not grow with the length of the game.

use racko_rules::{Action, Input, Seat};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use super::idempotency::{IdempotencyKey, Reply};
use super::log_page::{EventEntry, Projection};
use super::view::GameView;
use super::write::{change_game, Asker, Decision, Expect, Written};
use super::{cancelled, seat_of, Caller, LogEvent, Service};
use crate::error::{Code, ServiceError};
use crate::store::{GameRecord, StoredAs};
use crate::store::{GameStatus, SeatRecord};

/// An action with the version of the game the client saw (or send it as `If-Match`).
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"action": {"type": "draw"}}))]
pub struct ActionRequest {
    /// The game's version the client saw (its `ETag`); missing: the `If-Match` header says it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<i64>,
    pub action: Action,
}

/// The game after the action and the events it caused, as the caller may see them.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct ActionResult {
    pub view: GameView,
    pub events: Vec<EventEntry>,
}

/// The caller's view of a game. Anyone signed in may look; only seats see their own cards.
pub fn view(store: &Service, caller: &Caller, id: Uuid) -> Result<GameView, ServiceError> {
    let game = super::access::load_visible(store, id, caller.id)?;
    Ok(GameView::of(&game, caller.id))
}

/// Applies `action` of the caller's seat if the game is still at `version`.
pub fn act(
    store: &Service,
    caller: &Caller,
    id: Uuid,
    version: i64,
    action: &Action,
    key: Option<&IdempotencyKey>,
) -> Result<Reply<ActionResult>, ServiceError> {
    let asker = Asker {
        account: caller.id,
        key,
        keeps: StoredAs::Change,
    };
    change_game(
        store,
        id,
        Expect::Version(version),
        asker,
        |game| decide(game, caller, action),
        |written| action_result(written, caller),
    )
}

/// The version the client saw, for a resignation (or send it as `If-Match`).
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({}))]
pub struct ResignRequest {
    /// The game's version the client saw (its `ETag`); missing: the `If-Match` header says it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<i64>,
}

/// The caller resigns (R10.3): if the game is still at the version he saw
/// (`Expect::Version`, his request), or as it is now (`Expect::Latest`, when he deletes his
/// account).
pub fn resign(
    store: &Service,
    caller: &Caller,
    id: Uuid,
    expect: Expect,
    key: Option<&IdempotencyKey>,
) -> Result<Reply<ActionResult>, ServiceError> {
    let asker = Asker {
        account: caller.id,
        key,
        keeps: StoredAs::Change,
    };
    change_game(
        store,
        id,
        expect,
        asker,
        |game| {
            let seat = playing_seat(game, caller)?;
            let (state, events) = game.state.play(&Input::Resign { seat })?;
            Ok(decision(game, state, events))
        },
        |written| action_result(written, caller),
    )
}

fn action_result(written: &Written<'_>, caller: &Caller) -> ActionResult {
    let projection = Projection::new(written.game, caller.id);
    let events = written
        .log
        .iter()
        .map(|(seq, entry)| {
            projection.entry(
                *seq,
                entry.round,
                entry.actor,
                written.game.updated_at,
                &entry.event,
            )
        })
        .collect();
    ActionResult {
        view: GameView::of(written.game, caller.id),
        events,
    }
}

/// The caller's seat in a started game that the caller still plays himself.
fn playing_seat(game: &GameRecord, caller: &Caller) -> Result<Seat, ServiceError> {
    let seat = seat_of(game, caller.id).ok_or_else(|| super::access::no_seat(game, caller.id))?;
    match game.status {
        GameStatus::Open => {
            return Err(ServiceError::new(
                Code::GameNotStarted,
                "the game starts when every seat is taken",
            ))
        }
        GameStatus::Cancelled => return Err(cancelled()),
        GameStatus::Active | GameStatus::Finished => {}
    }
    if game.state.resigned(seat) && !game.state.is_over() {
        return Err(ServiceError::new(
            Code::SeatResigned,
            "you resigned: the computer plays your seat now (R10.3)",
        ));
    }
    Ok(seat)
}

/// The decision that takes the game to `state` with `events`, each event's actor the account
/// of the seat whose own choice it records (`Event::actor`), none for the rest.
fn decision(
    game: &GameRecord,
    state: racko_rules::Game,
    events: Vec<racko_rules::Event>,
) -> Decision {
    let round = game.state.round();
    let mut decision = Decision {
        state,
        status: game.status,
        seats: game.seats.clone(),
        log: Vec::new(),
    };
    for event in events {
        let by = account_acting(&game.seats, &event);
        decision.log(round, by, LogEvent::Play(event));
    }
    decision
}

/// The account of the seat whose own choice `event` records (`Event::actor`), if any.
pub(super) fn account_acting(seats: &[SeatRecord], event: &racko_rules::Event) -> Option<Uuid> {
    event
        .actor()
        .seat()
        .and_then(|seat| seats.iter().find(|s| s.seat == seat))
        .map(|s| s.account_id)
}

fn decide(game: &GameRecord, caller: &Caller, action: &Action) -> Result<Decision, ServiceError> {
    let seat = playing_seat(game, caller)?;
    let action = *action;
    let (state, played) = game.state.play(&Input::Act { seat, action })?;
    Ok(decision(game, state, played))
}
