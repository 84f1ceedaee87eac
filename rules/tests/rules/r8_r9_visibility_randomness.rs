//! R8 (who sees what) and R9 (randomness). The property test checks R8 on every step of many
//! games; these pin the single facts.

use racko_rules::shuffle::shuffled_deck;
use racko_rules::{Action, Card, Event, Game, Options, RoundDeal, Seed, Viewer};
use sha2::{Digest, Sha256};

use super::common::leaks::unknown_values;
use super::common::{seed, Checks, Table};
use super::{dealt, two_players, ORDERED, UNORDERED};

#[test]
fn r8_1_a_player_sees_his_rack_his_drawn_card_and_the_public_facts() {
    let mut table = dealt(two_players(), &[ORDERED, UNORDERED], "23 26 SK");
    let events = table.play(1, Action::Draw);
    let drew = &events[0];
    assert_eq!(drew.for_viewer(Viewer::Seat { seat: 1 }, false), *drew);
    let hidden = Event::Drew {
        seat: 1,
        card: None,
    };
    assert_eq!(drew.for_viewer(Viewer::Seat { seat: 0 }, false), hidden);
    assert_eq!(drew.for_viewer(Viewer::Spectator, false), hidden);
    let mine = table.game.view(Viewer::Seat { seat: 1 });
    assert_eq!(mine.drawn, Some(Card::Number { value: 26 }));
    assert_eq!(mine.rack.as_ref().map(Vec::len), Some(12));
    assert_eq!(mine.racks, None, "no other rack");
    let theirs = table.game.view(Viewer::Seat { seat: 0 });
    assert_eq!(theirs.drawn, None);
    assert_eq!(theirs.stock_size, mine.stock_size);
    assert_eq!(theirs.discard, vec![Card::Number { value: 23 }]);
    let spectator = table.game.view(Viewer::Spectator);
    assert_eq!(
        (spectator.rack, spectator.racks, spectator.drawn),
        (None, None, None)
    );
    // The placed value stays hidden; the replaced card is public.
    let events = table.play(
        1,
        Action::PlaceDrawn {
            slot: racko_rules::Slot(60),
        },
    );
    let public = events[0].for_viewer(Viewer::Seat { seat: 0 }, false);
    let want = Event::DrawnPlaced {
        seat: 1,
        slot: racko_rules::Slot(60),
        card: None,
        replaced: Card::Number { value: 21 },
    };
    assert_eq!(public, want);
    // A drawn event card is carried out in the open.
    let events = table.play(0, Action::Draw);
    assert_eq!(
        events[0].for_viewer(Viewer::Spectator, false),
        Event::Drew {
            seat: 0,
            card: Some(Card::Skip)
        }
    );
}

#[test]
fn r8_1_the_leak_check_would_see_another_seats_rack() {
    // The property test's R8 check is only as good as its detector: seat 0's knowledge does
    // not cover the full view, which shows seat 1's rack.
    let table = dealt(two_players(), &[ORDERED, UNORDERED], "23");
    let known = &table.tracker.known[0];
    let own = serde_json::to_value(table.game.view(Viewer::Seat { seat: 0 })).unwrap();
    assert_eq!(unknown_values(&own, known), Vec::<u16>::new());
    let all = serde_json::to_value(table.game.view(Viewer::Everyone)).unwrap();
    let leaked = unknown_values(&all, known);
    assert_eq!(leaked, vec![1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 25]);
}

#[test]
fn r8_2_a_rounds_racks_and_seed_are_shown_when_it_ends() {
    let mut table = dealt(two_players(), &[ORDERED, UNORDERED], "23");
    let started = table.events[0].clone();
    let Event::RoundStarted {
        seed_commitment, ..
    } = &started
    else {
        panic!("round_started")
    };
    let open = started.for_viewer(Viewer::Seat { seat: 0 }, false);
    assert!(matches!(
        open,
        Event::RoundStarted {
            seed: None,
            stacked: None,
            ..
        }
    ));
    let dealt = table.events.iter().find(|e| e.kind() == "dealt").unwrap();
    let Event::Dealt { racks } = dealt.for_viewer(Viewer::Seat { seat: 0 }, false) else {
        panic!()
    };
    assert!(
        racks[0].is_some() && racks[1].is_none(),
        "a seat sees its own rack only"
    );
    table.play(0, Action::CallRacko);
    assert!(table.game.round_closed(1));
    let closed = started.for_viewer(Viewer::Seat { seat: 0 }, true);
    let Event::RoundStarted {
        seed: Some(shown),
        stacked: Some(_),
        ..
    } = closed
    else {
        panic!("shown")
    };
    assert_eq!(shown, seed(1));
    assert_eq!(&shown.commitment(), seed_commitment);
    let view = table.game.view(Viewer::Spectator);
    let last = view.last_round.expect("the last round is public");
    assert_eq!(last.seed, seed(1));
    assert_eq!(last.racks.len(), 2);
    assert_eq!(last.scores, vec![90, 5]);
}

#[test]
fn r9_1_shuffles_are_a_deterministic_function_of_the_seed() {
    let options = Options {
        players: 4,
        ..Options::default()
    };
    let counts = options.deck_counts();
    let a = shuffled_deck(&counts, 4, &seed(9));
    assert_eq!(a, shuffled_deck(&counts, 4, &seed(9)));
    assert_ne!(a, shuffled_deck(&counts, 4, &seed(10)));
    // The engine deals exactly that order.
    let mut one = Game::new(options.clone()).unwrap();
    let mut two = Game::new(options).unwrap();
    let deal = RoundDeal {
        seed: seed(9),
        stacked: None,
    };
    assert_eq!(
        one.start_round_mut(&deal).unwrap(),
        two.start_round_mut(&deal).unwrap()
    );
    assert_eq!(one, two);
    let stacked = RoundDeal {
        seed: seed(9),
        stacked: Some(a),
    };
    let mut three = Game::new(Options {
        players: 4,
        ..Options::default()
    })
    .unwrap();
    three.start_round_mut(&stacked).unwrap();
    assert_eq!(one.rack(0), three.rack(0));
    assert_eq!(one.discard_pile(), three.discard_pile());
}

#[test]
fn r9_2_the_seed_is_committed_and_the_log_replays() {
    let byte_seed = Seed([0xab; 32]);
    let digest = Sha256::digest(byte_seed.0);
    assert_eq!(byte_seed.commitment(), hex::encode(digest));
    let mut table = Table::new(two_players(), Checks::Full);
    table
        .start_round(&RoundDeal {
            seed: byte_seed,
            stacked: None,
        })
        .unwrap();
    let Event::RoundStarted {
        seed_commitment, ..
    } = &table.events[0]
    else {
        panic!()
    };
    assert_eq!(seed_commitment, &hex::encode(digest));
    table.check_replay();
    // A log with a changed event does not replay.
    let mut events = table.events.clone();
    if let Some(Event::Dealt { racks }) = events.iter_mut().find(|e| e.kind() == "dealt") {
        racks.swap(0, 1);
    }
    assert!(racko_rules::replay::replay(&two_players(), &events).is_err());
}
