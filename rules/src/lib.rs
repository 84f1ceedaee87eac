//! The rules of Racko (Ravensburger, 1986), as a pure and deterministic library.
//!
//! Rule numbers (R1..R10) and worked examples (E1..E8) refer to `docs/rules.md` at the root of
//! the repository, the project's rules contract.
//! Nothing here performs IO, reads a clock or the OS random source: every
//! random choice is derived from a caller-supplied 32-byte seed (see [`shuffle`]).
//!
//! The shape, in short:
//! - [`Game::new`] builds a game from [`Options`]; the game then waits for a round.
//! - [`Game::start_round`] deals a round from a [`RoundDeal`] (a seed, or a stacked deck).
//! - [`Game::apply`] applies one [`Action`] of one seat and returns the new game and the
//!   [`Event`]s it caused, or a [`RulesError`], leaving `self` untouched.
//! - [`Game::legal_actions`] lists exactly what a seat may do now.
//! - R10, games that outlast their players: [`deadline::begins_stage`] says which events start
//!   a seat's deadline afresh; [`Game::stand_in`] when a seat's deadline has passed (it is
//!   [`Game::time_out`], then [`Game::simplest_move`] while [`Game::played_for`] names the
//!   seat); [`Game::resign`]; [`deadline::DeadlineCheck`] checks a log's timeouts.
//! - [`Game::view`] and [`Event::for_viewer`] are the R8 projections.
//! - [`replay::replay`] rebuilds a game from its options and its full event log;
//!   [`replay::Steps`] walks the log one deal or action at a time.
//! - [`DeckCounts::cards`] lists a deck's cards, [`deck`] holds the R2.2 deal order and
//!   [`StackedDeck::from_racks`] stacks a deck to deal given racks (tests, test mode).

pub mod action;
pub mod card;
pub mod deadline;
pub mod deck;
pub mod error;
pub mod event;
pub mod game;
pub mod options;
pub mod replay;
pub mod score;
pub mod shuffle;
pub mod view;

pub use action::Action;
pub use card::{Card, Rack, Seat, Slot};
pub use deck::StackedDeck;
pub use error::RulesError;
pub use event::{Event, ResignReason, RoundEnd};
pub use game::{Game, Phase, TurnStage};
pub use options::{BlitzMode, DeckCounts, Options};
pub use shuffle::{RoundDeal, Seed};
pub use view::{RoundResult, SlotCard, View, Viewer};

/// The version of these rules. A stored game records the version it was played under so that a
/// later change of the rules can never silently change an old replay. Bump it whenever any
/// output of [`Game::start_round`], [`Game::apply`] or the shuffle changes for the same input.
pub const RULES_VERSION: u32 = 1;

/// Every rules version a build has shipped, oldest first, [`RULES_VERSION`] last. A stored game
/// keeps the version it was created under for good, so the rules must go on playing, replaying
/// and verifying each version listed here exactly as it was: a change of behaviour is a new
/// version, added here, and the code that differs asks which version a game is under. Each
/// version has a game of its own in `tests/fixtures/rules-v<N>.json` that must still verify.
pub const SHIPPED_RULES_VERSIONS: &[u32] = &[1];

/// Whether this build can replay and verify a game stored under `version`.
pub fn knows_rules_version(version: u32) -> bool {
    SHIPPED_RULES_VERSIONS.contains(&version)
}
