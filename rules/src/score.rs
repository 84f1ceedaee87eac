//! Order and scoring (R4.1, R5, R7.2).

use crate::Card;

/// R5.1: what a Racko caller scores before any bonus (30 for the win, 5 for each of 12 cards).
pub const RACKO_SCORE: u32 = 90;
/// R7.3: what the Blitz-Racko winner scores (no bonus).
pub const BLITZ_RACKO_SCORE: u32 = 100;
/// R5.2: points per card of the ordered prefix.
pub const POINTS_PER_CARD: u32 = 5;

/// R4.1: each number card higher than every number card before it; jokers fit anywhere.
pub fn in_order(rack: &[Card]) -> bool {
    ordered_prefix(rack) == rack.len()
}

/// R5.2: the number of cards of the ordered prefix from slot 5.
pub fn ordered_prefix(rack: &[Card]) -> usize {
    // Number cards are at least 1, so 0 is "nothing seen yet".
    let mut highest = 0u16;
    for (i, card) in rack.iter().enumerate() {
        if let Some(value) = card.number() {
            if value <= highest {
                return i;
            }
            highest = value;
        }
    }
    rack.len()
}

/// R5.2: the points of a rack that did not win the round.
pub fn prefix_score(rack: &[Card]) -> u32 {
    ordered_prefix(rack) as u32 * POINTS_PER_CARD
}

/// R7.2: the longest direct sequence, jokers reading as the number the run needs within
/// 1..=max_number.
pub fn longest_sequence(rack: &[Card], max_number: u16) -> usize {
    let mut longest = 0;
    for start in 0..rack.len() {
        for end in start..rack.len() {
            if !is_direct_run(&rack[start..=end], max_number) {
                // A longer run from `start` contains this one, so it cannot be direct either.
                break;
            }
            longest = longest.max(end - start + 1);
        }
    }
    longest
}

/// True when some first value `base` makes every card read `base + offset`: number cards must
/// match exactly, jokers take the value, and every value lies in 1..=max_number.
fn is_direct_run(run: &[Card], max_number: u16) -> bool {
    let len = run.len() as i32;
    let mut base: Option<i32> = None;
    for (offset, card) in run.iter().enumerate() {
        match card {
            Card::Number { value } => {
                let this_base = i32::from(*value) - offset as i32;
                match base {
                    Some(b) if b != this_base => return false,
                    _ => base = Some(this_base),
                }
            }
            Card::Joker => {}
            _ => return false,
        }
    }
    // A run of jokers alone may start at 1.
    let base = base.unwrap_or(1);
    base >= 1 && base + len - 1 <= i32::from(max_number)
}

/// R7.2: the bonus for a sequence length (0 below 3).
pub fn sequence_bonus(len: usize) -> u32 {
    match len {
        0..=2 => 0,
        3 => 60,
        4 => 110,
        5 => 210,
        _ => 310,
    }
}

/// R5.1 + R7.2: what a Racko caller scores.
pub fn racko_score(rack: &[Card], bonus: bool, max_number: u16) -> u32 {
    if bonus {
        RACKO_SCORE + sequence_bonus(longest_sequence(rack, max_number))
    } else {
        RACKO_SCORE
    }
}

/// Parses a rack written as in RULES.md ("3 8 J 15 ..."), for tests.
#[cfg(test)]
pub(crate) fn rack_of(text: &str) -> Vec<Card> {
    text.split_whitespace()
        .map(|word| match word {
            "J" => Card::Joker,
            n => Card::Number {
                value: n.parse().expect("a test rack holds numbers and J"),
            },
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn e1_joker_extends_sequence_bonus_150() {
        let rack = rack_of("3 8 J 15 16 22 30 J 41 50 52 60");
        assert!(in_order(&rack));
        assert_eq!(longest_sequence(&rack, 75), 3);
        assert_eq!(racko_score(&rack, true, 75), 150);
    }

    #[test]
    fn e2_ordered_prefix_stops_at_first_drop() {
        let rack = rack_of("4 9 12 13 J 15 2 20 30 40 45 49");
        assert!(!in_order(&rack));
        assert_eq!(ordered_prefix(&rack), 6);
        assert_eq!(prefix_score(&rack), 30);
    }

    #[test]
    fn e3_sequence_of_five_scores_300() {
        let rack = rack_of("1 2 J 4 5 20 21 30 33 40 44 48");
        assert!(in_order(&rack));
        assert_eq!(longest_sequence(&rack, 50), 5);
        assert_eq!(racko_score(&rack, true, 50), 300);
    }

    #[test]
    fn e4_jokers_cannot_read_below_one() {
        let rack = rack_of("J J 1 2 3 10 20 30 40 41 45 50");
        assert!(in_order(&rack));
        assert_eq!(longest_sequence(&rack, 50), 3);
        assert_eq!(racko_score(&rack, true, 50), 150);
    }

    #[test]
    fn r4_1_joker_fits_anywhere() {
        assert!(!in_order(&rack_of("J 50 J 1")));
        assert!(in_order(&rack_of("J 2 J 3 J")));
        assert!(in_order(&rack_of("J J J")));
    }

    #[test]
    fn r4_1_equal_or_lower_breaks_order() {
        assert!(!in_order(&rack_of("5 9 7")));
        assert_eq!(ordered_prefix(&rack_of("5 9 J 7 10")), 3);
    }

    #[test]
    fn r5_2_prefix_example_from_rules() {
        // slots 5..25 ascend, slot 30 is lower: 25 points, however 35..60 go on.
        let rack = rack_of("1 2 3 4 5 0 7 8 9 10 11 12");
        assert_eq!(prefix_score(&rack), 25);
    }

    #[test]
    fn r5_1_caller_without_bonus_scores_90() {
        let rack = rack_of("1 2 3 4 5 6 7 8 9 10 11 12");
        assert_eq!(racko_score(&rack, false, 50), 90);
        assert_eq!(racko_score(&rack, true, 50), 400);
    }

    #[test]
    fn r7_2_jokers_cannot_read_above_max() {
        assert_eq!(longest_sequence(&rack_of("49 50 J"), 50), 2);
        assert_eq!(longest_sequence(&rack_of("48 49 50 J"), 51), 4);
        assert_eq!(longest_sequence(&rack_of("J J J J"), 3), 3);
    }

    #[test]
    fn r7_2_bonus_table() {
        let bonuses: Vec<u32> = (0..8).map(sequence_bonus).collect();
        assert_eq!(bonuses, [0, 0, 0, 60, 110, 210, 310, 310]);
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        fn card() -> impl Strategy<Value = Card> {
            prop_oneof![
                4 => (1u16..=75).prop_map(|value| Card::Number { value }),
                1 => Just(Card::Joker),
            ]
        }

        proptest! {
            #[test]
            fn r4_1_in_order_is_a_full_prefix(rack in prop::collection::vec(card(), 12)) {
                prop_assert_eq!(in_order(&rack), ordered_prefix(&rack) == 12);
                prop_assert!(in_order(&rack[..ordered_prefix(&rack)]));
            }

            #[test]
            fn r7_2_sequence_fits_the_rack(rack in prop::collection::vec(card(), 12)) {
                let len = longest_sequence(&rack, 75);
                prop_assert!((1..=12).contains(&len));
                // Twelve jokers read 1..=12, a sequence of all twelve.
                let jokers = rack.iter().all(|c| *c == Card::Joker);
                prop_assert!(!jokers || len == 12);
            }
        }
    }
}
