//! E1..E8: each worked example of RULES.md, by the score functions and in play.

use racko_rules::score::{in_order, longest_sequence, ordered_prefix, racko_score};

use super::common::notation::cards;
use super::run_scenario;

#[test]
fn e1_joker_reads_14_bonus_150() {
    let rack = cards("3 8 J 15 16 22 30 J 41 50 52 60");
    assert!(in_order(&rack));
    assert_eq!(longest_sequence(&rack, 75), 3);
    assert_eq!(racko_score(&rack, true, 75), 150);
    run_scenario("e1_bonus_joker_before_pair");
}

#[test]
fn e2_prefix_of_six_scores_30() {
    let rack = cards("4 9 12 13 J 15 2 20 30 40 45 49");
    assert!(!in_order(&rack));
    assert_eq!(ordered_prefix(&rack), 6);
    run_scenario("e2_ordered_prefix");
}

#[test]
fn e3_run_of_five_scores_300() {
    let rack = cards("1 2 J 4 5 20 21 30 33 40 44 48");
    assert!(in_order(&rack));
    assert_eq!(longest_sequence(&rack, 50), 5);
    assert_eq!(racko_score(&rack, true, 50), 300);
    run_scenario("e3_bonus_run_of_five");
}

#[test]
fn e4_jokers_cannot_read_below_one() {
    let rack = cards("J J 1 2 3 10 20 30 40 41 45 50");
    assert!(in_order(&rack));
    assert_eq!(longest_sequence(&rack, 50), 3);
    assert_eq!(racko_score(&rack, true, 50), 150);
    run_scenario("e4_jokers_cannot_read_below_one");
}

#[test]
fn e5_start_skip_uses_up_seat_1s_turn() {
    run_scenario("e5_start_card_skip");
}

#[test]
fn e6_card_swap_exchanges_40_and_3() {
    run_scenario("e6_card_swap");
}

#[test]
fn e7_blitz_tie_goes_to_seat_2() {
    run_scenario("e7_blitz_tie_goes_to_turn_order");
}

#[test]
fn e8_partner_teams_gain_130_and_35() {
    run_scenario("e8_partner_team_totals");
}
