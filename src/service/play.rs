//! Playing: the caller's view of a game and applying one action.
//!
//! An action is decided inside `Store::update_game` against the stored current state (never a
//! replay of the log), so its cost does not grow with the length of the game.

use racko_rules::Action;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use super::events::{EventEntry, Projection};
use super::idempotency::{once, IdempotencyKey, Reply};
use super::lobby::{cancelled, next_record, not_a_player, renamed_not_found};
use super::round::{deal_next, seats_awaiting, status_of};
use super::view::{GameView, PublicStatus};
use super::{load_game, seat_of, Caller, LogEvent};
use crate::error::ApiError;
use crate::store::{GameChange, GameRecord, Store};

/// An action with the version of the game the client saw (or send it as `If-Match`).
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ActionRequest {
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
pub fn view(store: &Store, caller: &Caller, id: Uuid) -> Result<GameView, ApiError> {
    Ok(GameView::of(&load_game(store, id)?, caller.id))
}

/// Applies `action` of the caller's seat if the game is still at `version`.
pub fn act(
    store: &Store,
    caller: &Caller,
    id: Uuid,
    version: i64,
    action: &Action,
    key: Option<&IdempotencyKey>,
) -> Result<Reply<ActionResult>, ApiError> {
    once(store, caller.id, key, || {
        store
            .update_game(id, |record| decide(record, caller, version, action, key))
            .map_err(renamed_not_found)
    })
}

fn decide(
    record: &GameRecord,
    caller: &Caller,
    version: i64,
    action: &Action,
    key: Option<&IdempotencyKey>,
) -> Result<(GameChange, ActionResult), ApiError> {
    if version != record.version {
        return Err(ApiError::stale_version(record.version));
    }
    let seat = seat_of(record, caller.id).ok_or_else(not_a_player)?;
    match PublicStatus::of(record) {
        PublicStatus::Open => {
            return Err(ApiError::conflict(
                "game_not_started",
                "the game starts when every seat is taken",
            ))
        }
        PublicStatus::Cancelled => return Err(cancelled()),
        PublicStatus::Active | PublicStatus::Finished => {}
    }
    // A refused action writes nothing: the error leaves the transaction before any change.
    let (mut state, played) = record.state.apply(seat, action)?;
    let actor_of = |seat| {
        record
            .seats
            .iter()
            .find(|s| s.seat == seat)
            .map(|s| s.account_id)
    };
    let played_round = record.state.round();
    let mut log: Vec<(u32, Option<Uuid>, LogEvent)> = played
        .into_iter()
        .map(|event| {
            let actor = event.action().and_then(|(seat, _)| actor_of(seat));
            (played_round, actor, LogEvent::Play(event))
        })
        .collect();
    if state.needs_round() {
        let (dealt_state, dealt) = deal_next(record, &state)?;
        let round = dealt_state.round();
        log.extend(dealt.into_iter().map(|e| (round, None, LogEvent::Play(e))));
        state = dealt_state;
    }
    let status = status_of(&state);
    let seats = seats_awaiting(&record.seats, &state);
    let next = next_record(record, state, status, seats, log.len());

    let projection = Projection::new(&next, caller.id);
    let at = next.updated_at;
    let mut events = Vec::with_capacity(log.len());
    let mut entries = Vec::with_capacity(log.len());
    for (i, (round, actor, event)) in log.iter().enumerate() {
        let seq = record.last_seq + 1 + i as i64;
        entries.push(projection.entry(seq, *round, *actor, at, event));
        events.push(event.to_new(*round, *actor)?);
    }
    let result = ActionResult {
        view: GameView::of(&next, caller.id),
        events: entries,
    };
    let idempotency = match key {
        Some(key) => Some(key.record(caller.id, 200, &result)?),
        None => None,
    };
    let change = GameChange {
        state: next.state,
        status: next.status,
        seats: next.seats,
        events,
        idempotency,
    };
    Ok((change, result))
}
