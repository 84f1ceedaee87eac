//! The Bonus variant's runs (R7.2) on a player's slots: adjacent slots of consecutive
//! numbers, a joker reading as whatever number the run needs within 1..=max.

use crate::sight::{Slots, EMPTY, JOKER};

/// The longest run of the rack.
pub(crate) fn longest(rack: &Slots, max: u16) -> usize {
    let mut best = 0;
    for start in 0..12 {
        // The first number card of the window fixes every value in it.
        let mut anchor: Option<(usize, i32)> = None;
        for (end, &card) in rack.iter().enumerate().skip(start) {
            if card == EMPTY {
                break;
            }
            if card != JOKER {
                match anchor {
                    None => anchor = Some((end, i32::from(card))),
                    Some((at, value)) if value + (end - at) as i32 != i32::from(card) => break,
                    Some(_) => {}
                }
            }
            let fits = match anchor {
                Some((at, value)) => {
                    value - (at - start) as i32 >= 1 && value + (end - at) as i32 <= i32::from(max)
                }
                None => end - start < usize::from(max),
            };
            if !fits {
                break;
            }
            best = best.max(end - start + 1);
        }
    }
    best
}

/// The caller's run bonus in points (R7.2): 3 → 60, 4 → 110, 5 → 210, 6 or more → 310.
pub(crate) fn bonus(rack: &Slots, max: u16) -> u16 {
    match longest(rack, max) {
        0..=2 => 0,
        3 => 60,
        4 => 110,
        5 => 210,
        _ => 310,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_read_jokers_as_the_numbers_they_need() {
        // E1: J 15 16 is a run of 3 (the joker reads 14).
        let e1: Slots = [3, 8, JOKER, 15, 16, 22, 30, JOKER, 41, 50, 52, 60];
        assert_eq!(longest(&e1, 60), 3);
        assert_eq!(bonus(&e1, 60), 60);
        // E3: 1 2 J 4 5 is a run of 5.
        let e3: Slots = [1, 2, JOKER, 4, 5, 20, 21, 30, 33, 40, 44, 48];
        assert_eq!(longest(&e3, 50), 5);
        // E4: the jokers cannot read 0 and -1.
        let e4: Slots = [JOKER, JOKER, 1, 2, 3, 10, 20, 30, 40, 41, 45, 50];
        assert_eq!(longest(&e4, 50), 3);
    }
}
