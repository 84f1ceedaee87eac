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
    points(longest(rack, max))
}

fn points(length: usize) -> u16 {
    match length {
        0..=2 => 0,
        3 => 60,
        4 => 110,
        5 => 210,
        _ => 310,
    }
}

/// The run bonus the rack may still reach (R7.2), in points: over the windows of 3 to 6
/// adjacent slots whose cards lie on one run through a number card of the rack (slot i holds
/// c + i, or a joker), the window's bonus times `chance` for each of its slots still waiting
/// for its value. A slot whose value is gone (seen elsewhere) breaks the run.
pub(crate) fn potential(rack: &Slots, max: u16, unseen: &[bool], chance: f32) -> f32 {
    let mut best = 0.0f32;
    let mut lines: Vec<i32> = Vec::with_capacity(12);
    for (i, &card) in rack.iter().enumerate() {
        if card != JOKER && card != EMPTY {
            let c = i32::from(card) - i as i32;
            if !lines.contains(&c) {
                lines.push(c);
            }
        }
    }
    for c in lines {
        // 0: on the run; 1: waiting for its value; 2: broken.
        let mut state = [2u8; 12];
        for (i, &card) in rack.iter().enumerate() {
            let want = c + i as i32;
            if want < 1 || want > i32::from(max) {
                continue;
            }
            state[i] = if card == JOKER || i32::from(card) == want {
                0
            } else if unseen.get(want as usize).copied().unwrap_or(false) {
                1
            } else {
                2
            };
        }
        for start in 0..10 {
            let mut waiting = 0;
            for (length, slot) in state.iter().skip(start).take(6).enumerate() {
                match slot {
                    2 => break,
                    1 => waiting += 1,
                    _ => {}
                }
                let length = length + 1;
                if length >= 3 {
                    let value = f32::from(points(length)) * chance.powi(waiting);
                    best = best.max(value);
                }
            }
        }
    }
    best
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

    #[test]
    fn a_run_waiting_for_unseen_values_counts_by_its_chance() {
        let mut unseen = vec![false; 51];
        // 10 11 in slots 5 and 10, 40 in slot 15: 12 would make a run of 3 (60 points).
        let rack: Slots = [10, 11, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49];
        assert_eq!(
            potential(&rack, 50, &unseen, 0.5),
            310.0,
            "40..49 holds six"
        );
        let short: Slots = [10, 11, 30, 1, 2, 3, 40, 5, 46, 7, 48, 9];
        assert_eq!(
            potential(&short, 50, &unseen, 0.5),
            60.0,
            "1 2 3 is a run of 3"
        );
        let waiting: Slots = [10, 11, 30, 1, 2, 33, 4, 35, 6, 37, 8, 39];
        assert_eq!(
            potential(&waiting, 50, &unseen, 0.5),
            0.0,
            "12 has been seen"
        );
        unseen[12] = true;
        assert_eq!(potential(&waiting, 50, &unseen, 0.5), 30.0);
    }
}
