//! The `expert` level: the choices of `strong` (each the one that leaves the rack cheapest to
//! order, a draw valued as the mean over the cards it may bring), by a cost weighed anew and
//! tuned by seeded self-play in the arena (`docs/bots.md` lists the runs):
//! - every unseen joker speeds up every slot still to fill, not only the short gaps;
//! - with Bonus (R7.2) a run on the rack is worth draws, so it plays for long runs.

use racko_rules::Action;

use crate::eval::{Field, Tuning};
use crate::sight::Sight;
use crate::strong;

/// The `expert` level's weights (tuned in the arena, see `docs/bots.md`).
pub const TUNED: Tuning = Tuning {
    discard_weight: 0.35,
    short_penalty: 4.0,
    joker_share: 0.0,
    gap_power: 2.0,
    bonus_weight: 0.0,
};

pub(crate) fn decide(sight: &Sight, legal: &[Action], tuning: Tuning) -> Option<Action> {
    strong::play(sight, legal, &Field::new(sight, tuning))
}
