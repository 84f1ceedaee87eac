//! Setting up games: create, join (by id or invite code), leave.
//!
//! Leaving is possible only before the game starts. A player who leaves frees his seat; the
//! creator leaving cancels the game (it was set up with his options and waits on his invite),
//! so no lobby is left without an owner. The join that takes the last seat starts the game,
//! and the write path deals round 1 in the same transaction.
//!
//! A finished game's rematch ([`rematch`]) is created and joined through the same calls.

use racko_rules::{Game, Options, StackedDeck, RULES_VERSION};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use super::computer::{self, ComputerSeat};
use super::due;
use super::idempotency::{answers_only, stored, IdempotencyKey, Reply};
use super::log_event::SeatedPlayer;
use super::view::{GameView, PublicStatus};
use super::write::{change_game, create_game, deal_round, Asker, Decision, Expect, Logged};
use super::{cancelled, load_game, not_a_player, random, seat_of, Caller, LogEvent};
use crate::error::{Code, ServiceError};
use crate::store::{GameRecord, GameStatus, NewGame, SeatRecord, Store, StoredAs};

/// A new game: its options and the seats the computer plays.
#[derive(Clone, Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({
    "options": {"players": 2, "target": 500, "turn_time": 259_200},
    "computer": [{"seat": 1, "level": "basic"}]
}))]
pub struct CreateGame {
    #[serde(default)]
    pub options: Options,
    /// Test mode only: the deck of round 1, 2, … in order (later rounds are shuffled).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stacked: Option<Vec<StackedDeck>>,
    /// Seats the computer plays, each named once; when they fill the table the game starts at
    /// once, so one person can play alone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schema(max_items = 3)]
    pub computer: Vec<ComputerSeat>,
}

/// The invite code a player passed on.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"invite_code": "K7QM2XPD"}))]
pub struct JoinByCode {
    /// 8 letters and digits (no I, L, O, 0 or 1); case and surrounding spaces do not matter.
    #[schema(
        min_length = 8,
        max_length = 64,
        pattern = "^\\s*[A-HJKMNP-Za-hjkmnp-z2-9]{8}\\s*$"
    )]
    pub invite_code: String,
}

/// Creates a game; the creator takes seat 0. `test_mode`: the server allows stacked decks.
pub fn create(
    store: &Store,
    caller: &Caller,
    test_mode: bool,
    request: &CreateGame,
    key: Option<&IdempotencyKey>,
) -> Result<Reply<GameView>, ServiceError> {
    create_game_of(store, caller, test_mode, request, None, key)
}

/// As [`create`]; with `rematch_of`, the game is that finished game's rematch and the insert
/// links the two (or fails with `rematch_exists` when another request linked one first).
fn create_game_of(
    store: &Store,
    caller: &Caller,
    test_mode: bool,
    request: &CreateGame,
    rematch_of: Option<Uuid>,
    key: Option<&IdempotencyKey>,
) -> Result<Reply<GameView>, ServiceError> {
    if request.stacked.is_some() && !test_mode {
        return Err(ServiceError::new(
            Code::TestModeDisabled,
            "stacked decks are accepted only by a server in test mode",
        ));
    }
    let options = request.options.clone();
    let state = Game::new(options.clone())?;
    let stacked = request.stacked.clone().unwrap_or_default();
    for deck in &stacked {
        deck.validate(&options.deck_counts(), options.players)?;
    }
    computer::check(&request.computer, options.players)?;
    let mut log: Vec<Logged> = [
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
    .map(|event| Logged {
        round: 0,
        actor: Some(caller.id),
        event,
    })
    .into();
    let mut seats = vec![SeatRecord {
        seat: 0,
        account_id: caller.id,
        username: caller.username.clone(),
        awaiting: false,
        deadline: None,
        reminded: false,
    }];
    for seat in request.computer.iter().copied().map(computer::seat_record) {
        log.push(Logged {
            round: 0,
            actor: Some(seat.account_id),
            event: LogEvent::PlayerJoined {
                seat: seat.seat,
                username: seat.username.clone(),
            },
        });
        seats.push(seat);
    }
    seats.sort_by_key(|s| s.seat);
    let (mut state, mut status) = (state, GameStatus::Open);
    if seats.len() == usize::from(options.players) {
        // Computers fill the table: the game starts now, round 1 dealt in this transaction.
        let players = SeatedPlayer::all(&seats);
        log.push(Logged {
            round: 0,
            actor: None,
            event: LogEvent::GameStarted { players },
        });
        let (dealt, events) = deal_round(&state, test_mode, &stacked)?;
        state = dealt;
        status = GameStatus::Active;
        log.extend(events.into_iter().map(|event| Logged {
            round: state.round(),
            actor: None,
            event: LogEvent::Play(event),
        }));
    }
    let created_at = store.now();
    let due_at = due::settle(
        &state,
        status,
        (&[], &[]),
        &mut seats,
        created_at,
        store.reminder_lead(),
    );
    let game = NewGame {
        id: Uuid::new_v4(),
        created_by: caller.id,
        // Drawn by `create_game`.
        invite_code: String::new(),
        options,
        rules_version: RULES_VERSION,
        state,
        status,
        seats,
        test_mode,
        stacked,
        created_at,
        due_at,
        rematch_of,
    };
    let asker = Asker {
        account: caller.id,
        key,
        keeps: StoredAs::Answer,
    };
    create_game(store, game, &log, asker, |game| {
        GameView::of(game, caller.id)
    })
}

/// Joins game `id`, taking the lowest free seat; the join that fills the table starts the game.
pub fn join(
    store: &Store,
    caller: &Caller,
    id: Uuid,
    key: Option<&IdempotencyKey>,
) -> Result<Reply<GameView>, ServiceError> {
    lobby_change(store, caller, id, key, |game| join_decision(game, caller))
}

/// Joins the game with this invite code (case and spaces do not matter).
pub fn join_by_code(
    store: &Store,
    caller: &Caller,
    code: &str,
    key: Option<&IdempotencyKey>,
) -> Result<Reply<GameView>, ServiceError> {
    let unknown = || ServiceError::new(Code::GameNotFound, "no game has this invite code");
    let code = random::normalize_invite_code(code).ok_or_else(unknown)?;
    // The lookup runs first so that a retry of a join whose game has started since still gets
    // its stored answer from `join`.
    let game = store.game_by_invite_code(&code)?.ok_or_else(unknown)?;
    join(store, caller, game.id, key)
}

/// Leaves an open game (see the module docs for the creator).
pub fn leave(
    store: &Store,
    caller: &Caller,
    id: Uuid,
    key: Option<&IdempotencyKey>,
) -> Result<Reply<GameView>, ServiceError> {
    lobby_change(store, caller, id, key, |game| leave_decision(game, caller))
}

/// The answer to a rematch request: the new game as the caller sees it, and whether this
/// request created it (201) or seated the caller in it, or found him seated already (200).
pub struct Rematched {
    pub reply: Reply<GameView>,
    pub created: bool,
}

/// Losing the race to link a rematch means the winner's game exists: one more look finds it.
const REMATCH_TRIES: usize = 3;

/// The rematch of finished game `id` (issue 11.5): same options, the same computers at the
/// same seats. The first player to ask creates it and sits at seat 0 (as any creator does);
/// every later ask, by him or another player of the old game, gives that same game and seats
/// the asker in it if he is not seated yet (a plain join: the lowest free seat). The old game
/// links to the new one in the transaction that creates it, only while unlinked, so two
/// players asking at once still get one game.
pub fn rematch(
    store: &Store,
    caller: &Caller,
    test_mode: bool,
    id: Uuid,
    key: Option<&IdempotencyKey>,
) -> Result<Rematched, ServiceError> {
    if let Some(reply) = stored(store, caller.id, key, &answers_only)? {
        return Ok(Rematched {
            reply,
            created: false,
        });
    }
    for _ in 0..REMATCH_TRIES {
        let old = load_game(store, id)?;
        seat_of(&old, caller.id).ok_or_else(not_a_player)?;
        if old.status != GameStatus::Finished {
            return Err(ServiceError::new(
                Code::GameNotFinished,
                "a rematch is played after the game ends",
            ));
        }
        if let Some(new) = old.rematch_id {
            return take_rematch_seat(store, caller, new, key);
        }
        let request = CreateGame {
            options: old.options.clone(),
            // A rematch is dealt afresh, even in test mode.
            stacked: None,
            computer: old
                .seats
                .iter()
                .filter_map(|seat| {
                    computer::level_of(seat.account_id).map(|level| ComputerSeat {
                        seat: seat.seat,
                        level,
                    })
                })
                .collect(),
        };
        match create_game_of(store, caller, test_mode, &request, Some(old.id), key) {
            Err(e) if e.code == Code::RematchExists => continue,
            result => {
                return result.map(|reply| Rematched {
                    reply,
                    created: true,
                })
            }
        }
    }
    Err(ServiceError::internal(format!(
        "game {id}: no rematch found or created after {REMATCH_TRIES} tries"
    )))
}

/// Seats the caller in rematch `new` unless he is seated already; either way answers it.
fn take_rematch_seat(
    store: &Store,
    caller: &Caller,
    new: Uuid,
    key: Option<&IdempotencyKey>,
) -> Result<Rematched, ServiceError> {
    let seated = |game: &GameRecord| Rematched {
        reply: Reply::Fresh(GameView::of(game, caller.id)),
        created: false,
    };
    let game = load_game(store, new)?;
    if seat_of(&game, caller.id).is_some() {
        return Ok(seated(&game));
    }
    match join(store, caller, new, key) {
        // A request of his own seated him meanwhile.
        Err(e) if e.code == Code::AlreadyJoined => Ok(seated(&load_game(store, new)?)),
        result => result.map(|reply| Rematched {
            reply,
            created: false,
        }),
    }
}

/// Lobby changes do not depend on a version the client saw: they apply to the game as it is.
fn lobby_change(
    store: &Store,
    caller: &Caller,
    id: Uuid,
    key: Option<&IdempotencyKey>,
    decide: impl Fn(&GameRecord) -> Result<Decision, ServiceError>,
) -> Result<Reply<GameView>, ServiceError> {
    let asker = Asker {
        account: caller.id,
        key,
        keeps: StoredAs::Answer,
    };
    change_game(store, id, Expect::Latest, asker, decide, |written| {
        GameView::of(written.game, caller.id)
    })
}

fn join_decision(game: &GameRecord, caller: &Caller) -> Result<Decision, ServiceError> {
    match PublicStatus::of(game) {
        PublicStatus::Cancelled => return Err(cancelled()),
        _ if seat_of(game, caller.id).is_some() => {
            return Err(ServiceError::new(
                Code::AlreadyJoined,
                "you already have a seat at this table",
            ))
        }
        PublicStatus::Active | PublicStatus::Finished => {
            return Err(ServiceError::new(
                Code::GameStarted,
                "this game has started",
            ))
        }
        PublicStatus::Open => {}
    }
    let players = game.options.players;
    let seat = (0..players)
        .find(|s| game.seats.iter().all(|taken| taken.seat != *s))
        .ok_or_else(|| ServiceError::new(Code::GameFull, "every seat is taken"))?;
    let mut decision = Decision::keep(game);
    decision.seats.push(SeatRecord {
        seat,
        account_id: caller.id,
        username: caller.username.clone(),
        awaiting: false,
        deadline: None,
        reminded: false,
    });
    decision.seats.sort_by_key(|s| s.seat);
    let joined = LogEvent::PlayerJoined {
        seat,
        username: caller.username.clone(),
    };
    decision.log(0, Some(caller.id), joined);
    if decision.seats.len() == usize::from(players) {
        // The table is full: the game starts (the write path deals round 1).
        let players = SeatedPlayer::all(&decision.seats);
        decision.log(0, None, LogEvent::GameStarted { players });
        decision.status = GameStatus::Active;
    }
    Ok(decision)
}

fn leave_decision(game: &GameRecord, caller: &Caller) -> Result<Decision, ServiceError> {
    let seat = seat_of(game, caller.id).ok_or_else(not_a_player)?;
    match PublicStatus::of(game) {
        PublicStatus::Open => {}
        PublicStatus::Cancelled => return Err(cancelled()),
        PublicStatus::Active | PublicStatus::Finished => {
            return Err(ServiceError::new(
                Code::GameStarted,
                "a started game cannot be left",
            ))
        }
    }
    let mut decision = Decision::keep(game);
    let left = LogEvent::PlayerLeft {
        seat,
        username: caller.username.clone(),
    };
    decision.log(0, Some(caller.id), left);
    if game.created_by == caller.id {
        let by = caller.username.clone();
        decision.log(0, Some(caller.id), LogEvent::GameCancelled { by });
        // The seats stay on record so that everyone who was in finds the cancelled game.
        decision.status = GameStatus::Cancelled;
    } else {
        decision.seats.retain(|s| s.account_id != caller.id);
    }
    Ok(decision)
}
