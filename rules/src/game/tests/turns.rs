//! R2.2..R4.2: the deal and the actions of a turn, one rule at a time.

use super::*;
use crate::event::RoundEnd;

fn two_player(stock_top: &[Card]) -> Game {
    dealt(options(2), &unordered_racks(2), stock_top).0
}

#[test]
fn r2_2_first_card_to_start_player_slot_60() {
    let options = options(3);
    let racks = unordered_racks(3);
    let deck = stacked(&options, 0, &racks, &[]);
    // Seat 1 starts: deal[0] goes to its slot 60, deal[1] to seat 2's, deal[3] to seat 1's 55.
    assert_eq!(deck.deal[0], racks[1][11]);
    assert_eq!(deck.deal[1], racks[2][11]);
    assert_eq!(deck.deal[2], racks[0][11]);
    assert_eq!(deck.deal[3], racks[1][10]);
    let (game, events) = dealt(options, &racks, &[]);
    for seat in 0..3u8 {
        let rack: [Card; 12] = racks[usize::from(seat)].map(number);
        assert_eq!(game.rack(seat).map(|r| r.0), Some(rack));
    }
    let Some(Event::Dealt { racks: shown }) = events.get(1) else {
        panic!("the deal follows the start of the round");
    };
    assert!(shown.iter().all(Option::is_some));
}

#[test]
fn r2_3_start_card_is_top_of_stock() {
    let game = two_player(&[number(30), number(31)]);
    assert_eq!(game.discard_pile(), [number(30)]);
    assert_eq!(game.stock.last(), Some(&number(31)));
    assert_eq!(game.stock_size(), 63 - 24 - 1);
}

#[test]
fn r3_1a_take_discard_replaces_slot_card() {
    let mut game = two_player(&[number(30)]);
    let events = play(&mut game, 1, Action::TakeDiscard { slot: slot(10) });
    assert_eq!(
        events,
        [
            Event::DiscardTaken {
                seat: 1,
                slot: slot(10),
                card: number(30),
                replaced: number(23),
            },
            Event::TurnStarted { seat: 0 },
        ]
    );
    assert_eq!(game.racks[1].0[1], number(30));
    assert_eq!(game.discard_pile(), [number(23)]);
}

#[test]
fn r3_2_drawn_card_placed_or_discarded() {
    let mut game = two_player(&[number(30), number(40), number(41)]);
    play(&mut game, 1, Action::Draw);
    assert_eq!(game.drawn, Some(number(40)));
    let events = play(&mut game, 1, Action::PlaceDrawn { slot: slot(60) });
    assert_eq!(
        events[0],
        Event::DrawnPlaced {
            seat: 1,
            slot: slot(60),
            card: Some(number(40)),
            replaced: number(13),
        }
    );
    assert_eq!(game.discard_pile(), [number(30), number(13)]);
    play(&mut game, 0, Action::Draw);
    let events = play(&mut game, 0, Action::DiscardDrawn);
    assert_eq!(
        events[0],
        Event::DrawnDiscarded {
            seat: 0,
            card: number(41)
        }
    );
    assert_eq!(game.discard_pile().last(), Some(&number(41)));
    assert_eq!(events[1], Event::TurnStarted { seat: 1 });
}

#[test]
fn r3_2_stage_errors() {
    let mut game = two_player(&[number(30), number(40)]);
    let err = |game: &Game, seat, action| game.clone().apply_mut(seat, &action).unwrap_err();
    assert_eq!(err(&game, 0, Action::Draw), RulesError::NotYourTurn);
    assert_eq!(err(&game, 1, Action::DiscardDrawn), RulesError::NoCardDrawn);
    let bad_slot = Action::TakeDiscard { slot: Slot(7) };
    assert_eq!(err(&game, 1, bad_slot), RulesError::SlotOutOfRange(7));
    assert_eq!(err(&game, 5, Action::Draw), RulesError::SeatOutOfRange(5));
    play(&mut game, 1, Action::Draw);
    assert_eq!(err(&game, 1, Action::Draw), RulesError::CardAlreadyDrawn);
    let take = Action::TakeDiscard { slot: slot(5) };
    assert_eq!(err(&game, 1, take), RulesError::CardAlreadyDrawn);
    let swap = Action::SwapRacks { with: 0 };
    assert_eq!(err(&game, 1, swap), RulesError::WrongPhase);
    let choose = Action::ChooseDeal { blitz: true };
    assert_eq!(err(&game, 1, choose), RulesError::WrongPhase);
}

#[test]
fn r3_4_drawn_skip_ends_turn() {
    let mut game = two_player(&[number(30), Card::Skip]);
    let events = play(&mut game, 1, Action::Draw);
    assert_eq!(
        events,
        [
            Event::Drew {
                seat: 1,
                card: Some(Card::Skip)
            },
            Event::Skipped { seat: 1 },
            Event::TurnStarted { seat: 0 },
        ]
    );
    assert_eq!(game.discard_pile(), [number(30), Card::Skip]);
    let err = game
        .clone()
        .apply_mut(0, &Action::TakeDiscard { slot: slot(5) });
    assert_eq!(err, Err(RulesError::DiscardNotTakeable));
}

#[test]
fn r3_4_rack_swap_exchanges_whole_racks() {
    let mut game = two_player(&[number(30), Card::RackSwap]);
    let before = game.racks.clone();
    play(&mut game, 1, Action::Draw);
    assert_eq!(game.legal_actions(1), [Action::SwapRacks { with: 0 }]);
    let err = game.clone().apply_mut(1, &Action::SwapRacks { with: 1 });
    assert_eq!(err, Err(RulesError::InvalidSwapTarget));
    let err = game.clone().apply_mut(1, &Action::Draw);
    assert_eq!(err, Err(RulesError::EventPending));
    let events = play(&mut game, 1, Action::SwapRacks { with: 0 });
    assert_eq!(events[0], Event::RacksSwapped { seat: 1, with: 0 });
    assert_eq!(game.racks[0], before[1]);
    assert_eq!(game.racks[1], before[0]);
    assert_eq!(game.discard_pile().last(), Some(&Card::RackSwap));
}

#[test]
fn r3_4_card_swap_naming_a_joker_is_void() {
    let mut game = two_player(&[Card::Joker, Card::CardSwap]);
    // Seat 1 takes the joker into slot 5, then seat 0 draws the card swap and names it.
    play(&mut game, 1, Action::TakeDiscard { slot: slot(5) });
    play(&mut game, 0, Action::Draw);
    let legal = game.legal_actions(0);
    assert_eq!(legal.len(), 12 * 12);
    let swap = Action::SwapCard {
        with: 1,
        their_slot: slot(5),
        my_slot: slot(60),
    };
    let events = play(&mut game, 0, swap);
    let void = Event::CardSwapVoid {
        seat: 0,
        with: Some(1),
        their_slot: Some(slot(5)),
        my_slot: Some(slot(60)),
    };
    assert_eq!(events[0], void);
    assert_eq!(void.action(), Some((0, swap)));
    assert_eq!(game.racks[1].0[0], Card::Joker);
    assert_eq!(game.discard_pile().last(), Some(&Card::CardSwap));
}

#[test]
fn r3_4_card_swap_own_slot_must_hold_a_number() {
    let mut game = two_player(&[number(30), Card::CardSwap]);
    game.racks[1].0[0] = Card::Joker;
    play(&mut game, 1, Action::Draw);
    assert_eq!(game.legal_actions(1).len(), 11 * 12);
    let swap = Action::SwapCard {
        with: 0,
        their_slot: slot(10),
        my_slot: slot(5),
    };
    let err = game.clone().apply_mut(1, &swap);
    assert_eq!(err, Err(RulesError::NotANumberCard));
    let to_self = Action::SwapCard {
        with: 1,
        their_slot: slot(10),
        my_slot: slot(10),
    };
    let err = game.clone().apply_mut(1, &to_self);
    assert_eq!(err, Err(RulesError::InvalidSwapTarget));
}

#[test]
fn r3_4_card_swap_without_own_number_is_void() {
    let mut game = two_player(&[number(30), Card::CardSwap]);
    game.racks[1] = Rack([Card::Joker; 12]);
    let events = play(&mut game, 1, Action::Draw);
    let void = Event::CardSwapVoid {
        seat: 1,
        with: None,
        their_slot: None,
        my_slot: None,
    };
    assert_eq!(events[1], void);
    assert_eq!(void.action(), None, "an automatic void is no input");
    assert_eq!(events[2], Event::TurnStarted { seat: 0 });
}

#[test]
fn r2_4_start_card_swap_is_start_players_first_turn() {
    let (mut game, events) = dealt(options(2), &unordered_racks(2), &[Card::CardSwap]);
    assert_eq!(events.last(), Some(&Event::TurnStarted { seat: 1 }));
    assert_eq!(
        *game.phase(),
        Phase::Turn {
            seat: 1,
            stage: TurnStage::CardSwap
        }
    );
    let swap = Action::SwapCard {
        with: 0,
        their_slot: slot(5),
        my_slot: slot(5),
    };
    play(&mut game, 1, swap);
    // The start card stays the only card of the discard pile.
    assert_eq!(game.discard_pile(), [Card::CardSwap]);
    assert_eq!(game.racks[1].0[0], number(12));
    assert_eq!(game.racks[0].0[0], number(24));
}

#[test]
fn r3_6_empty_stock_reshuffles_all_discards_but_top() {
    let mut game = two_player(&[number(30)]);
    game.stock = vec![number(40)];
    game.discard = vec![Card::Skip, number(41), number(42), number(30)];
    play(&mut game, 1, Action::Draw);
    play(&mut game, 1, Action::DiscardDrawn);
    assert!(game.stock.is_empty());
    assert_eq!(game.legal_actions(0).last(), Some(&Action::Draw));
    let events = play(&mut game, 0, Action::Draw);
    assert_eq!(events[0], Event::StockReshuffled { cards: 4 });
    assert!(matches!(events[1], Event::Drew { seat: 0, .. }));
    // The old top card stays at the bottom of the discard pile.
    assert_eq!(game.discard[0], number(40));
    assert_eq!(game.stock.len(), 3);
    // Stream 2 of the seed: the same order a verifier computes from the discards.
    let mut expected = vec![Card::Skip, number(41), number(42), number(30)];
    crate::shuffle::shuffle(&mut expected, &seed(1), 2);
    assert_eq!(
        events[1],
        Event::Drew {
            seat: 0,
            card: Some(expected[0])
        }
    );
    assert_eq!(game.shuffles, 3, "the next reshuffle takes stream 3");
}

#[test]
fn r3_6_nothing_to_draw_or_take_ends_round() {
    // Unreachable with an R1.4 deck (a number card is always outside the racks), so the
    // table is set by hand: the last card is a skip.
    let mut game = two_player(&[number(30)]);
    game.stock = vec![Card::Skip];
    game.discard.clear();
    let events = play(&mut game, 1, Action::Draw);
    let kinds: Vec<&str> = events.iter().map(Event::kind).collect();
    assert_eq!(kinds, ["drew", "skipped", "turn_started", "round_ended"]);
    let Some(Event::RoundEnded { end, scores, .. }) = events.last() else {
        panic!("the round ends");
    };
    assert_eq!(*end, RoundEnd::StockExhausted);
    assert_eq!(*scores, vec![5, 5]);
}

#[test]
fn r3_6_last_discard_number_must_be_taken() {
    let mut game = two_player(&[number(30)]);
    game.stock.clear();
    assert_eq!(
        game.legal_actions(1),
        Slot::all()
            .map(|slot| Action::TakeDiscard { slot })
            .collect::<Vec<_>>()
    );
    let err = game.clone().apply_mut(1, &Action::Draw);
    assert_eq!(err, Err(RulesError::StockEmpty));
}

#[test]
fn r4_2_racko_on_another_players_turn() {
    let racks = [ordered_racks(2)[0], unordered_racks(2)[1]];
    let (mut game, _) = dealt(options(2), &racks, &[number(30), number(40)]);
    play(&mut game, 1, Action::Draw);
    assert_eq!(game.legal_actions(0), [Action::CallRacko]);
    let err = game.clone().apply_mut(1, &Action::CallRacko);
    assert_eq!(err, Err(RulesError::RackNotInOrder));
    let events = play(&mut game, 0, Action::CallRacko);
    assert_eq!(events[0], Event::RackoCalled { seat: 0 });
    let Some(Event::RoundEnded { end, scores, .. }) = events.get(1) else {
        panic!("Racko ends the round");
    };
    assert_eq!(*end, RoundEnd::Racko { seat: 0 });
    assert_eq!(*scores, vec![90, 5]);
    assert!(game.needs_round());
    assert!(game.round_closed(1));
}

#[test]
fn refused_action_leaves_game_untouched() {
    let game = two_player(&[number(30)]);
    let mut copy = game.clone();
    assert!(copy.apply_mut(0, &Action::Draw).is_err());
    assert_eq!(copy, game);
    assert!(game.apply(1, &Action::CallRacko).is_err());
}
