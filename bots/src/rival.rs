//! The other rack of a 2-player round, estimated from public facts alone (R8.1): what a rack
//! of the round's age costs when a good player plays it, corrected by the slots public facts
//! show. A drawn rack swap (R3.4) hands this seat that rack, so the estimate prices the swap
//! before the other rack is known.
//!
//! The age is the cards drawn from the stock so far in the round (`Sight::round_draws`): the
//! view holds no count of turns, but every draw lays one card on the discard pile. `AGE` is
//! the mean cost (by the expert's measure, from the other seat's view) of a rack the expert
//! plays, by the round's draws, measured with the arena's `--probe` over 400 games of the
//! expert against itself; `Tuning::rival_pace` stretches it for a slower player (`max`'s
//! racks cost about 1.4 times as much at the same age, measured the same way).

use crate::eval::Field;
use crate::sight::{Sight, EMPTY, JOKER};

/// Mean cost of the other rack by the cards drawn so far in the round (0, 1, ... 16; later
/// rounds stay near the last).
const AGE: [f32; 17] = [
    74.8, 61.3, 50.8, 42.9, 36.2, 29.9, 26.2, 22.8, 19.7, 17.0, 15.8, 13.4, 12.9, 11.1, 10.4, 9.5,
    9.0,
];

/// Known slots from which the known cards themselves price the rack.
const WELL_KNOWN: usize = 8;

/// How far a rack of the round's age is ordered, from 0 (as dealt) to nearly 1, by `AGE`.
pub(crate) fn progress(sight: &Sight) -> f32 {
    let i = (sight.round_draws() as usize).min(AGE.len() - 1);
    (1.0 - AGE[i] / AGE[0]).clamp(0.0, 0.95)
}

/// The estimated cost (by `field`) of the other seat's rack of a 2-player round.
pub(crate) fn estimate(sight: &Sight, field: &Field, pace: f32) -> f32 {
    let i = (sight.round_draws() as usize).min(AGE.len() - 1);
    let age = AGE[i] * pace;
    let other = usize::from(1 - sight.me.min(1));
    let Some(known) = sight.known.get(other) else {
        return age;
    };
    let count = known.iter().filter(|c| **c != EMPTY).count();
    if count < WELL_KNOWN {
        return age;
    }
    // The known cards as they stand, the unknown slots read as fitting (jokers), plus the
    // unknown slots' share of a rack of this age.
    let mut rack = *known;
    for c in rack.iter_mut().filter(|c| **c == EMPTY) {
        *c = JOKER;
    }
    field.cost(&rack) + (12 - count) as f32 / 12.0 * age
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_age_table_falls_as_the_round_goes_on() {
        assert!(AGE.windows(2).all(|w| w[1] <= w[0]));
    }
}
