//! Computer players for Racko. A player decides from its seat's [`View`] alone (R8.1: its own
//! rack and drawn card, the discard pile, the stock's size, the scores), never from the hidden
//! state of the [`racko_rules::Game`], so it cannot cheat: [`decide`] has nothing else to read.
//!
//! Four [`Level`]s, each its own algorithm: `random` (uniform over the legal actions), `basic`
//! (each slot wants its band of values), `strong` (counts the unseen cards and keeps the rack
//! cheapest to order; see `eval`) and `expert` (the same search by a cost tuned in self-play). Pure like the rules crate: no clock, no OS randomness;
//! the only chance is the caller's `seed`.
//!
//! [`sparring`] holds players others published, rebuilt for the arena; [`table`] plays whole
//! games between players (the tests and the arena use it).

mod basic;
mod dice;
mod eval;
pub mod expert;
pub mod foresight;
mod kyle;
pub mod learned;
mod level;
pub mod oracle;
mod random;
mod runs;
mod sight;
pub mod sparring;
mod strong;
pub mod table;
mod tuning;

pub use level::{Level, UnknownLevel};
pub use tuning::Tuning;

use racko_rules::{Action, View};

/// The action a computer player at `level` takes for the seat whose view this is.
///
/// - When the view's seat is awaited (its turn, the dealer's choice, a Blitz card to place),
///   the answer is always `Some` of one of `view.legal_actions`.
/// - When it is not awaited, the only legal action is an off-turn Racko call (R4.2, after a
///   swap ordered the rack): `Some(CallRacko)` to call, `None` to let the moment pass. A server
///   asks every computer seat whose legal actions hold `CallRacko` after each change.
/// - `None` also when `view.legal_actions` is empty, or the view is not a seat's.
///
/// The same view and seed always give the same action; `seed` is the player's own chance
/// (only `random` uses it).
pub fn decide(level: Level, view: &View, seed: u64) -> Option<Action> {
    let legal = &view.legal_actions;
    if legal.is_empty() {
        return None;
    }
    let sight = sight::Sight::of(view)?;
    let mut dice = dice::Dice::new(seed);
    let action = match level {
        Level::Random => random::decide(&sight, legal, &mut dice),
        Level::Basic => basic::decide(&sight, legal),
        Level::Strong => strong::decide(&sight, legal),
        Level::Expert => expert::decide(&sight, legal, expert::TUNED),
    };
    // Every level picks from `legal`; this only guards the promise above.
    action.filter(|a| legal.contains(a))
}

/// The `expert` level with other weights: for tuning in the arena only.
pub fn decide_expert_with(tuning: Tuning, view: &View) -> Option<Action> {
    let legal = &view.legal_actions;
    if legal.is_empty() {
        return None;
    }
    let sight = sight::Sight::of(view)?;
    expert::decide(&sight, legal, tuning).filter(|a| legal.contains(a))
}
