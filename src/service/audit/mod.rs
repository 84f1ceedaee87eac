//! Audits of stored games: replay as of any event, export of the complete record, its
//! verification, and the admin's queries across games.
//!
//! Everything here is read from the stored log (`game_events`), never from the live state: the
//! point is to check the live play against an independent rebuild by the rules (R9.2). What a
//! caller sees follows R8: players see their own cards during a game, everyone sees everything
//! once it has ended; admins get no more than R8 allows either.
//!
//! - [`log`] loads and parses a game's log;
//! - [`replay`] rebuilds the state as of a sequence number;
//! - [`export`] writes the versioned export document;
//! - [`verify`] checks an export (pure; also the `racko verify FILE` subcommand);
//! - [`queries`] answers the admin's audit queries.

mod deck;
mod diff;
mod explain;
pub mod export;
pub mod log;
pub mod queries;
pub mod replay;
pub mod verify;

use racko_rules::SHIPPED_RULES_VERSIONS;

use crate::error::{Code, ServiceError};

/// A stored game played under a rules version this build does not know cannot be replayed:
/// the rules that produced its log are not here (409 `unknown_rules_version`).
pub fn check_rules_version(version: u32) -> Result<(), ServiceError> {
    if racko_rules::knows_rules_version(version) {
        return Ok(());
    }
    Err(ServiceError::new(
        Code::UnknownRulesVersion,
        format!(
            "the game was played under rules version {version}; this server knows versions \
             {SHIPPED_RULES_VERSIONS:?}"
        ),
    ))
}
