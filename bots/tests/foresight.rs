//! The arena's planning cheat (`racko_bots::foresight`): it plays by the rules (R3.1, R3.2),
//! starts from the expert's choice, and plays each option out to the round's end (R5).

mod common;

use racko_bots::foresight::{self, Reach};
use racko_bots::table::play_game_seeing;
use racko_bots::{decide, decide_expert_with, expert, Level};
use racko_rules::{Action, Game, Options, Phase, Seat, TurnStage, View, Viewer};

/// A 2-player round some turns in, with the seat on turn at `stage`.
fn position(game_no: u64, stage: TurnStage) -> (Game, Seat) {
    common::position_where(game_no, |game, _, step| {
        step > 6 && matches!(game.phase(), Phase::Turn { stage: s, .. } if *s == stage)
    })
}

fn strong(_: Seat, view: &View) -> Option<Action> {
    decide(Level::Strong, view, 0)
}

#[test]
fn the_shortlist_starts_with_the_experts_choice_and_holds_only_legal_options() {
    for game_no in 1..8 {
        for stage in [TurnStage::Begin, TurnStage::Drawn] {
            let (game, seat) = position(game_no, stage);
            let view = game.view(Viewer::Seat { seat });
            let base = decide_expert_with(expert::TUNED, &view).expect("an action");
            for reach in [Reach::All, Reach::Placing] {
                let list = foresight::shortlist(expert::TUNED, reach, base, &view);
                assert_eq!(list[0], base);
                assert!(list.iter().all(|a| view.legal_actions.contains(a)));
                if stage == TurnStage::Drawn {
                    // R3.2: the drawn card may always be laid away.
                    assert!(list.contains(&Action::DiscardDrawn));
                }
            }
        }
    }
}

#[test]
fn an_option_is_played_out_to_the_end_of_the_round() {
    let (game, seat) = position(2, TurnStage::Begin);
    let quick = foresight::quick(expert::TUNED);
    let worth = foresight::play_out(&game, seat, Action::Draw, quick, Reach::All, &mut strong);
    // R5: the round's points of the seat less the other's lie between -90 and 90 (no Bonus).
    assert!(
        worth.is_some_and(|w| (-90.0..=90.0).contains(&w)),
        "{worth:?}"
    );
    let again = foresight::play_out(&game, seat, Action::Draw, quick, Reach::All, &mut strong);
    assert_eq!(worth, again);
    // Cut short after two turns, a round still open is valued by the race chance.
    let short = foresight::play_out(
        &game,
        seat,
        Action::Draw,
        quick,
        Reach::Turns(2),
        &mut strong,
    );
    assert!(
        short.is_some_and(|w| (-90.0..=90.0).contains(&w)),
        "{short:?}"
    );
}

#[test]
fn the_cheat_plays_whole_games_by_the_rules_and_wins_them() {
    for game_no in 1..3 {
        let record = play_game_seeing(
            &Options::default(),
            game_no,
            20_000,
            |game, seat, view, s| {
                if seat == 0 {
                    let mut others = strong;
                    foresight::decide(expert::TUNED, Reach::All, game, seat, view, &mut others)
                } else {
                    decide(Level::Strong, view, s)
                }
            },
        )
        .expect("legal play");
        assert_eq!(record.winners, vec![0], "game {game_no}");
    }
}
