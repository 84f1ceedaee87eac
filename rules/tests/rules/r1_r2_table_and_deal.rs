//! R1 (table, cards, rack) and R2 (dealing a round).

use racko_rules::shuffle::shuffled_deck;
use racko_rules::{Action, Card, DeckCounts, Event, Game, Options, Phase, RoundDeal, Slot};

use super::common::{seed, Checks, Table};
use super::{deal, dealt, run_scenario, two_players, ORDERED, UNORDERED};

#[test]
fn r1_1_two_to_four_players_clockwise() {
    for players in [0, 1, 5, 9] {
        let options = Options {
            players,
            ..Options::default()
        };
        assert_eq!(Game::new(options).unwrap_err().code(), "invalid_options");
    }
    // 3 players: after seat 1 comes seat 2, then seat 0.
    let options = Options {
        players: 3,
        ..Options::default()
    };
    let mut table = Table::new(options, Checks::Full);
    table
        .start_round(&RoundDeal {
            seed: seed(1),
            stacked: None,
        })
        .unwrap();
    let mut turns = Vec::new();
    while turns.len() < 6 {
        let Phase::Turn { seat, .. } = *table.game.phase() else {
            panic!("a turn")
        };
        if turns.last() != Some(&seat) {
            turns.push(seat);
        }
        // Take the top discard when possible, so that no event card interrupts the order.
        let take = Action::TakeDiscard { slot: Slot(60) };
        let legal = table.game.legal_actions(seat);
        let other = legal.iter().find(|a| **a != Action::CallRacko).copied();
        let action = if legal.contains(&take) {
            take
        } else {
            other.unwrap()
        };
        table.play(seat, action);
    }
    let start = turns[0];
    for (i, seat) in turns.iter().enumerate() {
        assert_eq!(
            *seat,
            (start + i as u8) % 3,
            "turns go clockwise: {turns:?}"
        );
    }
}

#[test]
fn r1_2_slots_are_labelled_5_to_60() {
    let labels: Vec<u16> = Slot::all().map(|s| s.0).collect();
    assert_eq!(labels, (1..=12).map(|i| i * 5).collect::<Vec<_>>());
    for bad in [0, 3, 7, 61, 65, 600] {
        assert_eq!(Slot(bad).index(), None);
    }
    let mut table = dealt(two_players(), &[ORDERED, UNORDERED], "23");
    let takes: Vec<Action> = Slot::all()
        .map(|slot| Action::TakeDiscard { slot })
        .collect();
    assert!(takes
        .iter()
        .all(|a| table.game.legal_actions(1).contains(a)));
    let error = table
        .act(1, Action::TakeDiscard { slot: Slot(62) })
        .unwrap_err();
    assert_eq!(error.code(), "slot_out_of_range");
}

#[test]
fn r1_3_every_card_exists_once() {
    // A seeded deal holds each card of the deck exactly once (the tracker recounts them).
    for players in 2..=4 {
        let options = Options {
            players,
            ..Options::default()
        };
        let counts = options.deck_counts();
        let deck = shuffled_deck(&counts, players, &seed(7));
        let mut all: Vec<Card> = deck
            .deal
            .iter()
            .map(|&value| Card::Number { value })
            .collect();
        all.extend(&deck.stock);
        let mut expected = counts.cards();
        let key = |c: &Card| format!("{c:?}");
        all.sort_by_key(key);
        expected.sort_by_key(key);
        assert_eq!(all, expected);
        let mut table = Table::new(options, Checks::Full);
        table
            .start_round(&RoundDeal {
                seed: seed(7),
                stacked: None,
            })
            .unwrap();
        table.tracker.check_conservation();
    }
}

#[test]
fn r1_4_default_decks_and_limits() {
    let table = [
        (2, 50, 5, 3, 3, 2),
        (3, 60, 6, 4, 4, 3),
        (4, 75, 7, 5, 5, 4),
    ];
    for (players, max_number, jokers, card_swaps, skips, rack_swaps) in table {
        let want = DeckCounts {
            max_number,
            jokers,
            card_swaps,
            skips,
            rack_swaps,
        };
        assert_eq!(DeckCounts::default_for(players), Some(want));
        assert_eq!(
            Options {
                players,
                ..Options::default()
            }
            .deck_counts(),
            want
        );
    }
    assert_eq!(DeckCounts::default_for(5), None);
    let deck = |max_number, jokers| DeckCounts {
        max_number,
        jokers,
        card_swaps: 0,
        skips: 0,
        rack_swaps: 0,
    };
    let refused = [
        (2, deck(24, 0)),
        (3, deck(36, 0)),
        (4, deck(48, 0)),
        (2, deck(1000, 0)),
        (2, deck(50, 100)),
    ];
    for (players, counts) in refused {
        let options = Options {
            players,
            deck: Some(counts),
            ..Options::default()
        };
        assert_eq!(
            Game::new(options).unwrap_err().code(),
            "invalid_options",
            "{counts:?}"
        );
    }
    for (players, counts) in [(2, deck(25, 0)), (4, deck(49, 99)), (2, deck(999, 99))] {
        assert!(Game::new(Options {
            players,
            deck: Some(counts),
            ..Options::default()
        })
        .is_ok());
    }
}

#[test]
fn r2_1_deal_passes_left() {
    let options = Options {
        players: 3,
        target: 10_000,
        deck: Some(DeckCounts {
            max_number: 40,
            jokers: 1,
            card_swaps: 1,
            skips: 1,
            rack_swaps: 1,
        }),
        ..Options::default()
    };
    let mut table = Table::new(options, Checks::Full);
    for round in 1..=4u32 {
        deal(
            &mut table,
            &[
                "1 2 3 4 5 6 7 8 9 10 11 12",
                "13 14 15 16 17 18 19 20 21 22 23 24",
                "25 26 27 28 29 30 31 32 33 34 35 36",
            ],
            "37",
        );
        let Some(Event::RoundStarted {
            dealer, start_seat, ..
        }) = table
            .events
            .iter()
            .rev()
            .find(|e| e.kind() == "round_started")
        else {
            panic!("a round started");
        };
        let want_dealer = ((round - 1) % 3) as u8;
        assert_eq!(
            (*dealer, *start_seat),
            (want_dealer, (want_dealer + 1) % 3),
            "round {round}"
        );
        let start = *start_seat;
        assert_eq!(
            table.game.phase(),
            &Phase::Turn {
                seat: start,
                stage: racko_rules::TurnStage::Begin
            }
        );
        table.play(start, Action::CallRacko);
    }
}

#[test]
fn r2_1_no_deal_during_a_round_or_after_the_game() {
    let mut table = dealt(two_players(), &[ORDERED, UNORDERED], "23");
    let again = RoundDeal {
        seed: seed(2),
        stacked: None,
    };
    let before = table.game.clone();
    assert_eq!(
        table.game.start_round_mut(&again).unwrap_err().code(),
        "round_in_progress"
    );
    assert_eq!(table.game, before, "a refused deal changes nothing");
    run_scenario("game_ends_at_target");
}

#[test]
fn r2_2_deal_one_card_at_a_time_from_the_start_player() {
    // Seeded: seat 1 (the start player) gets deal[0] into slot 60, seat 0 deal[1] into slot 60,
    // ..., and the 12th cards into slot 5.
    let options = two_players();
    let deck = shuffled_deck(&options.deck_counts(), 2, &seed(3));
    let mut table = Table::new(options, Checks::Full);
    table
        .start_round(&RoundDeal {
            seed: seed(3),
            stacked: None,
        })
        .unwrap();
    for k in 0..12 {
        let slot = 11 - k;
        assert_eq!(
            table.game.rack(1).unwrap().0[slot],
            Card::Number {
                value: deck.deal[2 * k]
            }
        );
        assert_eq!(
            table.game.rack(0).unwrap().0[slot],
            Card::Number {
                value: deck.deal[2 * k + 1]
            }
        );
    }
}

#[test]
fn r2_3_start_card_is_the_top_of_the_stock() {
    for byte in 0..20 {
        let options = Options {
            players: 3,
            ..Options::default()
        };
        let deck = shuffled_deck(&options.deck_counts(), 3, &seed(byte));
        let mut game = Game::new(options).unwrap();
        let events = game
            .start_round_mut(&RoundDeal {
                seed: seed(byte),
                stacked: None,
            })
            .unwrap();
        assert!(events.contains(&Event::StartCard {
            card: deck.stock[0]
        }));
        assert_eq!(game.discard_pile(), &deck.stock[..1]);
        assert_eq!(game.stock_size(), deck.stock.len() - 1);
    }
}

#[test]
fn r2_4_event_start_card_is_the_start_players_first_turn() {
    run_scenario("e5_start_card_skip");
    run_scenario("start_card_card_swap");
    run_scenario("start_card_rack_swap");
}

#[test]
fn r2_5_blitz_deal_keeps_the_deal_order() {
    run_scenario("blitz_deal_then_normal_play");
}
