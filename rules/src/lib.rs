//! The rules of Racko (Ravensburger, 1986), as a pure and deterministic library.
//!
//! Rule numbers (R1..R10) and worked examples (E1..E8) refer to `docs/rules.md` at the root of
//! the repository, the project's rules contract.
//! Nothing here performs IO, reads a clock or the OS random source: every
//! random choice is derived from a caller-supplied 32-byte seed (see [`shuffle`]).
//!
//! The shape, in short:
//! - [`Game::new`] builds a game from [`Options`]; the game then waits for a round.
//! - [`Game::play`] plays one [`Input`], the only way a game moves on: a deal from a
//!   [`RoundDeal`] (a seed, or a stacked deck), one [`Action`] of one seat, a timeout (R10.2)
//!   or a resignation (R10.3). It returns the new game and the [`Event`]s it caused, or a
//!   [`RulesError`], leaving `self` untouched; [`Game::play_mut`] plays in place.
//!   ([`Game::start_round`] and [`Game::apply`] are its shorthands for a deal and an action.)
//! - [`Event::input`] gives back the input a logged event records, and [`Event::actor`] whose
//!   choice it was ([`Actor`]: a seat, the server, or nobody).
//! - [`Game::legal_actions`] lists exactly what a seat may do now.
//! - R10, games that outlast their players: [`deadline::begins_stage`] says which events start
//!   a seat's deadline afresh; [`Game::stand_in`] when a seat's deadline has passed (it is
//!   [`Input::TimeOut`], then [`Game::simplest_move`] while [`Game::played_for`] names the
//!   seat); [`deadline::DeadlineCheck`] checks a log's timeouts.
//! - [`Game::view`] and [`Event::for_viewer`] are the R8 projections;
//!   [`event::kinds_shown_as`] names the stored kinds a shown kind may stand for (R8.2).
//! - [`replay::replay`] rebuilds a game from its options and its full event log;
//!   [`replay::Steps`] walks the log one input at a time.
//! - [`RulesError`] says why an input was refused; [`RulesCode`] lists every refusal's stable
//!   code once, with its meaning and [`Refusal`] kind, so the server derives its error
//!   catalogue from it.
//! - [`DeckCounts::cards`] lists a deck's cards, [`deck`] holds the R2.2 deal order and
//!   [`StackedDeck::from_racks`] stacks a deck to deal given racks (tests, test mode).

pub mod action;
pub mod card;
pub mod deadline;
pub mod deck;
pub mod error;
pub mod event;
pub mod game;
pub mod input;
pub mod options;
pub mod replay;
pub mod score;
pub mod shuffle;
pub mod view;

pub use action::Action;
pub use card::{Card, Rack, Seat, Slot};
pub use deck::StackedDeck;
pub use error::{Refusal, RulesCode, RulesError};
pub use event::{Event, ResignReason, RoundEnd};
pub use game::{Game, Phase, TurnStage};
pub use input::{Actor, Input};
pub use options::{BlitzMode, DeckCounts, Options};
pub use shuffle::{RoundDeal, Seed};
pub use view::{KnownCard, RoundResult, SlotCard, View, Viewer};

/// The version of these rules. A stored game records the version it was played under so that a
/// later change of the rules can never silently change an old replay. Bump it whenever any
/// output of [`Game::play`] or the shuffle changes for the same input.
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
