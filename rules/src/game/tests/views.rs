//! R8: who sees what, in views and in events.

use super::*;
use crate::event::RoundEnd;

fn me(seat: Seat) -> Viewer {
    Viewer::Seat { seat }
}

#[test]
fn r8_1_view_shows_own_rack_only() {
    let (mut game, _) = dealt(options(3), &unordered_racks(3), &[number(50), number(60)]);
    play(&mut game, 1, Action::Draw);
    let mine = game.view(me(1));
    let rack = mine.rack.expect("a player sees his rack");
    assert_eq!(rack[0].slot, slot(5));
    assert_eq!(rack[0].card, Some(number(24)));
    assert_eq!(mine.drawn, Some(number(60)));
    assert!(mine.racks.is_none());
    assert_eq!(mine.legal_actions.len(), 13);
    assert_eq!(mine.turn, Some(1));
    assert_eq!(mine.stock_size, 77 - 36 - 2);
    assert_eq!(mine.discard, [number(50)]);
    assert!(mine.seed_commitment.is_some());

    let other = game.view(me(0));
    assert_eq!(other.rack.map(|r| r[0].card), Some(Some(number(12))));
    assert_eq!(other.drawn, None, "only the drawer sees a drawn number");
    assert!(other.legal_actions.is_empty());

    let spectator = game.view(Viewer::Spectator);
    assert!(spectator.rack.is_none() && spectator.racks.is_none());
    assert_eq!(spectator.drawn, None);
    let everyone = game.view(Viewer::Everyone);
    assert_eq!(everyone.racks.map(|r| r.len()), Some(3));
    assert_eq!(everyone.drawn, Some(number(60)));
}

#[test]
fn r8_1_drawn_event_card_is_public() {
    let (mut game, _) = dealt(
        options(2),
        &unordered_racks(2),
        &[number(30), Card::RackSwap],
    );
    play(&mut game, 1, Action::Draw);
    assert_eq!(game.view(Viewer::Spectator).drawn, Some(Card::RackSwap));
}

#[test]
fn r8_1_blitz_card_seen_by_its_seat_only() {
    let (game, _) = dealt(
        blitz_options(2, BlitzMode::EveryRound),
        &unordered_racks(2),
        &[],
    );
    assert_eq!(game.view(me(0)).blitz_card, Some(number(1)));
    assert_eq!(game.view(me(1)).blitz_card, Some(number(13)));
    assert_eq!(game.view(Viewer::Spectator).blitz_card, None);
    let rack = game.view(me(0)).rack.expect("own rack");
    assert!(
        rack.iter().all(|s| s.card.is_none()),
        "empty slots show empty"
    );
}

#[test]
fn r8_2_round_end_reveals_racks_and_seed() {
    let racks = [ordered_racks(2)[0], unordered_racks(2)[1]];
    let (mut game, started) = dealt(options(2), &racks, &[number(30)]);
    play(&mut game, 0, Action::CallRacko);
    let view = game.view(Viewer::Spectator);
    let last = view.last_round.expect("the ended round is shown");
    assert_eq!(last.racks[1].0[0], number(24));
    assert_eq!(last.seed, seed(1));
    assert_eq!(last.end, RoundEnd::Racko { seat: 0 });
    assert!(view.rack.is_none());
    assert_eq!(view.round_scores, [vec![90, 5]]);
    // The RoundStarted of a closed round shows its seed and deck.
    let shown = started[0].for_viewer(Viewer::Spectator, game.round_closed(1));
    assert_eq!(shown, started[0]);
}

#[test]
fn r8_events_blank_hidden_values() {
    let (mut game, started) = dealt(options(2), &unordered_racks(2), &[number(30), number(40)]);
    let hidden = started[0].for_viewer(me(0), false);
    let Event::RoundStarted {
        seed,
        stacked,
        seed_commitment,
        ..
    } = hidden
    else {
        panic!("first event is RoundStarted");
    };
    assert_eq!((seed, stacked), (None, None));
    assert_eq!(seed_commitment, crate::Seed([1; 32]).commitment());
    let Event::Dealt { racks } = started[1].for_viewer(me(0), false) else {
        panic!("then Dealt");
    };
    assert!(racks[0].is_some() && racks[1].is_none());

    let drew = play(&mut game, 1, Action::Draw);
    assert_eq!(
        drew[0].for_viewer(me(0), false),
        Event::Drew {
            seat: 1,
            card: None
        }
    );
    assert_eq!(drew[0].for_viewer(me(1), false), drew[0]);
    assert_eq!(drew[0].for_viewer(Viewer::Everyone, false), drew[0]);
    let placed = play(&mut game, 1, Action::PlaceDrawn { slot: slot(5) });
    let Event::DrawnPlaced { card, replaced, .. } = placed[0].for_viewer(Viewer::Spectator, false)
    else {
        panic!("DrawnPlaced");
    };
    assert_eq!((card, replaced), (None, number(24)));

    let swapped = Event::CardsSwapped {
        seat: 0,
        with: 1,
        my_slot: slot(5),
        their_slot: slot(10),
        given: Some(number(3)),
        taken: Some(number(4)),
    };
    assert_eq!(swapped.for_viewer(me(1), false), swapped);
    let Event::CardsSwapped { given, taken, .. } = swapped.for_viewer(me(2), false) else {
        panic!("CardsSwapped");
    };
    assert_eq!((given, taken), (None, None));
    let blitz = Event::BlitzCardPlaced {
        seat: 1,
        slot: slot(5),
        card: Some(number(9)),
    };
    assert_eq!(
        blitz.for_viewer(me(0), false),
        Event::BlitzCardPlaced {
            seat: 1,
            slot: slot(5),
            card: None
        }
    );
}

#[test]
fn r8_views_never_leak_during_random_games() {
    let mut dice = super::playout::Dice(3);
    for players in 2..=4 {
        let options = blitz_options(players, BlitzMode::DealersChoice);
        let (_, log) = super::playout::play_out(options.clone(), &mut dice, false);
        // Replay step by step, checking each seat's view and each event projection.
        let mut game = Game::new(options).expect("valid");
        let mut index = 0;
        while index < log.len() {
            // A reshuffle comes before the draw that needs it: find the input event.
            let input = (index..log.len())
                .find(|i| {
                    matches!(log[*i], Event::RoundStarted { .. }) || log[*i].action().is_some()
                })
                .expect("every step has an input event");
            let mut produced = match &log[input] {
                Event::RoundStarted {
                    seed: Some(seed),
                    stacked,
                    ..
                } => game.start_round_mut(&RoundDeal {
                    seed: *seed,
                    stacked: stacked.clone(),
                }),
                event => {
                    let (seat, action) = event.action().expect("an input event");
                    game.apply_mut(seat, &action)
                }
            }
            .expect("the log replays");
            index += produced.len();
            for seat in 0..players {
                assert_no_leak(&game, seat, &mut produced);
            }
        }
    }
}

/// A seat's view and events show its own cards only, while the round lasts.
fn assert_no_leak(game: &Game, seat: Seat, events: &mut [Event]) {
    let closed = game.round_closed(game.round());
    let view = game.view(me(seat));
    assert!(view.racks.is_none());
    if let Some(rack) = &view.rack {
        let own = game.rack_cards(seat);
        for (i, shown) in rack.iter().enumerate() {
            assert!(shown.card.is_none() || shown.card == Some(own[i]));
        }
    }
    if view.drawn.is_some_and(|c| c.is_playable()) {
        assert_eq!(view.turn, Some(seat));
    }
    for event in events.iter_mut() {
        let shown = event.for_viewer(me(seat), closed);
        if closed {
            continue;
        }
        match shown {
            Event::RoundStarted { seed, .. } => assert_eq!(seed, None),
            Event::Dealt { racks } => {
                let seen = racks.iter().enumerate().filter(|(_, r)| r.is_some());
                assert!(seen.map(|(s, _)| s).all(|s| s == usize::from(seat)));
            }
            Event::Drew { seat: s, card } if s != seat => {
                assert!(card.is_none_or(|c| c.is_event()));
            }
            Event::DrawnPlaced { seat: s, card, .. } if s != seat => assert_eq!(card, None),
            Event::BlitzCardPlaced { seat: s, card, .. } if s != seat => assert_eq!(card, None),
            Event::CardsSwapped {
                seat: s,
                with,
                given,
                ..
            } if s != seat && with != seat => assert_eq!(given, None),
            _ => {}
        }
    }
}
