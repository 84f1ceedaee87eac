//! R3: a turn.

use racko_rules::shuffle::{shuffle, FIRST_RESHUFFLE_STREAM};
use racko_rules::{
    Action, Card, DeckCounts, Event, Options, Phase, RoundDeal, Seed, Slot, TurnStage,
};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::common::policy::Policy;
use super::common::tracker::Tracker;
use super::common::{seed, Checks, Table};
use super::{dealt, run_scenario, two_players, ORDERED, UNORDERED};

fn takes() -> Vec<Action> {
    Slot::all()
        .map(|slot| Action::TakeDiscard { slot })
        .collect()
}

#[test]
fn r3_1_take_the_discard_or_draw() {
    let table = dealt(two_players(), &[ORDERED, UNORDERED], "23");
    let mut want = takes();
    want.push(Action::Draw);
    assert_eq!(sorted(table.game.legal_actions(1)), sorted(want));
    run_scenario("take_discard");
    run_scenario("turn_stage_errors");
}

#[test]
fn r3_2_a_drawn_card_is_placed_or_discarded() {
    for drawn in ["26", "J"] {
        let mut table = dealt(two_players(), &[ORDERED, UNORDERED], &format!("23 {drawn}"));
        table.play(1, Action::Draw);
        let mut want: Vec<Action> = Slot::all()
            .map(|slot| Action::PlaceDrawn { slot })
            .collect();
        want.push(Action::DiscardDrawn);
        assert_eq!(
            sorted(table.game.legal_actions(1)),
            sorted(want),
            "drew {drawn}"
        );
    }
    run_scenario("draw_and_place");
    run_scenario("draw_and_discard");
}

fn sorted(mut actions: Vec<Action>) -> Vec<Action> {
    actions.sort_by_key(|a| format!("{a:?}"));
    actions
}

/// Plays random games and calls `check(tracker before, table after, seat, action)` at every
/// step within a round.
fn random_steps(games: u64, mut check: impl FnMut(&Tracker, &Table, u8, Action)) {
    let policy = Policy {
        deviation: 0.2,
        call_rate: 0.9,
    };
    for game in 0..games {
        let mut rng = StdRng::seed_from_u64(game);
        let deck = DeckCounts {
            max_number: 30,
            jokers: 3,
            card_swaps: 4,
            skips: 2,
            rack_swaps: 3,
        };
        let players = 2 + (game % 3) as u8;
        let deck = Some(DeckCounts {
            max_number: 12 * u16::from(players) + 6,
            ..deck
        });
        let options = Options {
            players,
            deck,
            target: 150,
            ..Options::default()
        };
        let mut table = Table::new(options, Checks::Light);
        for _ in 0..2_000 {
            if table.game.is_over() {
                break;
            }
            if table.game.needs_round() {
                table
                    .start_round(&RoundDeal {
                        seed: Seed(rng.random()),
                        stacked: None,
                    })
                    .unwrap();
                continue;
            }
            let (seat, action) = policy
                .choose(&table.game, &table.tracker, &mut rng)
                .unwrap();
            let before = table.tracker.clone();
            table.play(seat, action);
            check(&before, &table, seat, action);
        }
    }
}

#[test]
fn r3_3_a_card_never_moves_inside_the_rack() {
    random_steps(40, |before, after, seat, action| {
        let (old, new) = (&before.racks, &after.tracker.racks);
        // The slots the action may change, as (seat, slot index).
        let mut may: Vec<(usize, usize)> = Vec::new();
        let mine = usize::from(seat);
        match action {
            Action::TakeDiscard { slot }
            | Action::PlaceDrawn { slot }
            | Action::PlaceBlitzCard { slot } => {
                may.push((mine, slot.index().unwrap()));
            }
            Action::SwapCard {
                with,
                their_slot,
                my_slot,
            } => {
                may.push((mine, my_slot.index().unwrap()));
                may.push((usize::from(with), their_slot.index().unwrap()));
            }
            Action::SwapRacks { with } => {
                let with = usize::from(with);
                assert_eq!(new[mine], old[with], "R3.4: the whole rack, slot by slot");
                assert_eq!(new[with], old[mine], "R3.4: the whole rack, slot by slot");
                may.extend((0..12).flat_map(|i| [(mine, i), (with, i)]));
            }
            _ => {}
        }
        for (s, rack) in new.iter().enumerate() {
            for i in 0..12 {
                if !may.contains(&(s, i)) {
                    assert_eq!(
                        rack[i],
                        old[s][i],
                        "seat {s} slot {} changed by {action:?}",
                        (i + 1) * 5
                    );
                }
            }
        }
    });
}

#[test]
fn r3_4_event_card_choices_are_exactly_the_legal_actions() {
    random_steps(40, |_, after, _, _| {
        let t = &after.tracker;
        let Phase::Turn { seat, stage } = *after.game.phase() else {
            return;
        };
        let mut want: Vec<Action> = Vec::new();
        let others = (0..t.players as u8).filter(|w| *w != seat);
        match stage {
            TurnStage::CardSwap => {
                for with in others {
                    for their_slot in Slot::all() {
                        for my_slot in Slot::all() {
                            let mine = t.racks[usize::from(seat)][my_slot.index().unwrap()];
                            if mine.and_then(|c| c.number()).is_some() {
                                want.push(Action::SwapCard {
                                    with,
                                    their_slot,
                                    my_slot,
                                });
                            }
                        }
                    }
                }
            }
            TurnStage::RackSwap => want.extend(others.map(|with| Action::SwapRacks { with })),
            _ => return,
        }
        let mut legal = after.game.legal_actions(seat);
        legal.retain(|a| *a != Action::CallRacko);
        assert_eq!(sorted(legal), sorted(want), "R3.4 choices in {stage:?}");
    });
    for name in [
        "card_swap_drawn",
        "card_swap_void_on_joker",
        "card_swap_void_without_own_number_card",
        "skip_drawn",
        "rack_swap_drawn",
        "rack_swap_three_players",
        "card_swap_with_partner",
        "card_swap_errors",
    ] {
        run_scenario(name);
    }
}

#[test]
fn r3_5_event_cards_on_the_pile_are_never_taken() {
    random_steps(40, |_, after, _, _| {
        let Some(top) = after.tracker.top() else {
            return;
        };
        for seat in 0..after.players() {
            let takes = after
                .game
                .legal_actions(seat)
                .iter()
                .any(|a| matches!(a, Action::TakeDiscard { .. }));
            if takes {
                assert!(top.is_playable(), "R3.5: {top:?} on top can be taken");
            }
        }
        if let Phase::Turn {
            seat,
            stage: TurnStage::Begin,
        } = *after.game.phase()
        {
            let takes = after
                .game
                .legal_actions(seat)
                .iter()
                .any(|a| matches!(a, Action::TakeDiscard { .. }));
            assert_eq!(
                takes,
                top.is_playable(),
                "R3.5: jokers and numbers may be taken"
            );
        }
    });
    run_scenario("start_card_joker");
}

#[test]
fn r3_6_reshuffle_uses_the_next_stream_of_the_seed() {
    let deck = DeckCounts {
        max_number: 27,
        jokers: 0,
        card_swaps: 0,
        skips: 0,
        rack_swaps: 0,
    };
    let options = Options {
        players: 2,
        deck: Some(deck),
        ..Options::default()
    };
    let mut table = dealt(options, &[ORDERED, UNORDERED], "23 26 27");
    let mut streams = FIRST_RESHUFFLE_STREAM;
    for turn in 0..8u64 {
        let seat = if turn % 2 == 0 { 1 } else { 0 };
        let mut pile: Vec<Card> = table.tracker.discard.clone();
        pile.pop();
        let reshuffles = table.tracker.stock == 0;
        let events = table.play(seat, Action::Draw);
        let drew = events.iter().find_map(|e| match e {
            Event::Drew { card, .. } => *card,
            _ => None,
        });
        if reshuffles {
            // R3.6 + R9.1: all discards but the top, bottom first, shuffled with the next stream.
            shuffle(&mut pile, &seed(1), streams);
            streams += 1;
            assert_eq!(
                drew,
                Some(pile[0]),
                "the first card of the reshuffled stock is drawn"
            );
        }
        table.play(seat, Action::DiscardDrawn);
    }
    assert!(
        streams >= FIRST_RESHUFFLE_STREAM + 2,
        "two reshuffles or more happened"
    );
    run_scenario("reshuffle_empty_stock");
    run_scenario("stock_empty_must_take");
}
