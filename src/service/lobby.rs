//! Setting up games: create, join (by id or invite code), leave.
//!
//! Leaving is possible only before the game starts. A player who leaves frees his seat; the
//! creator leaving cancels the game (it was set up with his options and waits on his invite),
//! so no lobby is left without an owner. The game starts in the transaction of the join that
//! takes its last seat: round 1 is dealt at once.

use chrono::Utc;
use racko_rules::{Game, Options, StackedDeck, RULES_VERSION};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use super::idempotency::{once, IdempotencyKey, Reply};
use super::log::SeatedPlayer;
use super::round::{deal_next, seats_awaiting};
use super::view::{GameView, PublicStatus};
use super::{game_not_found, random, seat_of, Caller, LogEvent};
use crate::error::ApiError;
use crate::store::{
    GameChange, GameRecord, GameStatus, NewEvent, NewGame, SeatRecord, Store, StoreError,
};

/// Invite codes are random; a clash is rare, a few tries are plenty.
const INVITE_CODE_TRIES: usize = 5;

#[derive(Clone, Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateGame {
    #[serde(default)]
    pub options: Options,
    /// Test mode only: the deck of round 1, 2, … in order (later rounds are shuffled).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stacked: Option<Vec<StackedDeck>>,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct JoinByCode {
    pub invite_code: String,
}

/// Creates a game; the creator takes seat 0. `test_mode`: the server allows stacked decks.
pub fn create(
    store: &Store,
    caller: &Caller,
    test_mode: bool,
    request: &CreateGame,
    key: Option<&IdempotencyKey>,
) -> Result<Reply<GameView>, ApiError> {
    let caller = &current(store, caller)?;
    if request.stacked.is_some() && !test_mode {
        return Err(ApiError::forbidden(
            "test_mode_disabled",
            "stacked decks are accepted only by a server in test mode",
        ));
    }
    let options = request.options.clone();
    let state = Game::new(options.clone())?;
    let stacked = request.stacked.clone().unwrap_or_default();
    for deck in &stacked {
        deck.validate(&options.deck_counts(), options.players)?;
    }
    let events = [
        LogEvent::GameCreated {
            options: options.clone(),
            rules_version: RULES_VERSION,
            created_by: caller.username.clone(),
        },
        LogEvent::PlayerJoined {
            seat: 0,
            username: caller.username.clone(),
        },
    ]
    .iter()
    .map(|event| event.to_new(0, Some(caller.id)))
    .collect::<Result<Vec<NewEvent>, _>>()?;
    once(store, caller.id, key, || {
        let mut game = NewGame {
            id: Uuid::new_v4(),
            created_by: caller.id,
            invite_code: String::new(),
            options,
            rules_version: RULES_VERSION,
            state,
            status: GameStatus::Open,
            seats: vec![SeatRecord {
                seat: 0,
                account_id: caller.id,
                username: caller.username.clone(),
                awaiting: false,
            }],
            test_mode,
            stacked,
        };
        let record = insert_with_fresh_code(store, &mut game, &events)?;
        match key {
            None => Ok(GameView::of(&record, caller.id)),
            Some(key) => remember_creation(store, caller, record.id, key),
        }
    })
}

fn insert_with_fresh_code(
    store: &Store,
    game: &mut NewGame,
    events: &[NewEvent],
) -> Result<GameRecord, ApiError> {
    for _ in 0..INVITE_CODE_TRIES {
        game.invite_code = random::invite_code()?;
        match store.insert_game(game, events) {
            Err(StoreError::Conflict("invite_code_taken")) => continue,
            other => return Ok(other?),
        }
    }
    Err(ApiError::internal(format!(
        "no free invite code after {INVITE_CODE_TRIES} tries"
    )))
}

/// The store inserts a game without an idempotency record, so the record is attached by a
/// second write. If another request with the same key won meanwhile, this game is a duplicate:
/// it is cancelled and the error lets `once` answer with the winner's reply.
fn remember_creation(
    store: &Store,
    caller: &Caller,
    game: Uuid,
    key: &IdempotencyKey,
) -> Result<GameView, ApiError> {
    let attached = store.update_game(game, |record| {
        let next = next_record(
            record,
            record.state.clone(),
            record.status,
            record.seats.clone(),
            0,
        );
        let view = GameView::of(&next, caller.id);
        let change = GameChange {
            state: next.state,
            status: next.status,
            seats: next.seats,
            events: Vec::new(),
            idempotency: Some(key.record(caller.id, 201, &view)?),
        };
        Ok::<_, ApiError>((change, view))
    });
    if attached.is_err() {
        let _ = cancel(store, caller, game);
    }
    attached
}

fn cancel(store: &Store, caller: &Caller, game: Uuid) -> Result<(), ApiError> {
    store.update_game(game, |record| {
        let event = LogEvent::GameCancelled {
            by: caller.username.clone(),
        };
        let change = GameChange {
            state: record.state.clone(),
            status: GameStatus::Finished,
            seats: record.seats.clone(),
            events: vec![event.to_new(0, Some(caller.id))?],
            idempotency: None,
        };
        Ok::<_, ApiError>((change, ()))
    })
}

/// The record as it will read after a change (for building the answer inside the
/// transaction): version + 1, `new_events` more in the log.
pub(crate) fn next_record(
    record: &GameRecord,
    state: Game,
    status: GameStatus,
    seats: Vec<SeatRecord>,
    new_events: usize,
) -> GameRecord {
    GameRecord {
        id: record.id,
        created_by: record.created_by,
        invite_code: record.invite_code.clone(),
        options: record.options.clone(),
        rules_version: record.rules_version,
        state,
        status,
        seats,
        test_mode: record.test_mode,
        stacked: record.stacked.clone(),
        version: record.version + 1,
        last_seq: record.last_seq + new_events as i64,
        created_at: record.created_at,
        updated_at: Utc::now(),
    }
}

/// Joins game `id`, taking the lowest free seat; the join that fills the table starts the game.
pub fn join(
    store: &Store,
    caller: &Caller,
    id: Uuid,
    key: Option<&IdempotencyKey>,
) -> Result<Reply<GameView>, ApiError> {
    let caller = &current(store, caller)?;
    once(store, caller.id, key, || {
        unless_stale(|| store.update_game(id, |record| join_change(record, caller, key)))
    })
}

/// Joins the game with this invite code (case and spaces do not matter).
pub fn join_by_code(
    store: &Store,
    caller: &Caller,
    code: &str,
    key: Option<&IdempotencyKey>,
) -> Result<Reply<GameView>, ApiError> {
    let unknown = || ApiError::not_found("game_not_found", "no game has this invite code");
    let code = random::normalize_invite_code(code).ok_or_else(unknown)?;
    // The lookup runs first so that a retry of a join whose game has started since still gets
    // its stored answer from `join`.
    let game = store.game_by_invite_code(&code)?.ok_or_else(unknown)?;
    join(store, caller, game.id, key)
}

fn join_change(
    record: &GameRecord,
    caller: &Caller,
    key: Option<&IdempotencyKey>,
) -> Result<(GameChange, GameView), ApiError> {
    match PublicStatus::of(record) {
        PublicStatus::Cancelled => return Err(cancelled()),
        _ if seat_of(record, caller.id).is_some() => {
            return Err(ApiError::conflict(
                "already_joined",
                "you already have a seat at this table",
            ))
        }
        PublicStatus::Active | PublicStatus::Finished => {
            return Err(ApiError::conflict("game_started", "this game has started"))
        }
        PublicStatus::Open => {}
    }
    let players = record.options.players;
    let seat = (0..players)
        .find(|s| record.seats.iter().all(|taken| taken.seat != *s))
        .ok_or_else(|| ApiError::conflict("game_full", "every seat is taken"))?;
    let mut seats = record.seats.clone();
    seats.push(SeatRecord {
        seat,
        account_id: caller.id,
        username: caller.username.clone(),
        awaiting: false,
    });
    seats.sort_by_key(|s| s.seat);
    let mut events = vec![LogEvent::PlayerJoined {
        seat,
        username: caller.username.clone(),
    }
    .to_new(0, Some(caller.id))?];
    let (state, status) = if seats.len() == usize::from(players) {
        start(record, &seats, &mut events)?
    } else {
        (record.state.clone(), GameStatus::Open)
    };
    let seats = seats_awaiting(&seats, &state);
    let next = next_record(record, state, status, seats, events.len());
    answer(next, events, caller, key, 200)
}

/// The table is full: the game starts and round 1 is dealt in the same transaction.
fn start(
    record: &GameRecord,
    seats: &[SeatRecord],
    events: &mut Vec<NewEvent>,
) -> Result<(Game, GameStatus), ApiError> {
    let players = seats
        .iter()
        .map(|s| SeatedPlayer {
            seat: s.seat,
            username: s.username.clone(),
        })
        .collect();
    events.push(LogEvent::GameStarted { players }.to_new(0, None)?);
    let (state, dealt) = deal_next(record, &record.state)?;
    for event in dealt {
        events.push(LogEvent::Play(event).to_new(state.round(), None)?);
    }
    Ok((state, GameStatus::Active))
}

/// The change to write and the caller's view of the game after it.
fn answer(
    next: GameRecord,
    events: Vec<NewEvent>,
    caller: &Caller,
    key: Option<&IdempotencyKey>,
    status: u16,
) -> Result<(GameChange, GameView), ApiError> {
    let view = GameView::of(&next, caller.id);
    let idempotency = match key {
        Some(key) => Some(key.record(caller.id, status, &view)?),
        None => None,
    };
    let change = GameChange {
        state: next.state,
        status: next.status,
        seats: next.seats,
        events,
        idempotency,
    };
    Ok((change, view))
}

/// Leaves an open game (see the module docs for the creator).
pub fn leave(
    store: &Store,
    caller: &Caller,
    id: Uuid,
    key: Option<&IdempotencyKey>,
) -> Result<Reply<GameView>, ApiError> {
    let caller = &current(store, caller)?;
    once(store, caller.id, key, || {
        unless_stale(|| store.update_game(id, |record| leave_change(record, caller, key)))
    })
}

/// The caller under his name as the store has it now. A token keeps the name it was issued
/// with, and a guest may have registered under a new name since: his seat takes the new one.
fn current(store: &Store, caller: &Caller) -> Result<Caller, ApiError> {
    let account = store
        .account(caller.id)?
        .ok_or_else(|| ApiError::unauthorized("the account of this token no longer exists"))?;
    Ok(Caller {
        id: caller.id,
        username: account.username,
    })
}

/// Lobby changes do not depend on a version the client saw, so losing the store's
/// compare-and-set to another writer only means deciding again on the newer game.
fn unless_stale<T>(mut write: impl FnMut() -> Result<T, ApiError>) -> Result<T, ApiError> {
    const TRIES: usize = 3;
    let mut tries = 1;
    loop {
        match write().map_err(renamed_not_found) {
            Err(e) if e.code == "stale_version" && tries < TRIES => tries += 1,
            other => return other,
        }
    }
}

fn leave_change(
    record: &GameRecord,
    caller: &Caller,
    key: Option<&IdempotencyKey>,
) -> Result<(GameChange, GameView), ApiError> {
    let seat = seat_of(record, caller.id).ok_or_else(not_a_player)?;
    match PublicStatus::of(record) {
        PublicStatus::Open => {}
        PublicStatus::Cancelled => return Err(cancelled()),
        PublicStatus::Active | PublicStatus::Finished => {
            return Err(ApiError::conflict(
                "game_started",
                "a started game cannot be left",
            ))
        }
    }
    let left = LogEvent::PlayerLeft {
        seat,
        username: caller.username.clone(),
    };
    let mut events = vec![left.to_new(0, Some(caller.id))?];
    let (seats, status) = if record.created_by == caller.id {
        let cancelled = LogEvent::GameCancelled {
            by: caller.username.clone(),
        };
        events.push(cancelled.to_new(0, Some(caller.id))?);
        // The seats stay on record so that everyone who was in finds the cancelled game.
        (record.seats.clone(), GameStatus::Finished)
    } else {
        let seats = record
            .seats
            .iter()
            .filter(|s| s.account_id != caller.id)
            .cloned()
            .collect();
        (seats, GameStatus::Open)
    };
    let next = next_record(record, record.state.clone(), status, seats, events.len());
    answer(next, events, caller, key, 200)
}

pub(crate) fn not_a_player() -> ApiError {
    ApiError::forbidden("not_a_player", "you have no seat at this table")
}

pub(crate) fn cancelled() -> ApiError {
    ApiError::conflict("game_cancelled", "this game was cancelled by its creator")
}

/// `update_game` reports an unknown game as the store's generic not-found.
pub(crate) fn renamed_not_found(e: ApiError) -> ApiError {
    if e.code == "not_found" {
        game_not_found()
    } else {
        e
    }
}
