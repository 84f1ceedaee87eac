//! The arena's cheating player (`racko_bots::oracle`): it sees what its `Peek` shows and acts
//! on it as documented, and without a cheat's chance it plays as the expert.

mod common;

use racko_bots::oracle::{self, Cheat, Peek};
use racko_bots::{decide_expert_with, expert};
use racko_rules::{Action, Card, Game, Phase, Seat, TurnStage, Viewer};

/// A 2-player game at the start of a turn where the seat on turn may take or draw.
fn take_or_draw(game_no: u64) -> (Game, Seat) {
    common::position_where(game_no, |game, seat, step| {
        let legal = game.legal_actions(seat);
        let begin = matches!(
            game.phase(),
            Phase::Turn {
                stage: TurnStage::Begin,
                ..
            }
        );
        let take = legal
            .iter()
            .any(|a| matches!(a, Action::TakeDiscard { .. }));
        begin && take && legal.contains(&Action::Draw) && step > 4
    })
}

fn numbers(values: [u16; 12]) -> [Card; 12] {
    values.map(|value| Card::Number { value })
}

#[test]
fn the_peek_shows_the_next_card_and_every_rack() {
    let (game, seat) = take_or_draw(3);
    let peek = Peek::of(&game, seat);
    let (after, _) = game.apply(seat, &Action::Draw).expect("a draw");
    assert_eq!(peek.next, after.view(Viewer::Everyone).drawn);
    assert!(peek.next.is_some());
    for s in 0..2 {
        assert_eq!(peek.racks[usize::from(s)], game.rack(s).expect("a rack").0);
    }
}

#[test]
fn the_cheat_draws_a_rack_swap_only_when_the_other_rack_is_better() {
    for game_no in 1..6 {
        let (game, seat) = take_or_draw(game_no);
        let view = game.view(Viewer::Seat { seat });
        let mine = game.rack(seat).expect("a rack").0;
        let rack_with = |theirs: [Card; 12]| {
            let mut racks = vec![mine; 2];
            racks[usize::from(1 - seat)] = theirs;
            racks
        };
        let ordered = numbers([2, 6, 10, 14, 18, 22, 26, 30, 34, 38, 42, 46]);
        let reversed = numbers([50, 49, 48, 47, 46, 45, 44, 43, 42, 41, 40, 39]);
        for cheat in [Cheat::Next, Cheat::RackSwap] {
            let behind = Peek {
                next: Some(Card::RackSwap),
                racks: rack_with(ordered),
            };
            let ahead = Peek {
                next: Some(Card::RackSwap),
                racks: rack_with(reversed),
            };
            assert_eq!(
                oracle::decide(expert::TUNED, cheat, &view, &behind),
                Some(Action::Draw)
            );
            let took = oracle::decide(expert::TUNED, cheat, &view, &ahead);
            assert!(
                matches!(took, Some(Action::TakeDiscard { .. })),
                "game {game_no}: {took:?}"
            );
        }
    }
}

#[test]
fn without_a_card_to_see_the_cheat_plays_as_the_expert() {
    for game_no in 1..6 {
        let (game, seat) = take_or_draw(game_no);
        let view = game.view(Viewer::Seat { seat });
        let blind = Peek {
            next: None,
            racks: vec![game.rack(0).expect("a rack").0; 2],
        };
        for cheat in [Cheat::Next, Cheat::RackSwap] {
            assert_eq!(
                oracle::decide(expert::TUNED, cheat, &view, &blind),
                decide_expert_with(expert::TUNED, &view)
            );
        }
    }
}
