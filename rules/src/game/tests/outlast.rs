//! R10: timeouts, the simplest move and resigning.

use super::*;
use crate::event::ResignReason;
use crate::replay::{replay, Steps};

/// R10.2 as the service does it: the seat times out, then its simplest moves are applied as
/// long as it is played for. All the events, in order.
fn play_for(game: &mut Game, seat: Seat) -> Vec<Event> {
    let mut events = game
        .play_mut(&Input::TimeOut { seat })
        .expect("the seat is awaited");
    while game.played_for() == Some(seat) {
        let action = game
            .simplest_move(seat)
            .expect("a played-for seat has a move");
        events.extend(play(game, seat, action));
    }
    events
}

fn resigned(seat: Seat, reason: ResignReason) -> Event {
    Event::Resigned { seat, reason }
}

/// Seat 0 holds 1..12 in order, seat 1 (on turn first) a rack out of order.
fn racks_0_in_order() -> Vec<[u16; 12]> {
    let mut racks = unordered_racks(2);
    racks[0] = ordered_racks(2)[0];
    racks
}

#[test]
fn r10_2_time_out_only_for_an_awaited_seat() {
    let fresh = Game::new(options(2)).expect("valid");
    assert_eq!(
        fresh.play(&Input::TimeOut { seat: 0 }).map(|_| ()),
        Err(RulesError::NotAwaited)
    );
    let (game, _) = dealt(options(2), &unordered_racks(2), &[number(30)]);
    assert_eq!(game.awaiting(), [1]);
    assert_eq!(
        game.play(&Input::TimeOut { seat: 0 }).map(|_| ()),
        Err(RulesError::NotAwaited)
    );
    assert_eq!(
        game.play(&Input::TimeOut { seat: 2 }).map(|_| ()),
        Err(RulesError::SeatOutOfRange(2))
    );
    let (timed_out, events) = game
        .play(&Input::TimeOut { seat: 1 })
        .expect("seat 1 is on turn");
    assert_eq!(events, [Event::TurnTimedOut { seat: 1 }]);
    assert_eq!(timed_out.timeouts(1), 1);
    assert_eq!(timed_out.played_for(), Some(1));
    assert_eq!(
        (game.timeouts(1), game.played_for()),
        (0, None),
        "untouched"
    );
    // Once is enough: the seat is being played for now.
    let again = timed_out.play(&Input::TimeOut { seat: 1 }).map(|_| ());
    assert_eq!(again, Err(RulesError::NotAwaited));
    assert_eq!(RulesError::NotAwaited.code(), "not_awaited");
}

#[test]
fn r10_2_simplest_move_draws_and_discards_and_never_calls_racko() {
    let (mut game, _) = dealt(options(2), &ordered_racks(2), &[number(30), number(31)]);
    assert!(game.legal_actions(1).contains(&Action::CallRacko));
    game.play_mut(&Input::TimeOut { seat: 1 }).expect("awaited");
    assert_eq!(game.simplest_move(1), Some(Action::Draw));
    assert_eq!(game.simplest_move(0), None, "not awaited");
    play(&mut game, 1, Action::Draw);
    assert_eq!(game.played_for(), Some(1), "drawing does not end the turn");
    assert_eq!(game.simplest_move(1), Some(Action::DiscardDrawn));
    let events = play(&mut game, 1, Action::DiscardDrawn);
    assert_eq!(
        events,
        [
            Event::DrawnDiscarded {
                seat: 1,
                card: number(31)
            },
            Event::TurnStarted { seat: 0 },
        ]
    );
    assert_eq!((game.played_for(), game.timeouts(1)), (None, 1));
    assert!(!game.resigned(1));
}

#[test]
fn r10_2_an_event_card_takes_its_first_legal_choice() {
    for (card, first) in [
        (
            Card::CardSwap,
            Action::SwapCard {
                with: 0,
                their_slot: slot(5),
                my_slot: slot(5),
            },
        ),
        (Card::RackSwap, Action::SwapRacks { with: 0 }),
    ] {
        let (mut game, _) = dealt(options(2), &unordered_racks(2), &[number(30), card]);
        game.play_mut(&Input::TimeOut { seat: 1 }).expect("awaited");
        play(&mut game, 1, Action::Draw);
        assert_eq!(game.simplest_move(1), Some(game.legal_actions(1)[0]));
        assert_eq!(game.simplest_move(1), Some(first), "{card:?}");
        play(&mut game, 1, first);
        assert_eq!(game.played_for(), None, "{card:?}: the turn is over");
    }
    // A skip ends the turn by itself: drawing it is the whole move.
    let (mut game, _) = dealt(options(2), &unordered_racks(2), &[number(30), Card::Skip]);
    let events = play_for(&mut game, 1);
    let kinds: Vec<&str> = events.iter().map(Event::kind).collect();
    assert_eq!(kinds, ["turn_timed_out", "drew", "skipped", "turn_started"]);
}

#[test]
fn r10_2_r3_6_nothing_to_draw_takes_the_discard_into_slot_5() {
    let (mut game, _) = dealt(options(2), &unordered_racks(2), &[number(30)]);
    // R3.6: an empty stock and nothing under the top discard.
    game.stock.clear();
    assert!(!game.can_draw());
    let take = Action::TakeDiscard { slot: slot(5) };
    assert_eq!(game.simplest_move(1), Some(take));
    let events = play_for(&mut game, 1);
    assert!(events.contains(&Event::DiscardTaken {
        seat: 1,
        slot: slot(5),
        card: number(30),
        replaced: number(24),
    }));
}

#[test]
fn r10_2_the_dealer_deals_normally() {
    let options = blitz_options(3, BlitzMode::DealersChoice);
    let deck = stacked(&options, 0, &unordered_racks(3), &[number(50)]);
    let mut game = Game::new(options).expect("valid");
    game.start_round_mut(&RoundDeal {
        seed: seed(1),
        stacked: Some(deck),
    })
    .expect("deals");
    assert_eq!(
        game.simplest_move(0),
        Some(Action::ChooseDeal { blitz: false })
    );
    let events = play_for(&mut game, 0);
    assert_eq!(
        events[1],
        Event::DealChosen {
            dealer: 0,
            blitz: false
        }
    );
    assert!(matches!(events[2], Event::Dealt { .. }));
    assert_eq!(game.awaiting(), [1]);
    assert_eq!(game.timeouts(0), 1);
}

#[test]
fn r10_2_blitz_puts_every_remaining_card_into_the_lowest_empty_slot() {
    // Seat 1 (the start player) receives 24, 23, ..., 13; seat 0 receives 1, 2, ..., 12.
    let racks = [unordered_racks(2)[0], ordered_racks(2)[1]];
    let (mut game, _) = dealt(
        blitz_options(2, BlitzMode::EveryRound),
        &racks,
        &[number(30)],
    );
    // Seat 1 places its first card itself, into slot 30.
    play(&mut game, 1, Action::PlaceBlitzCard { slot: slot(30) });
    let events = play_for(&mut game, 1);
    let slots: Vec<Slot> = events
        .iter()
        .filter_map(|e| match e {
            Event::BlitzCardPlaced { slot, .. } => Some(*slot),
            _ => None,
        })
        .collect();
    let mut lowest: Vec<Slot> = Slot::all().collect();
    lowest.retain(|s| *s != slot(30));
    assert_eq!(slots, lowest, "one timeout places all 11 remaining cards");
    assert_eq!((game.played_for(), game.timeouts(1)), (None, 1));
    assert_eq!(game.awaiting(), [0], "seat 0 still places its own");
}

#[test]
fn r10_2_a_blitz_timeout_ends_with_the_rack_even_if_the_first_turn_follows() {
    let racks = [unordered_racks(2)[0], ordered_racks(2)[1]];
    let (mut game, _) = dealt(
        blitz_options(2, BlitzMode::EveryRound),
        &racks,
        &[number(30)],
    );
    for index in 0..12 {
        let place = Action::PlaceBlitzCard {
            slot: Slot::from_index(11 - index),
        };
        play(&mut game, 0, place);
    }
    let events = play_for(&mut game, 1);
    let kinds: Vec<&str> = events.iter().rev().take(3).map(Event::kind).collect();
    assert_eq!(kinds, ["turn_started", "start_card", "blitz_card_placed"]);
    // A new wait: the turn is the seat's own again, with its own deadline.
    assert_eq!(game.awaiting(), [1]);
    assert_eq!((game.played_for(), game.timeouts(1)), (None, 1));
    assert_eq!(
        game.play(&Input::TimeOut { seat: 1 })
            .map(|(g, _)| g.timeouts(1)),
        Ok(2)
    );
}

#[test]
fn r10_2_the_count_grows_on_timeouts_in_a_row_and_resets_on_an_own_action() {
    let (mut game, _) = dealt(options(2), &racks_0_in_order(), &[number(30)]);
    play_for(&mut game, 1);
    play(&mut game, 0, Action::Draw);
    play(&mut game, 0, Action::DiscardDrawn);
    play_for(&mut game, 1);
    assert_eq!(game.timeouts(1), 2, "seat 0's actions leave seat 1's count");
    assert_eq!(game.view(Viewer::Spectator).timeouts, [0, 2]);
    play_for(&mut game, 0);
    assert_eq!(game.timeouts(0), 1);
    // Seat 1 acts itself: its count starts again.
    play(&mut game, 1, Action::Draw);
    assert_eq!(game.timeouts(1), 0);
    play(&mut game, 1, Action::DiscardDrawn);
    play_for(&mut game, 0);
    assert_eq!(game.timeouts(0), 2);
    // An off-turn Racko call is an own action too (R4.2).
    assert_eq!(game.awaiting(), [1]);
    play(&mut game, 0, Action::CallRacko);
    assert_eq!(game.timeouts(0), 0);
    assert!(game.resigned_seats().is_empty());
}

#[test]
fn r10_2_the_nth_timed_out_turn_resigns_after_its_move() {
    let options = Options {
        timeouts_to_resign: 2,
        ..options(2)
    };
    let (mut game, _) = dealt(options, &unordered_racks(2), &[number(30)]);
    play_for(&mut game, 1);
    play(&mut game, 0, Action::Draw);
    play(&mut game, 0, Action::DiscardDrawn);
    let events = play_for(&mut game, 1);
    let n = events.len();
    assert_eq!(events[n - 3], Event::TurnStarted { seat: 0 });
    assert_eq!(events[n - 2], resigned(1, ResignReason::Timeouts));
    assert_eq!(
        events[n - 1],
        Event::GameEnded {
            winners: vec![0],
            totals: vec![0, 0]
        }
    );
    assert_eq!(*game.phase(), Phase::GameOver { winners: vec![0] });
    assert_eq!(game.resigned_seats(), [1]);
    assert_eq!(game.played_for(), None);
}

#[test]
fn r10_2_with_three_players_a_seat_resigned_for_timeouts_stays() {
    let options = Options {
        timeouts_to_resign: 1,
        ..options(3)
    };
    let (mut game, _) = dealt(options, &unordered_racks(3), &[number(50)]);
    let events = play_for(&mut game, 1);
    assert_eq!(events.last(), Some(&resigned(1, ResignReason::Timeouts)));
    assert_eq!(game.awaiting(), [2]);
    assert!(game.resigned(1));
    // A resigned seat is played at once, never timed out.
    play(&mut game, 2, Action::Draw);
    play(&mut game, 2, Action::DiscardDrawn);
    assert_eq!(game.play(&Input::TimeOut { seat: 0 }).map(|_| ()), Ok(()));
    play(&mut game, 0, Action::Draw);
    play(&mut game, 0, Action::DiscardDrawn);
    assert_eq!(
        game.play(&Input::TimeOut { seat: 1 }).map(|_| ()),
        Err(RulesError::AlreadyResigned)
    );
}

#[test]
fn r10_3_two_players_the_other_wins_and_the_round_is_not_scored() {
    let (game, _) = dealt(options(2), &ordered_racks(2), &[number(30)]);
    assert_eq!(
        game.play(&Input::Resign { seat: 2 }).map(|_| ()),
        Err(RulesError::SeatOutOfRange(2))
    );
    let (over, events) = game
        .play(&Input::Resign { seat: 1 })
        .expect("a player may resign at any time");
    assert_eq!(
        events,
        [
            resigned(1, ResignReason::Player),
            Event::GameEnded {
                winners: vec![0],
                totals: vec![0, 0]
            },
        ]
    );
    assert_eq!(*over.phase(), Phase::GameOver { winners: vec![0] });
    assert!(over.round_closed(1), "the record is public (R8.2)");
    let view = over.view(Viewer::Spectator);
    assert_eq!(view.winners, Some(vec![0]));
    assert_eq!(view.resigned, [1]);
    assert!(view.round_scores.is_empty());
    assert_eq!(
        over.play(&Input::Resign { seat: 0 }).map(|_| ()),
        Err(RulesError::GameOver)
    );
    assert_eq!(
        over.play(&Input::Resign { seat: 1 }).map(|_| ()),
        Err(RulesError::GameOver)
    );
    assert!(over.legal_actions(0).is_empty());
    // Before the first deal too.
    let fresh = Game::new(options(2)).expect("valid");
    let (over, _) = fresh
        .play(&Input::Resign { seat: 0 })
        .expect("resigning before the deal");
    assert_eq!(*over.phase(), Phase::GameOver { winners: vec![1] });
}

#[test]
fn r10_3_partner_the_other_team_wins() {
    let options = Options {
        players: 4,
        partner: true,
        ..Options::default()
    };
    let (game, _) = dealt(options, &unordered_racks(4), &[number(60)]);
    for (seat, winners) in [(0, vec![1, 3]), (1, vec![0, 2]), (3, vec![0, 2])] {
        let (over, events) = game.play(&Input::Resign { seat }).expect("resigns");
        assert_eq!(events[0], resigned(seat, ResignReason::Player));
        assert_eq!(*over.phase(), Phase::GameOver { winners });
    }
}

#[test]
fn r10_3_three_players_the_seat_stays_can_be_named_and_cannot_win() {
    let options = Options {
        target: 50,
        ..options(3)
    };
    let (game, _) = dealt(options, &ordered_racks(3), &[number(50), Card::CardSwap]);
    let (mut game, events) = game.play(&Input::Resign { seat: 2 }).expect("resigns");
    assert_eq!(events, [resigned(2, ResignReason::Player)]);
    assert_eq!(game.awaiting(), [1], "nothing else happens");
    assert_eq!(
        game.play(&Input::Resign { seat: 2 }).map(|_| ()),
        Err(RulesError::AlreadyResigned)
    );
    assert_eq!(RulesError::AlreadyResigned.code(), "already_resigned");
    // Seat 1 draws the card swap and names the resigned seat: 13 for 25, both slot 5.
    play(&mut game, 1, Action::Draw);
    let swap = Action::SwapCard {
        with: 2,
        their_slot: slot(5),
        my_slot: slot(5),
    };
    play(&mut game, 1, swap);
    assert_eq!(game.rack(2).map(|r| r.0[0]), Some(number(13)));
    // The resigned seat, played by the computer, calls Racko: 90, seat 0 60, seat 1 5. The
    // target is reached; the highest total of a seat that has not resigned wins.
    let events = play(&mut game, 2, Action::CallRacko);
    let Some(Event::RoundEnded { totals, .. }) = events.get(1) else {
        panic!("the round ends: {events:?}");
    };
    assert_eq!(*totals, [60, 5, 90]);
    assert_eq!(*game.phase(), Phase::GameOver { winners: vec![0] });
    assert_eq!(game.view(Viewer::Seat { seat: 2 }).winners, Some(vec![0]));
}

#[test]
fn r10_3_when_every_seat_resigns_nobody_wins() {
    let (mut game, _) = dealt(options(4), &unordered_racks(4), &[number(60)]);
    for seat in [1, 3, 0] {
        let events = game.play_mut(&Input::Resign { seat }).expect("resigns");
        assert_eq!(events.len(), 1);
        assert!(!game.is_over());
    }
    assert_eq!(game.view(Viewer::Spectator).resigned, [0, 1, 3]);
    let events = game.play_mut(&Input::Resign { seat: 2 }).expect("resigns");
    assert_eq!(
        events,
        [
            resigned(2, ResignReason::Player),
            Event::GameEnded {
                winners: vec![],
                totals: vec![0; 4]
            },
        ]
    );
    assert_eq!(*game.phase(), Phase::GameOver { winners: vec![] });
    assert_eq!(game.view(Viewer::Spectator).winners, Some(vec![]));
}

/// A seeded game where seat 0 runs out of time on every turn, seat 1 resigns at one point and
/// everyone else plays its first legal action; the log, and the game it leads to.
fn log_with_timeouts(options: &Options) -> (Vec<Event>, Game) {
    let mut game = Game::new(options.clone()).expect("valid options");
    let mut log = Vec::new();
    for step in 0..400u32 {
        if game.is_over() {
            break;
        }
        if game.needs_round() {
            let deal = RoundDeal {
                seed: seed(step as u8),
                stacked: None,
            };
            log.extend(game.start_round_mut(&deal).expect("deals"));
            continue;
        }
        if step == 7 && !game.resigned(1) {
            log.extend(game.play_mut(&Input::Resign { seat: 1 }).expect("resigns"));
            continue;
        }
        let seat = game.awaiting()[0];
        if seat == 0 && !game.resigned(0) {
            log.extend(play_for(&mut game, 0));
        } else {
            let actions = game.legal_actions(seat);
            let action = actions[step as usize % actions.len()];
            log.extend(play(&mut game, seat, action));
        }
    }
    (log, game)
}

#[test]
fn r10_replay_reproduces_timeouts_and_resignations() {
    for (players, blitz) in [(3, BlitzMode::Off), (4, BlitzMode::EveryRound)] {
        let options = Options {
            timeouts_to_resign: 2,
            target: 200,
            blitz,
            ..options(players)
        };
        let (log, game) = log_with_timeouts(&options);
        assert!(log.contains(&Event::TurnTimedOut { seat: 0 }));
        assert!(log.contains(&resigned(0, ResignReason::Timeouts)));
        assert!(log.contains(&resigned(1, ResignReason::Player)));
        let mut steps = Steps::new(&options, &log).expect("valid options");
        for step in &mut steps {
            step.expect("every step replays");
        }
        assert_eq!(steps.position(), log.len());
        assert_eq!(replay(&options, &log), Ok(game), "{players} players");
    }
}

#[test]
fn r10_replay_of_a_resignation_for_timeouts_that_ends_the_game() {
    let options = Options {
        timeouts_to_resign: 1,
        ..options(2)
    };
    let mut game = Game::new(options.clone()).expect("valid");
    let deal = RoundDeal {
        seed: seed(5),
        stacked: None,
    };
    let mut log = game.start_round_mut(&deal).expect("deals");
    let seat = game.awaiting()[0];
    log.extend(play_for(&mut game, seat));
    assert!(game.is_over());
    assert_eq!(log[log.len() - 2], resigned(seat, ResignReason::Timeouts));
    assert_eq!(replay(&options, &log), Ok(game));
    // The resignation for timeouts belongs to the step of the move made for the seat: a log
    // that stops before it is cut inside that step.
    let cut = &log[..log.len() - 2];
    let err = replay(&options, cut).expect_err("cut inside a step");
    assert!(err.message.contains("the log ends"), "{err}");
}

#[test]
fn r10_a_game_stored_before_r10_loads() {
    let (mut game, _) = dealt(options(3), &unordered_racks(3), &[number(50)]);
    let mut json = serde_json::to_value(&game).expect("serializes");
    let fields = json.as_object_mut().expect("an object");
    for field in ["resigned", "timeouts", "played_for"] {
        assert!(fields.remove(field).is_some(), "{field}");
    }
    let options = fields
        .get_mut("options")
        .and_then(|o| o.as_object_mut())
        .expect("options");
    options.remove("turn_time");
    options.remove("timeouts_to_resign");
    let old: Game = serde_json::from_value(json).expect("an old game loads");
    assert_eq!(old, game);
    assert_eq!((old.timeouts(1), old.played_for()), (0, None));
    assert!(old.resigned_seats().is_empty());
    // And the new state survives a round trip.
    game.play_mut(&Input::Resign { seat: 2 }).expect("resigns");
    game.play_mut(&Input::TimeOut { seat: 1 }).expect("awaited");
    let json = serde_json::to_string(&game).expect("serializes");
    let back: Game = serde_json::from_str(&json).expect("loads");
    assert_eq!(back, game);
    assert_eq!((back.timeouts(1), back.played_for()), (1, Some(1)));
}
