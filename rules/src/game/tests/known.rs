//! R8.1: what a seat knows of the other racks from the public facts of play, as its view
//! shows it (`View::known`).

use super::*;
use crate::KnownCard;

fn known(game: &Game, seat: Seat) -> Vec<(Seat, u16, u16)> {
    game.view(Viewer::Seat { seat })
        .known
        .iter()
        .map(|k: &KnownCard| match k.card {
            Card::Number { value } => (k.seat, k.slot.0, value),
            _ => (k.seat, k.slot.0, 0),
        })
        .collect()
}

#[test]
fn r8_1_public_facts_show_cards_of_other_racks() {
    // Seat 0 deals; seat 1 starts. Racks: seat 0 12..1, seat 1 24..13, seat 2 36..25.
    let stock_top = [number(50), number(60), Card::CardSwap, Card::RackSwap];
    let (mut game, _) = dealt(options(3), &unordered_racks(3), &stock_top);
    assert!(
        known(&game, 0).is_empty(),
        "nothing is known after the deal"
    );

    // Seat 1 takes the 50 into slot 5: everyone else knows where it is.
    play(&mut game, 1, Action::TakeDiscard { slot: slot(5) });
    assert_eq!(known(&game, 0), [(1, 5, 50)]);
    assert_eq!(known(&game, 2), [(1, 5, 50)]);
    assert!(
        known(&game, 1).is_empty(),
        "a seat knows nothing of its own rack here"
    );

    // Seat 2 draws the 60 into slot 5: nothing about it becomes known.
    play(&mut game, 2, Action::Draw);
    play(&mut game, 2, Action::PlaceDrawn { slot: slot(5) });
    assert_eq!(known(&game, 0), [(1, 5, 50)]);

    // Seat 0 draws a card swap and takes seat 1's slot 5 (the 50) for its slot 10 (the 11).
    play(&mut game, 0, Action::Draw);
    play(
        &mut game,
        0,
        Action::SwapCard {
            with: 1,
            their_slot: slot(5),
            my_slot: slot(10),
        },
    );
    assert_eq!(
        known(&game, 0),
        [(1, 5, 11)],
        "the drawer knows what it gave"
    );
    assert_eq!(
        known(&game, 1),
        [(0, 10, 50)],
        "the other knows what it gave"
    );
    assert_eq!(
        known(&game, 2),
        [(0, 10, 50)],
        "a third seat sees which slots changed places, so the 50 it knew moves with them"
    );

    // Seat 1 draws a rack swap and swaps with seat 2: each knows the rack it gave away.
    play(&mut game, 1, Action::Draw);
    play(&mut game, 1, Action::SwapRacks { with: 2 });
    let seat1_knows = known(&game, 1);
    assert_eq!(seat1_knows.len(), 13);
    assert!(seat1_knows.contains(&(0, 10, 50)));
    assert!(seat1_knows.contains(&(2, 5, 11)) && seat1_knows.contains(&(2, 60, 13)));
    let seat2_knows = known(&game, 2);
    assert_eq!(seat2_knows.len(), 13);
    assert!(seat2_knows.contains(&(1, 5, 60)) && seat2_knows.contains(&(1, 60, 25)));
    assert_eq!(
        known(&game, 0),
        [(2, 5, 11)],
        "seat 0's fact follows the rack"
    );

    // Seat 2 draws and places into slot 5 (now its own): seat 1's fact there is gone.
    play(&mut game, 2, Action::Draw);
    if matches!(
        game.phase(),
        Phase::Turn {
            stage: TurnStage::Drawn,
            ..
        }
    ) {
        play(&mut game, 2, Action::PlaceDrawn { slot: slot(5) });
        assert!(!known(&game, 1).iter().any(|(s, l, _)| *s == 2 && *l == 5));
        assert!(known(&game, 0).is_empty());
    }

    // A spectator and Everyone get no facts (Everyone sees every rack anyway).
    assert!(game.view(Viewer::Spectator).known.is_empty());
    assert!(game.view(Viewer::Everyone).known.is_empty());
    // The stored game keeps what each seat knows.
    let stored = serde_json::to_string(&game).expect("serializes");
    let back: Game = serde_json::from_str(&stored).expect("reads back");
    assert_eq!(
        back.view(Viewer::Seat { seat: 1 }),
        game.view(Viewer::Seat { seat: 1 })
    );
}
