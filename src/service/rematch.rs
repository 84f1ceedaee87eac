//! A finished game's rematch: the same table again, created and joined through
//! the lobby's calls.

use uuid::Uuid;

use super::access;
use super::blocks::Shunned;
use super::computer::{self, ComputerSeat};
use super::idempotency::{answers_only, stored, IdempotencyKey, Reply};
use super::lobby::{create_game_of, join, CreateGame};
use super::view::GameView;
use super::{load_game, seat_of, Caller, Service};
use crate::error::{Code, ServiceError};
use crate::store::{GameRecord, GameStatus, Invitee};

/// The answer to a rematch request: the new game as the caller sees it, and whether this
/// request created it (201) or seated the caller in it, or found him seated already (200).
pub struct Rematched {
    pub reply: Reply<GameView>,
    pub created: bool,
}

/// Losing the race to link a rematch means the winner's game exists: one more look finds it.
const REMATCH_TRIES: usize = 3;

/// The rematch of finished game `id`: same options, the same computers at the
/// same seats. The first player to ask creates it and sits at seat 0 (as any creator does);
/// every later ask, by him or another player of the old game, gives that same game and seats
/// the asker in it if he is not seated yet (a plain join: the lowest free seat). The old game
/// links to the new one in the transaction that creates it, only while unlinked, so two
/// players asking at once still get one game.
pub fn rematch(
    store: &Service,
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
        seat_of(&old, caller.id).ok_or_else(|| access::no_seat(&old, caller.id))?;
        if old.status != GameStatus::Finished {
            return Err(ServiceError::new(
                Code::GameNotFinished,
                "a rematch is played after the game ends",
            ));
        }
        if let Some(new) = old.rematch_id {
            return take_rematch_seat(store, caller, new, key);
        }
        // The same table: as visible and as watched, with its other players invited (so
        // that they may join a private or unlisted rematch by id, or with this call).
        // Not an account the asker may not reach: it would be told of an invitation.
        let shunned = Shunned::of(store, caller.id)?;
        let invited = old
            .seats
            .iter()
            .filter(|seat| seat.account_id != caller.id)
            .filter(|seat| computer::level_of(seat.account_id).is_none())
            .filter(|seat| !shunned.contains(seat.account_id))
            .map(|seat| Invitee {
                account_id: seat.account_id,
                username: seat.username.clone(),
            })
            .collect();
        let request = CreateGame {
            visibility: Some(old.access.visibility),
            spectators: Some(old.access.spectators),
            invite: Vec::new(),
            rated: old.access.rated,
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
        match create_game_of(
            store,
            caller,
            test_mode,
            &request,
            (Some(old.id), invited),
            key,
        ) {
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
    store: &Service,
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
