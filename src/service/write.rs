//! The one write path of a game. Every change (an action, a join, a leave, and whatever comes
//! next: a timeout, a resignation, a computer player's move, an outbox row) goes through
//! [`change_game`]; a caller only decides what the change is ([`Decision`]) and what to answer.
//!
//! Inside one store transaction this module: checks the version the client saw, asks the
//! caller to decide, deals the next round when one is due, derives the seats' inbox flags and
//! the stored status, turns the log entries into events, builds the answer from the record as
//! it will be written, and stores that answer for the `Idempotency-Key`. Creating a game is the
//! other write ([`create_game`]), also one transaction with its key.

use racko_rules::{Event, Game, Input, RoundDeal, RulesCode, StackedDeck};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::idempotency::{answers_only, once, IdempotencyKey, Reply};
use super::kept_change::{rebuilt, KeptChange};
use super::{game_not_found, random, LogEvent, Service};
use crate::error::{Code, ServiceError};
use crate::store::{
    Changed, Conflict, GameChange, GameRecord, GameStatus, NewEvent, NewGame, SeatRecord,
    StoreError, StoredAs, UpdateError,
};

/// A change decided for a game: its state, status and seats afterwards and what to log.
/// Inbox flags (`SeatRecord::awaiting`) and a due deal are filled in by the write path.
#[derive(Clone, Debug)]
pub struct Decision {
    pub state: Game,
    pub status: GameStatus,
    pub seats: Vec<SeatRecord>,
    pub log: Vec<Logged>,
}

impl Decision {
    /// Starts from the game as it is: nothing changed, nothing logged.
    pub fn keep(game: &GameRecord) -> Decision {
        Decision {
            state: game.state.clone(),
            status: game.status,
            seats: game.seats.clone(),
            log: Vec::new(),
        }
    }

    pub fn log(&mut self, round: u32, actor: Option<Uuid>, event: LogEvent) {
        self.log.push(Logged {
            round,
            actor,
            event,
        });
    }
}

/// One entry for the game's log: the round it belongs to, the account that caused it.
#[derive(Clone, Debug)]
pub struct Logged {
    pub round: u32,
    pub actor: Option<Uuid>,
    pub event: LogEvent,
}

/// The change as written, for building the answer.
pub struct Written<'a> {
    /// The game as the store will have it after the change.
    pub game: &'a GameRecord,
    /// The new log entries, first to last, with their seq numbers.
    pub log: Vec<(i64, &'a Logged)>,
}

/// What the change is decided against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// The version the client saw: any other is `stale_version`.
    Version(i64),
    /// Whatever the game is now (lobby changes, the server's own moves): losing the
    /// compare-and-set to another writer means deciding again on the newer game.
    Latest,
}

/// Who asks for a change, for idempotent retries: the account and its `Idempotency-Key`, and
/// what the key's record keeps: the answer, or the change to rebuild it from.
#[derive(Clone, Copy, Debug)]
pub struct Asker<'a> {
    pub account: Uuid,
    pub key: Option<&'a IdempotencyKey>,
    pub keeps: StoredAs,
}

/// How often a `Latest` change decides again after losing the compare-and-set.
const LATEST_TRIES: usize = 3;

/// Changes game `id`: the one write path (see the module docs). `decide` and `answer` run
/// once, and again only on a newer game after the change lost the compare-and-set to another
/// writer (`Store::update_game`); an error from `decide` writes nothing.
pub fn change_game<T: Serialize>(
    store: &Service,
    id: Uuid,
    expect: Expect,
    asker: Asker<'_>,
    decide: impl Fn(&GameRecord) -> Result<Decision, ServiceError>,
    answer: impl Fn(&Written<'_>) -> T,
) -> Result<Reply<T>, ServiceError> {
    let rebuild = |kept: &serde_json::Value| {
        let change = KeptChange::deserialize(kept).map_err(ServiceError::internal)?;
        serde_json::to_value(rebuilt(store, &change, &answer)?).map_err(ServiceError::internal)
    };
    once(store, asker.account, asker.key, &rebuild, || {
        let mut tries = 1;
        loop {
            let written = store.update_game(id, |game| {
                write_one(store, game, expect, asker, &decide, &answer)
            });
            match written.map(|done| store.after(done)) {
                Ok((_, answer)) => return Ok(answer),
                Err(UpdateError::Decide(e)) => return Err(e),
                Err(UpdateError::Store(StoreError::NotFound)) => return Err(game_not_found()),
                Err(UpdateError::Store(StoreError::Locked(cause))) => {
                    return Err(ServiceError::game_busy(cause))
                }
                Err(UpdateError::Store(StoreError::StaleVersion { .. }))
                    if expect == Expect::Latest && tries < LATEST_TRIES =>
                {
                    tries += 1
                }
                Err(UpdateError::Store(e)) => return Err(e.into()),
            }
        }
    })
}

/// What [`change_game_by_server`] did.
pub enum Served {
    /// The change was written; the game as it is now.
    Written(GameRecord),
    /// Another transaction holds the game (PostgreSQL): nothing was waited for or written.
    Held,
    /// `decide` found nothing to do (it answered `not_awaited`); the game as it was read.
    NothingToDo(GameRecord),
}

/// A change the server makes by itself (the sweeper): the one write path like
/// [`change_game`], on the game as it is now, with no answer and no `Idempotency-Key`; a game
/// another transaction holds is skipped rather than waited for.
pub fn change_game_by_server(
    store: &Service,
    id: Uuid,
    decide: impl Fn(&GameRecord) -> Result<Decision, ServiceError>,
) -> Result<Served, ServiceError> {
    enum Refused {
        Nothing(Box<GameRecord>),
        Error(ServiceError),
    }
    let asker = Asker {
        account: Uuid::nil(),
        key: None,
        keeps: StoredAs::Answer,
    };
    let written = store.update_game_unless_held(id, |game| {
        let decide = |g: &GameRecord| decide(g);
        match write_one(
            store,
            game,
            Expect::Latest,
            asker,
            &decide,
            &|_: &Written<'_>| (),
        ) {
            Ok(done) => Ok(done),
            Err(e) if e.code == Code::Rules(RulesCode::NotAwaited) => {
                Err(Refused::Nothing(Box::new(game.clone())))
            }
            Err(e) => Err(Refused::Error(e)),
        }
    });
    match written.map(|done| store.after(done)) {
        Ok((game, ())) => Ok(Served::Written(game)),
        Err(UpdateError::Decide(Refused::Nothing(game))) => Ok(Served::NothingToDo(*game)),
        Err(UpdateError::Decide(Refused::Error(e))) => Err(e),
        Err(UpdateError::Store(StoreError::NotFound)) => Err(game_not_found()),
        // Held by another writer, or its compare-and-set lost: that writer's change is due
        // again to be looked at, by whoever comes next.
        Err(UpdateError::Store(StoreError::Locked(_) | StoreError::StaleVersion { .. })) => {
            Ok(Served::Held)
        }
        Err(UpdateError::Store(e)) => Err(e.into()),
    }
}

/// One decision of a change on `game` (counted: see [`Service::decisions`]), with the
/// answer built from the record as it will be written.
fn write_one<T: Serialize>(
    store: &Service,
    game: &GameRecord,
    expect: Expect,
    asker: Asker<'_>,
    decide: &impl Fn(&GameRecord) -> Result<Decision, ServiceError>,
    answer: &impl Fn(&Written<'_>) -> T,
) -> Result<(GameChange, T), ServiceError> {
    store.count_decision();
    if let Expect::Version(version) = expect {
        if version != game.version {
            // The current version is for those who may see the game; anyone else learns
            // nothing of it, as of a game that does not exist.
            if !super::access::may_see(game, asker.account) {
                return Err(game_not_found());
            }
            return Err(ServiceError::stale_version(game.version));
        }
    }
    let (at, lead) = (store.now(), store.reminder_lead());
    let mut decision = decide(game)?;
    if decision.status == GameStatus::Active && decision.state.needs_round() {
        deal_next(game, &mut decision)?;
    }
    if decision.status == GameStatus::Active && decision.state.is_over() {
        decision.status = GameStatus::Finished;
    }
    let due = super::due::settle(
        &decision.state,
        decision.status,
        (&game.seats, &decision.log),
        &mut decision.seats,
        at,
        lead,
    );
    let due_at = super::due::to_store(game.due_at, due, at);
    let feed = super::feed::items(game, decision.status, &decision.seats);
    // The change that finishes the game writes its results and ratings with it.
    let end = (decision.status == GameStatus::Finished && game.status != GameStatus::Finished)
        .then(|| super::ratings::game_end(game, &decision.state, &decision.seats));
    let changed = Changed {
        state: decision.state,
        status: decision.status,
        seats: decision.seats,
        at,
        due_at,
    };
    let mut change = game.after(changed, new_events(&decision.log)?, feed);
    change.end = end;
    let next = change.next();
    let written = Written {
        game: next,
        log: (game.last_seq + 1..).zip(&decision.log).collect(),
    };
    let answer = answer(&written);
    if let Some(key) = asker.key {
        change.idempotency = Some(match asker.keeps {
            StoredAs::Answer => key.record(asker.account, 200, &answer, asker.keeps, at)?,
            StoredAs::Change => {
                let kept = KeptChange::of(next, game.last_seq + 1);
                key.record(asker.account, 200, &kept, asker.keeps, at)?
            }
        });
    }
    Ok((change, answer))
}

/// Deals the next round into `decision`.
fn deal_next(game: &GameRecord, decision: &mut Decision) -> Result<(), ServiceError> {
    let (state, dealt) = deal_round(&decision.state, game.test_mode, &game.stacked)?;
    for event in dealt {
        decision.log(state.round(), None, LogEvent::Play(event));
    }
    decision.state = state;
    Ok(())
}

/// Deals the next round of `state`: a fresh OS seed always (it is committed and later
/// revealed, R9.2); in a test-mode game, the stacked deck given at creation for that round,
/// if any.
pub fn deal_round(
    state: &Game,
    test_mode: bool,
    stacked: &[StackedDeck],
) -> Result<(Game, Vec<Event>), ServiceError> {
    let round = state.round() as usize + 1;
    let stacked = if test_mode {
        stacked.get(round - 1).cloned()
    } else {
        None
    };
    let deal = RoundDeal {
        seed: random::seed()?,
        stacked,
    };
    // The stacked decks were validated at creation, so a refusal here is a server fault.
    state
        .play(&Input::Deal(deal))
        .map_err(ServiceError::internal)
}

fn new_events(log: &[Logged]) -> Result<Vec<NewEvent>, ServiceError> {
    log.iter()
        .map(|entry| entry.event.to_new(entry.round, entry.actor))
        .collect()
}

/// Invite codes are random; a clash is rare, a few tries are plenty.
const INVITE_CODE_TRIES: usize = 5;

/// Creates `game` (its invite code is drawn here) with its first log entries, in one
/// transaction with the answer for the asker's `Idempotency-Key` (status 201).
pub fn create_game<T: Serialize>(
    store: &Service,
    mut game: NewGame,
    log: &[Logged],
    asker: Asker<'_>,
    answer: impl Fn(&GameRecord) -> T,
) -> Result<Reply<T>, ServiceError> {
    let events = new_events(log)?;
    once(store, asker.account, asker.key, &answers_only, || {
        for _ in 0..INVITE_CODE_TRIES {
            game.invite_code = random::invite_code()?;
            let reply = answer(&game.record(events.len()));
            let idempotency = match asker.key {
                Some(key) => Some(key.record(
                    asker.account,
                    201,
                    &reply,
                    StoredAs::Answer,
                    game.created_at,
                )?),
                None => None,
            };
            let told = super::invitations::told(&game);
            match store.insert_game_telling(&game, &events, idempotency.as_ref(), told) {
                Ok(done) => {
                    store.after(done);
                    return Ok(reply);
                }
                Err(StoreError::Conflict(Conflict::InviteCodeTaken)) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(ServiceError::internal(format!(
            "no free invite code after {INVITE_CODE_TRIES} tries"
        )))
    })
}
