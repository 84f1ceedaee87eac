//! R7: the Partner, Bonus and Blitz variants.

use racko_rules::score::{longest_sequence, sequence_bonus};
use racko_rules::{Action, BlitzMode, Game, Options, Phase, RoundDeal};

use super::common::notation::cards;
use super::common::{seed, Checks, Table};
use super::run_scenario;

#[test]
fn r7_1_partners_sit_opposite_and_score_as_a_team() {
    for players in [2, 3] {
        let options = Options {
            players,
            partner: true,
            ..Options::default()
        };
        assert_eq!(Game::new(options).unwrap_err().code(), "invalid_options");
    }
    run_scenario("e8_partner_team_totals");
    run_scenario("partner_team_reaches_target");
    run_scenario("card_swap_with_partner");
}

#[test]
fn r7_2_bonus_for_the_longest_direct_sequence() {
    let table = [
        (0, 0),
        (1, 0),
        (2, 0),
        (3, 60),
        (4, 110),
        (5, 210),
        (6, 310),
        (9, 310),
        (12, 310),
    ];
    for (len, bonus) in table {
        assert_eq!(sequence_bonus(len), bonus, "length {len}");
    }
    // A joker reads within 1..=max_number only.
    assert_eq!(
        longest_sequence(&cards("1 5 10 15 20 25 30 35 40 48 49 J"), 49),
        2
    );
    assert_eq!(
        longest_sequence(&cards("1 5 10 15 20 25 30 35 40 48 49 J"), 50),
        3
    );
    // Only the longest run counts, and a run must be direct: adjacent slots, +1 each.
    assert_eq!(
        longest_sequence(&cards("1 2 3 10 11 12 13 30 31 40 42 44"), 60),
        4
    );
    assert_eq!(
        longest_sequence(&cards("1 3 5 7 9 11 13 15 17 19 21 23"), 60),
        1
    );
    for name in [
        "e1_bonus_joker_before_pair",
        "e3_bonus_run_of_five",
        "e4_jokers_cannot_read_below_one",
        "blitz_racko_no_bonus",
    ] {
        run_scenario(name);
    }
}

#[test]
fn r7_3_blitz_every_round_or_by_the_dealers_choice() {
    let options = Options {
        blitz: BlitzMode::EveryRound,
        players: 3,
        ..Options::default()
    };
    let mut table = Table::new(options, Checks::Full);
    table
        .start_round(&RoundDeal {
            seed: seed(5),
            stacked: None,
        })
        .unwrap();
    assert_eq!(table.game.phase(), &Phase::BlitzDeal);
    assert_eq!(
        table.game.awaiting(),
        vec![0, 1, 2],
        "every seat places independently"
    );
    assert!(table
        .game
        .legal_actions(0)
        .iter()
        .all(|a| matches!(a, Action::PlaceBlitzCard { .. })));
    let options = Options {
        blitz: BlitzMode::DealersChoice,
        ..Options::default()
    };
    let mut table = Table::new(options, Checks::Full);
    table
        .start_round(&RoundDeal {
            seed: seed(5),
            stacked: None,
        })
        .unwrap();
    assert_eq!(table.game.phase(), &Phase::ChoosingDeal { dealer: 0 });
    for name in [
        "blitz_deal_then_normal_play",
        "blitz_racko_no_bonus",
        "e7_blitz_tie_goes_to_turn_order",
        "dealers_choice",
    ] {
        run_scenario(name);
    }
}
