//! R4 (order and Racko), R5 (scoring a round), R6 (end of the game).

use racko_rules::score::{in_order, ordered_prefix, prefix_score, racko_score};
use racko_rules::{Action, Phase, TurnStage};

use super::common::notation::cards;
use super::{dealt, run_scenario, two_players, ORDERED, UNORDERED};

#[test]
fn r4_1_each_number_higher_than_all_before_jokers_fit_anywhere() {
    assert!(in_order(&cards("1 2 3 4 5 6 7 8 9 10 11 12")));
    assert!(in_order(&cards("J 1 J 2 J 3 J 4 J 5 J 6")));
    assert!(in_order(&cards("J J J J J J J J J J J J")));
    assert!(in_order(&cards("50 J J J J J J J J J J 51")));
    assert!(!in_order(&cards("1 2 3 4 5 6 7 8 9 10 12 11")));
    // Equal is not higher; a joker between does not make a lower card fit.
    assert!(!in_order(&cards("5 J 4 6 7 8 9 10 11 12 13 14")));
    assert!(!in_order(&cards("2 1 3 4 5 6 7 8 9 10 11 12")));
}

#[test]
fn r4_2_racko_at_any_moment_of_the_play() {
    // Seat 0 is in order; it may call in every stage of seat 1's turn.
    for (stock, stage) in [
        ("23", TurnStage::Begin),
        ("23 26", TurnStage::Drawn),
        ("23 CS", TurnStage::CardSwap),
        ("23 RS", TurnStage::RackSwap),
    ] {
        let mut table = dealt(two_players(), &[ORDERED, UNORDERED], stock);
        if stage != TurnStage::Begin {
            table.play(1, Action::Draw);
        }
        assert_eq!(table.game.phase(), &Phase::Turn { seat: 1, stage });
        assert!(table.game.legal_actions(0).contains(&Action::CallRacko));
        assert_eq!(
            table.act(1, Action::CallRacko).unwrap_err().code(),
            "rack_not_in_order"
        );
        table.play(0, Action::CallRacko);
        assert_eq!(table.tracker.round_scores.last(), Some(&vec![90, 5]));
    }
    run_scenario("racko_refused_when_not_in_order");
    run_scenario("racko_on_another_players_turn");
}

#[test]
fn r5_1_the_caller_scores_90() {
    assert_eq!(
        racko_score(&cards("1 2 3 4 5 6 7 8 9 10 11 12"), false, 50),
        90
    );
    assert_eq!(
        racko_score(&cards("J J J J J J J J J J J J"), false, 50),
        90
    );
    run_scenario("e3_without_bonus");
}

#[test]
fn r5_2_five_points_per_card_of_the_ordered_prefix() {
    assert_eq!(
        ordered_prefix(&cards("20 21 22 23 24 6 25 26 27 28 29 30")),
        5
    );
    assert_eq!(
        prefix_score(&cards("20 21 22 23 24 6 25 26 27 28 29 30")),
        25
    );
    assert_eq!(ordered_prefix(&cards("9 1 2 3 4 5 6 7 8 10 11 12")), 1);
    assert_eq!(ordered_prefix(&cards("J 1 2 3 4 5 6 7 8 10 11 12")), 12);
    assert_eq!(prefix_score(&cards("J 1 2 3 4 5 6 7 8 10 11 12")), 60);
    run_scenario("prefix_ends_at_first_break");
}

#[test]
fn r5_3_the_bonus_is_added_to_the_callers_90() {
    let rack = cards("1 2 3 4 10 20 30 40 45 50 55 60");
    assert_eq!(racko_score(&rack, true, 60), 200);
    assert_eq!(racko_score(&rack, false, 60), 90);
    run_scenario("bonus_run_of_four");
    run_scenario("bonus_run_of_seven_and_none_for_others");
}

#[test]
fn r6_1_the_game_ends_at_the_target_and_ties_share_the_win() {
    run_scenario("game_ends_at_target");
    run_scenario("tie_at_target_shares_the_win");
    run_scenario("highest_total_wins_when_both_pass_target");
    run_scenario("deal_passes_left");
}
