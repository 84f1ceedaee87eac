//! Setting up games: create, join (by id or invite code), leave.
//!
//! Leaving is possible only before the game starts. A player who leaves frees his seat; the
//! creator leaving cancels the game (it was set up with his options and waits on his invite),
//! so no lobby is left without an owner. The join that takes the last seat starts the game,
//! and the write path deals round 1 in the same transaction.
//!
//! A finished game's rematch ([`rematch`](super::rematch)) is created and joined through the
//! same calls.
//!
//! Who may join (and see) a game is [`access`](super::access)'s: every join goes through it.

use racko_rules::{Game, Options, StackedDeck, RULES_VERSION};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use super::access::{self, JoinBy};
use super::blocks::Shunned;
use super::computer::{self, ComputerSeat};
use super::due;
use super::idempotency::{IdempotencyKey, Reply};
use super::log_event::SeatedPlayer;
use super::view::GameView;
use super::write::{change_game, create_game, deal_round, Asker, Decision, Expect, Logged};
use super::{cancelled, game_not_found, random, seat_of, Caller, LogEvent, Service};
use crate::error::{Code, ServiceError};
use crate::store::{
    Access, GameRecord, GameStatus, Invitee, NewGame, SeatRecord, Spectators, StoredAs, Visibility,
};

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
    /// Who may find and join the game: `public` (listed in the lobby; anyone joins by id or
    /// invite code), `unlisted` (not listed; joined with the invite code, or a link holding
    /// it), `private` (only invited accounts join). Default `unlisted`: games here are among
    /// people who know each other.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub visibility: Option<Visibility>,
    /// Who besides the players and invited accounts may watch the game while it is played
    /// (its view, stream and log): `nobody`, the `friends` of any seated player, or `anyone`
    /// who has its id. Default `nobody`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub spectators: Option<Spectators>,
    /// Usernames of accounts invited to the table: they see the game and may join it by id
    /// or invite code whatever its visibility. At most 6; the creator may add more later
    /// (`POST /v1/games/{id}/invitations`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schema(max_items = 6)]
    pub invite: Vec<String>,
    /// A rated game: its end moves its players' ratings. Default false: casual. Only
    /// registered accounts sit at a rated table (`rated_needs_account` for a guest), and no
    /// computer seat (`rated_with_computer`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rated: bool,
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
    store: &Service,
    caller: &Caller,
    test_mode: bool,
    request: &CreateGame,
    key: Option<&IdempotencyKey>,
) -> Result<Reply<GameView>, ServiceError> {
    access::check_invitation_count(&request.invite)?;
    let mut invited: Vec<Invitee> = Vec::new();
    for invitee in access::accounts_named(store, &request.invite)? {
        if invitee.account_id != caller.id && !invited.contains(&invitee) {
            invited.push(invitee);
        }
    }
    super::invitations::check_reachable(store, caller, &invited)?;
    create_game_of(store, caller, test_mode, request, (None, invited), key)
}

/// The settings of a new game from the creator's request.
fn new_access(request: &CreateGame, invited: Vec<Invitee>) -> Access {
    Access {
        visibility: request.visibility.unwrap_or(access::DEFAULT_VISIBILITY),
        spectators: request.spectators.unwrap_or(access::DEFAULT_SPECTATORS),
        invited,
        rated: request.rated,
    }
}

/// As [`create`], inviting `invited`; with `rematch_of`, the game is that finished game's
/// rematch and the insert links the two (or fails with `rematch_exists` when another request
/// linked one first).
pub(super) fn create_game_of(
    store: &Service,
    caller: &Caller,
    test_mode: bool,
    request: &CreateGame,
    (rematch_of, invited): (Option<Uuid>, Vec<Invitee>),
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
    if request.rated {
        super::ratings::check_rated_table(store, caller, !request.computer.is_empty())?;
    }
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
        away_until: None,
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
        access: new_access(request, invited),
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
    store: &Service,
    caller: &Caller,
    id: Uuid,
    key: Option<&IdempotencyKey>,
) -> Result<Reply<GameView>, ServiceError> {
    join_as(store, caller, id, JoinBy::Id, key)
}

fn join_as(
    store: &Service,
    caller: &Caller,
    id: Uuid,
    by: JoinBy,
    key: Option<&IdempotencyKey>,
) -> Result<Reply<GameView>, ServiceError> {
    let shunned = Shunned::of(store, caller.id)?;
    let guest = super::ratings::is_guest(store, caller)?;
    lobby_change(store, caller, id, key, |game| {
        if guest && game.access.rated && seat_of(game, caller.id).is_none() {
            return Err(super::ratings::guest_refused());
        }
        join_decision(game, caller, by, &shunned)
    })
}

/// Joins the game with this invite code (case and spaces do not matter).
pub fn join_by_code(
    store: &Service,
    caller: &Caller,
    code: &str,
    key: Option<&IdempotencyKey>,
) -> Result<Reply<GameView>, ServiceError> {
    let unknown = || ServiceError::new(Code::GameNotFound, "no game has this invite code");
    let code = random::normalize_invite_code(code).ok_or_else(unknown)?;
    // The lookup runs first so that a retry of a join whose game has started since still gets
    // its stored answer from `join`.
    let game = store.game_by_invite_code(&code)?.ok_or_else(unknown)?;
    // A private game the caller is not invited to answers as an unknown code.
    match join_as(store, caller, game.id, JoinBy::InviteCode, key) {
        Err(e) if e.code == Code::GameNotFound => Err(unknown()),
        result => result,
    }
}

/// Leaves an open game (see the module docs for the creator).
pub fn leave(
    store: &Service,
    caller: &Caller,
    id: Uuid,
    key: Option<&IdempotencyKey>,
) -> Result<Reply<GameView>, ServiceError> {
    lobby_change(store, caller, id, key, |game| leave_decision(game, caller))
}

/// Lobby changes do not depend on a version the client saw: they apply to the game as it is.
fn lobby_change(
    store: &Service,
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

fn join_decision(
    game: &GameRecord,
    caller: &Caller,
    by: JoinBy,
    shunned: &Shunned,
) -> Result<Decision, ServiceError> {
    // The invite code of a game that is not private is as good as seeing it.
    let known = by == JoinBy::InviteCode && game.access.visibility != Visibility::Private;
    if !known && !access::may_see(game, caller.id) {
        return Err(game_not_found());
    }
    match game.status {
        GameStatus::Cancelled => return Err(cancelled()),
        _ if seat_of(game, caller.id).is_some() => {
            return Err(ServiceError::new(
                Code::AlreadyJoined,
                "you already have a seat at this table",
            ))
        }
        GameStatus::Active | GameStatus::Finished => {
            return Err(ServiceError::new(
                Code::GameStarted,
                "this game has started",
            ))
        }
        GameStatus::Open => {}
    }
    if !access::may_join(game, caller.id, by) || shunned.sits_at(game) {
        // Not for this account (or not this way; or someone at the table blocks it, or it
        // blocks someone there): the answer for a game that does not exist.
        return Err(game_not_found());
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
        away_until: None,
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
    let seat = seat_of(game, caller.id).ok_or_else(|| access::no_seat(game, caller.id))?;
    match game.status {
        GameStatus::Open => {}
        GameStatus::Cancelled => return Err(cancelled()),
        GameStatus::Active | GameStatus::Finished => {
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
