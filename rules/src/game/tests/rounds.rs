//! R2.1, R6.1, R7.3: rounds, the end of the game and the Blitz deal.

use super::*;
use crate::event::RoundEnd;

fn deal_next(game: &mut Game, racks: &[[u16; 12]], stock_top: &[Card]) -> Vec<Event> {
    let dealer = ((game.round()) % u32::from(game.players())) as Seat;
    let deck = stacked(game.options(), dealer, racks, stock_top);
    let deal = RoundDeal {
        seed: seed(game.round() as u8),
        stacked: Some(deck),
    };
    game.start_round_mut(&deal).expect("the next round deals")
}

#[test]
fn r2_1_deal_passes_left() {
    let mut game = Game::new(options(3)).expect("valid");
    let racks = ordered_racks(3);
    for round in 1..=4u32 {
        let events = deal_next(&mut game, &racks, &[number(50)]);
        let dealer = ((round - 1) % 3) as Seat;
        let Event::RoundStarted {
            round: r,
            dealer: d,
            start_seat,
            ..
        } = &events[0]
        else {
            panic!("a round starts with RoundStarted");
        };
        assert_eq!((*r, *d, *start_seat), (round, dealer, (dealer + 1) % 3));
        assert!(!game.round_closed(round));
        assert!(game.round_closed(round - 1));
        assert_eq!(game.awaiting(), [(dealer + 1) % 3]);
        play(&mut game, dealer, Action::CallRacko);
    }
}

#[test]
fn start_round_only_between_rounds() {
    let (game, _) = dealt(options(2), &unordered_racks(2), &[]);
    let deal = RoundDeal {
        seed: seed(2),
        stacked: None,
    };
    assert_eq!(
        game.start_round(&deal).map(|_| ()),
        Err(RulesError::RoundInProgress)
    );
    let fresh = Game::new(options(2)).expect("valid");
    let err = fresh.apply(0, &Action::Draw).map(|_| ());
    assert_eq!(err, Err(RulesError::RoundNotStarted));
    let mut bad = stacked(&options(2), 0, &unordered_racks(2), &[]);
    bad.stock.pop();
    let mut copy = fresh.clone();
    let err = copy.start_round_mut(&RoundDeal {
        seed: seed(2),
        stacked: Some(bad),
    });
    assert_eq!(err.map_err(|e| e.code()), Err("invalid_stacked_deck"));
    assert_eq!(copy, fresh);
}

#[test]
fn r6_1_game_ends_at_target_and_ties_share() {
    let options = Options {
        players: 2,
        target: 150,
        ..Options::default()
    };
    let mut game = Game::new(options).expect("valid");
    let racks = ordered_racks(2);
    // Both racks are in order: seat 0 calls in round 1, seat 1 in round 2 (90 + 60 each).
    deal_next(&mut game, &racks, &[number(30)]);
    play(&mut game, 0, Action::CallRacko);
    assert_eq!(game.totals(), [90, 60]);
    deal_next(&mut game, &racks, &[number(30)]);
    let events = play(&mut game, 1, Action::CallRacko);
    assert_eq!(game.totals(), [150, 150]);
    assert_eq!(
        events.last(),
        Some(&Event::GameEnded {
            winners: vec![0, 1],
            totals: vec![150, 150]
        })
    );
    assert!(game.is_over());
    assert_eq!(
        game.start_round(&RoundDeal {
            seed: seed(3),
            stacked: None
        })
        .map(|_| ()),
        Err(RulesError::GameOver)
    );
    assert_eq!(
        game.apply(0, &Action::Draw).map(|_| ()),
        Err(RulesError::GameOver)
    );
    assert!(game.legal_actions(0).is_empty());
    assert!(game.awaiting().is_empty());
}

#[test]
fn r7_1_partners_win_together() {
    let options = Options {
        players: 4,
        partner: true,
        target: 100,
        ..Options::default()
    };
    let mut game = Game::new(options).expect("valid");
    deal_next(&mut game, &ordered_racks(4), &[number(60)]);
    let events = play(&mut game, 3, Action::CallRacko);
    // Seat 3 scores 90, every other rack is in order too: 60 each. Team 1+3: 150.
    assert_eq!(game.totals(), [60, 60, 60, 90]);
    assert_eq!(game.team_totals(), Some(vec![120, 150]));
    assert_eq!(
        *game.phase(),
        Phase::GameOver {
            winners: vec![1, 3]
        }
    );
    assert!(matches!(events.last(), Some(Event::GameEnded { .. })));
}

#[test]
fn r7_3_dealers_choice() {
    let mut game = Game::new(blitz_options(3, BlitzMode::DealersChoice)).expect("valid");
    let events = deal_next(&mut game, &unordered_racks(3), &[number(50)]);
    assert_eq!(events.len(), 1);
    assert_eq!(*game.phase(), Phase::ChoosingDeal { dealer: 0 });
    assert_eq!(game.awaiting(), [0]);
    assert!(game.legal_actions(1).is_empty());
    let choose = Action::ChooseDeal { blitz: false };
    assert_eq!(
        game.apply(1, &choose).map(|_| ()),
        Err(RulesError::NotDealer)
    );
    let events = play(&mut game, 0, choose);
    assert_eq!(
        events[0],
        Event::DealChosen {
            dealer: 0,
            blitz: false
        }
    );
    assert_eq!(events[1].kind(), "dealt");
    // The stacked deck was kept for the choice.
    assert_eq!(game.racks[1].0[0], number(24));
}

#[test]
fn r7_3_blitz_cards_go_to_chosen_empty_slots() {
    let (mut game, _) = dealt(
        blitz_options(2, BlitzMode::EveryRound),
        &unordered_racks(2),
        &[number(30)],
    );
    // Seat 1 (start) gets deal[0] first, seat 0 gets deal[1]: the slot-60 cards of R2.2.
    assert_eq!(game.blitz_card(1), Some(number(13)));
    assert_eq!(game.blitz_card(0), Some(number(1)));
    assert_eq!(game.awaiting(), [0, 1]);
    play(&mut game, 0, Action::PlaceBlitzCard { slot: slot(5) });
    assert_eq!(game.blitz_card(0), Some(number(2)));
    let again = Action::PlaceBlitzCard { slot: slot(5) };
    assert_eq!(
        game.apply(0, &again).map(|_| ()),
        Err(RulesError::SlotOccupied)
    );
    assert_eq!(game.legal_actions(0).len(), 11);
    assert!(!game.legal_actions(0).contains(&Action::CallRacko));
    // Seat 0 fills its rack in order of arrival (ascending); seat 1 reverses (descending).
    for index in 1..12 {
        play(
            &mut game,
            0,
            Action::PlaceBlitzCard {
                slot: Slot::from_index(index),
            },
        );
    }
    assert_eq!(game.awaiting(), [1]);
    assert!(game.legal_actions(0).is_empty());
    let mut last = Vec::new();
    for index in 0..12 {
        last = play(
            &mut game,
            1,
            Action::PlaceBlitzCard {
                slot: Slot::from_index(11 - index),
            },
        );
    }
    let Some(Event::RoundEnded { end, scores, .. }) = last.get(1) else {
        panic!("seat 0 has Blitz-Racko: {last:?}");
    };
    assert_eq!(*end, RoundEnd::BlitzRacko { seat: 0 });
    assert_eq!(*scores, vec![100, 5]);
}

#[test]
fn r7_3_no_blitz_racko_turns_up_start_card() {
    let (mut game, _) = dealt(
        blitz_options(2, BlitzMode::EveryRound),
        &unordered_racks(2),
        &[Card::RackSwap],
    );
    let mut last = Vec::new();
    for index in 0..12 {
        for seat in [0, 1] {
            last = play(
                &mut game,
                seat,
                Action::PlaceBlitzCard {
                    slot: Slot::from_index(11 - index),
                },
            );
        }
    }
    let kinds: Vec<&str> = last.iter().map(Event::kind).collect();
    assert_eq!(kinds, ["blitz_card_placed", "start_card", "turn_started"]);
    assert_eq!(
        *game.phase(),
        Phase::Turn {
            seat: 1,
            stage: TurnStage::RackSwap
        }
    );
}
