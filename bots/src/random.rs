//! The `random` level: uniform over the legal actions.

use racko_rules::Action;

use crate::dice::Dice;
use crate::sight::Sight;

pub(crate) fn decide(sight: &Sight, legal: &[Action], dice: &mut Dice) -> Option<Action> {
    if !sight.awaited {
        // Off turn the only legal action is a Racko call (R4.2), which may also be left out:
        // calling and passing are the two choices.
        return legal.first().copied().filter(|_| dice.below(2) == 0);
    }
    legal.get(dice.below(legal.len())).copied()
}
