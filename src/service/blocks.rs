//! Blocks: the one question every path that brings two accounts together asks, "may A reach
//! B?". A block works both ways: when either account blocks the other, neither may befriend
//! or invite the other, nor take a seat at a table where the other sits, nor watch the
//! other's games as a friend (a block ends the friendship), nor be paired by the seek pool
//! (`seek_pairing::compatible`, on the blocks its transaction reads), nor read the other's
//! table talk (`chat`).

use std::collections::HashSet;

use uuid::Uuid;

use crate::error::{Code, ServiceError};
use crate::store::{GameRecord, Store};

/// Whether `from` may reach `to`: neither blocks the other.
pub fn may_reach(store: &Store, from: Uuid, to: Uuid) -> Result<bool, ServiceError> {
    Ok(!Shunned::of(store, from)?.contains(to))
}

/// 403 `blocked` unless `from` may reach `to`.
pub fn check_reach(store: &Store, from: Uuid, to: Uuid) -> Result<(), ServiceError> {
    if may_reach(store, from, to)? {
        Ok(())
    } else {
        Err(blocked())
    }
}

pub(crate) fn blocked() -> ServiceError {
    ServiceError::new(
        Code::Blocked,
        "one of you blocks the other: no requests, invitations or shared tables",
    )
}

/// The accounts one account may not reach, read once for a request that tests several (a
/// table's seats, inside a game's write where no store read may run).
#[derive(Clone, Debug, Default)]
pub struct Shunned(HashSet<Uuid>);

impl Shunned {
    pub fn of(store: &Store, account: Uuid) -> Result<Shunned, ServiceError> {
        Ok(Shunned(store.blocks_either_way(account)?))
    }

    pub fn contains(&self, account: Uuid) -> bool {
        self.0.contains(&account)
    }

    /// Whether someone it may not reach sits at the table.
    pub fn sits_at(&self, game: &GameRecord) -> bool {
        game.seats.iter().any(|seat| self.contains(seat.account_id))
    }
}
