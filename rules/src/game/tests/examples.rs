//! The worked examples E5..E8 of RULES.md.

use super::*;
use crate::event::RoundEnd;

#[test]
fn e5_start_card_skip_uses_up_start_players_turn() {
    let (game, events) = dealt(options(3), &unordered_racks(3), &[Card::Skip]);
    let kinds: Vec<&str> = events.iter().map(Event::kind).collect();
    assert_eq!(
        kinds,
        [
            "round_started",
            "dealt",
            "start_card",
            "turn_started",
            "skipped",
            "turn_started"
        ]
    );
    assert_eq!(events[4], Event::Skipped { seat: 1 });
    assert_eq!(
        *game.phase(),
        Phase::Turn {
            seat: 2,
            stage: TurnStage::Begin
        }
    );
    // The skip stays on the discard pile and can never be taken (R2.4, R3.5).
    assert_eq!(game.discard_pile(), [Card::Skip]);
    assert!(!game
        .legal_actions(2)
        .iter()
        .any(|a| matches!(a, Action::TakeDiscard { .. })));
}

#[test]
fn e6_card_swap_exchanges_two_number_cards() {
    // 2 players, seat 0 deals: A is seat 1 (on turn first), B is seat 0.
    let mut b = [1, 2, 4, 5, 6, 3, 7, 8, 9, 10, 11, 12];
    b[5] = 3; // B's slot 30
    let a = [40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 13];
    let (mut game, _) = dealt(options(2), &[b, a], &[number(30), Card::CardSwap]);
    let events = play(&mut game, 1, Action::Draw);
    assert_eq!(
        events,
        [Event::Drew {
            seat: 1,
            card: Some(Card::CardSwap)
        }]
    );
    let swap = Action::SwapCard {
        with: 0,
        their_slot: slot(30),
        my_slot: slot(5),
    };
    let events = play(&mut game, 1, swap);
    assert_eq!(
        events[0],
        Event::CardsSwapped {
            seat: 1,
            with: 0,
            my_slot: slot(5),
            their_slot: slot(30),
            given: Some(number(40)),
            taken: Some(number(3)),
        }
    );
    assert_eq!(game.racks[1].0[0], number(3));
    assert_eq!(game.racks[0].0[5], number(40));
    assert_eq!(game.discard_pile().last(), Some(&Card::CardSwap));
    assert_eq!(events[1], Event::TurnStarted { seat: 0 });
}

#[test]
fn e7_blitz_first_ordered_rack_from_start_player_wins() {
    // 3 players, seat 0 deals: start player 1, turn order 1, 2, 0.
    let options = blitz_options(3, BlitzMode::EveryRound);
    let racks = ordered_racks(3);
    let (mut game, events) = dealt(options, &racks, &[]);
    assert_eq!(events.last(), Some(&Event::BlitzDealStarted));
    assert_eq!(*game.phase(), Phase::BlitzDeal);
    // Seats 0 and 2 put each card into its slot of the ordered rack; seat 1 reverses its cards.
    let mut last = Vec::new();
    for _ in 0..12 {
        for seat in [0u8, 2, 1] {
            let Some(Card::Number { value }) = game.blitz_card(seat) else {
                panic!("seat {seat} has a card to place");
            };
            let rank = usize::from(value - 1) % 12;
            let index = if seat == 1 { 11 - rank } else { rank };
            last = play(
                &mut game,
                seat,
                Action::PlaceBlitzCard {
                    slot: Slot::from_index(index),
                },
            );
        }
    }
    let Some(Event::RoundEnded { end, scores, .. }) = last.get(1) else {
        panic!("the round ends at once: {last:?}");
    };
    assert_eq!(*end, RoundEnd::BlitzRacko { seat: 2 });
    // Seat 1's rack descends: its ordered prefix is one card.
    assert_eq!(*scores, vec![60, 5, 100]);
}

#[test]
fn e8_partner_team_totals() {
    let options = Options {
        players: 4,
        partner: true,
        ..Options::default()
    };
    // Seat 0 is in order (caller, 90); seats 1, 2, 3 have prefixes of 5, 8 and 2 cards.
    let racks = [
        [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
        [18, 19, 20, 21, 22, 13, 14, 15, 16, 17, 23, 70],
        [27, 28, 29, 30, 31, 32, 33, 34, 24, 25, 26, 71],
        [35, 72, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45],
    ];
    let (mut game, _) = dealt(options, &racks, &[number(50)]);
    let events = play(&mut game, 0, Action::CallRacko);
    let Some(Event::RoundEnded { scores, .. }) = events.get(1) else {
        panic!("Racko ends the round: {events:?}");
    };
    assert_eq!(*scores, vec![90, 25, 40, 10]);
    assert_eq!(game.team_totals(), Some(vec![130, 35]));
    assert_eq!(
        game.view(Viewer::Spectator).team_totals,
        Some(vec![130, 35])
    );
}
