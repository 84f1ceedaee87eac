//! Whole games between the levels in every variant: every answer is a legal action, an awaited
//! seat always answers, and every game ends (R6.1).

use std::collections::BTreeSet;

use racko_bots::table::play_game;
use racko_bots::{decide, Level};
use racko_rules::{
    Action, BlitzMode, Card, DeckCounts, Game, Options, RoundDeal, Seed, StackedDeck, Viewer,
};

fn variants() -> Vec<(&'static str, Options)> {
    let base = |players: u8| Options {
        players,
        target: 250,
        ..Options::default()
    };
    vec![
        ("2 players", base(2)),
        ("3 players", base(3)),
        ("4 players", base(4)),
        (
            "partner",
            Options {
                partner: true,
                ..base(4)
            },
        ),
        (
            "bonus",
            Options {
                bonus: true,
                ..base(2)
            },
        ),
        (
            "blitz",
            Options {
                blitz: BlitzMode::EveryRound,
                ..base(3)
            },
        ),
        (
            "dealer's choice",
            Options {
                blitz: BlitzMode::DealersChoice,
                bonus: true,
                ..base(4)
            },
        ),
        (
            "dealer's choice, 2",
            Options {
                blitz: BlitzMode::DealersChoice,
                ..base(2)
            },
        ),
    ]
}

#[test]
fn every_level_plays_only_legal_actions_and_every_game_ends_in_every_variant() {
    let mut kinds: BTreeSet<(&'static str, &'static str)> = BTreeSet::new();
    let mut off_turn_calls = 0;
    for (name, options) in variants() {
        for game in 0..12u64 {
            // Every level sits at the table; two players never both play `random` (such a
            // game need never end: random play rarely orders a rack).
            let levels: Vec<Level> = (0..options.players)
                .map(|s| Level::ALL[(game as usize + usize::from(s)) % Level::ALL.len()])
                .collect();
            let record = play_game(&options, game, 200_000, |seat, view, seed| {
                let level = levels[usize::from(seat)];
                let action = decide(level, view, seed);
                let awaited = view.awaiting.contains(&seat);
                match action {
                    Some(a) => {
                        assert!(
                            view.legal_actions.contains(&a),
                            "{name}: {level} chose {a:?}"
                        );
                        kinds.insert((level.name(), a.kind()));
                        if !awaited {
                            off_turn_calls += 1;
                        }
                    }
                    None => assert!(!awaited, "{name}: {level} gave no action when awaited"),
                }
                action
            })
            .unwrap_or_else(|e| panic!("{name}, game {game}: {e}"));
            assert!(record.finished(), "{name}, game {game}: cut off");
        }
    }
    // Every kind of action was chosen by every level somewhere.
    for level in Level::ALL {
        for kind in [
            "choose_deal",
            "place_blitz_card",
            "take_discard",
            "draw",
            "place_drawn",
            "discard_drawn",
            "swap_card",
            "swap_racks",
            "call_racko",
        ] {
            assert!(
                kinds.contains(&(level.name(), kind)),
                "{level} never chose {kind}"
            );
        }
    }
    assert!(off_turn_calls > 0, "no Racko call off turn (R4.2) happened");
}

fn number(value: u16) -> Card {
    Card::Number { value }
}

#[test]
fn r4_2_an_ordered_rack_calls_racko_off_turn() {
    // Seat 0 deals and is dealt an ordered rack; seat 1 is on turn.
    let counts = DeckCounts::default_for(2).expect("a 2-player deck");
    let ordered: [u16; 12] = std::array::from_fn(|i| 2 * i as u16 + 1);
    let other: [u16; 12] = std::array::from_fn(|i| 48 - 2 * i as u16);
    let stacked = StackedDeck::from_racks(&counts, &[ordered, other], 1, &[number(49)]);
    let (game, _) = Game::new(Options::default())
        .and_then(|g| {
            g.start_round(&RoundDeal {
                seed: Seed([7; 32]),
                stacked: Some(stacked),
            })
        })
        .expect("a dealt round");
    let view = game.view(Viewer::Seat { seat: 0 });
    assert!(!view.awaiting.contains(&0));
    assert_eq!(view.legal_actions, vec![Action::CallRacko]);
    for level in [Level::Basic, Level::Strong, Level::Expert] {
        assert_eq!(decide(level, &view, 1), Some(Action::CallRacko), "{level}");
    }
    // Off turn, `random` calls or passes; both happen.
    let answers: BTreeSet<bool> = (0..32)
        .map(|seed| decide(Level::Random, &view, seed).is_some())
        .collect();
    assert_eq!(answers.len(), 2);
    // Seat 1 has nothing but its turn; on a seat's view with nothing legal, no answer.
    let spectator = game.view(Viewer::Spectator);
    assert_eq!(decide(Level::Strong, &spectator, 1), None);
}

#[test]
fn r3_1_strong_and_basic_take_the_discard_that_orders_the_rack() {
    // Seat 1 starts; each slot holds a card of its band (a twelfth of 1..50) but slot 40,
    // which holds 5 after 27; 32 lies face up.
    let counts = DeckCounts::default_for(2).expect("a 2-player deck");
    let other = [1, 3, 4, 7, 8, 9, 11, 12, 13, 15, 16, 17];
    let nearly = [2, 6, 10, 14, 18, 22, 27, 5, 35, 39, 43, 47];
    let stacked = StackedDeck::from_racks(&counts, &[other, nearly], 1, &[number(32)]);
    let (game, _) = Game::new(Options::default())
        .and_then(|g| {
            g.start_round(&RoundDeal {
                seed: Seed([3; 32]),
                stacked: Some(stacked),
            })
        })
        .expect("a dealt round");
    let view = game.view(Viewer::Seat { seat: 1 });
    let take = Action::TakeDiscard {
        slot: racko_rules::Slot(40),
    };
    for level in [Level::Basic, Level::Strong, Level::Expert] {
        assert_eq!(decide(level, &view, 5), Some(take), "{level}");
    }
    // Now in order (R4.1): seat 1 calls Racko off turn, at seat 0's turn (R4.2).
    let (after, _) = game.apply(1, &take).expect("a legal take");
    let view = after.view(Viewer::Seat { seat: 1 });
    assert_eq!(view.turn, Some(0));
    assert_eq!(decide(Level::Strong, &view, 5), Some(Action::CallRacko));
}

#[test]
fn r8_1_a_card_swap_takes_the_card_public_facts_show() {
    // Seat 1 starts and takes the face-up 32 into its slot 60 (public, R8.1). Seat 0 holds 5
    // in slot 40 after 27, and draws a card swap (R3.4): the known 32 orders its rack.
    let counts = DeckCounts::default_for(2).expect("a 2-player deck");
    let nearly = [2, 6, 10, 14, 18, 22, 27, 5, 35, 39, 43, 47];
    let other = [1, 3, 4, 7, 8, 9, 11, 12, 13, 15, 16, 17];
    let stacked =
        StackedDeck::from_racks(&counts, &[nearly, other], 1, &[number(32), Card::CardSwap]);
    let (mut game, _) = Game::new(Options::default())
        .and_then(|g| {
            g.start_round(&RoundDeal {
                seed: Seed([5; 32]),
                stacked: Some(stacked),
            })
        })
        .expect("a dealt round");
    let slot = racko_rules::Slot;
    for (seat, action) in [
        (1, Action::TakeDiscard { slot: slot(60) }),
        (0, Action::Draw),
    ] {
        game.apply_mut(seat, &action).expect("a legal action");
    }
    let view = game.view(Viewer::Seat { seat: 0 });
    assert_eq!(view.drawn, Some(Card::CardSwap));
    assert_eq!(view.known.len(), 1, "seat 0 knows the 32: {:?}", view.known);
    let swap = Action::SwapCard {
        with: 1,
        their_slot: slot(60),
        my_slot: slot(40),
    };
    for level in [Level::Strong, Level::Expert] {
        assert_eq!(decide(level, &view, 3), Some(swap), "{level}");
    }
    let (after, _) = game.apply(0, &swap).expect("a legal swap");
    assert!(after.legal_actions(0).contains(&Action::CallRacko));
}

/// The sparring partners, each against the expert: legal actions only, every game ends.
#[test]
fn sparring_partners_play_only_legal_actions_in_every_variant() {
    for (name, options) in variants() {
        for partner in racko_bots::sparring::Sparring::ALL {
            for game in 0..4u64 {
                let record = play_game(&options, game, 200_000, |seat, view, seed| {
                    let action = if usize::from(seat) == game as usize % 2 {
                        racko_bots::sparring::decide(partner, view)
                    } else {
                        decide(Level::Expert, view, seed)
                    };
                    if let Some(a) = action {
                        assert!(
                            view.legal_actions.contains(&a),
                            "{name}: {partner} chose {a:?}"
                        );
                    } else {
                        assert!(
                            !view.awaiting.contains(&seat),
                            "{name}: no action when awaited"
                        );
                    }
                    action
                })
                .unwrap_or_else(|e| panic!("{name}, {partner}, game {game}: {e}"));
                assert!(record.finished(), "{name}, {partner}, game {game}: cut off");
            }
        }
    }
}
