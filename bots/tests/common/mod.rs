//! Positions for the tests of the arena's cheats.

use racko_bots::{decide, Level};
use racko_rules::{Game, Options, RoundDeal, Seat, Viewer};

/// A 2-player round of game `game_no`, played by `strong` seats up to the first position
/// where `stop` holds (given the game, the seat on turn and the step).
pub fn position_where(game_no: u64, stop: impl Fn(&Game, Seat, u64) -> bool) -> (Game, Seat) {
    let mut game = Game::new(Options::default()).expect("valid options");
    let deal = RoundDeal {
        seed: racko_bots::table::round_seed(game_no, 1),
        stacked: None,
    };
    game.start_round_mut(&deal).expect("a deal");
    for step in 0..200 {
        let seat = game.awaiting()[0];
        if stop(&game, seat, step) {
            return (game, seat);
        }
        let view = game.view(Viewer::Seat { seat });
        let action = decide(Level::Strong, &view, step).expect("an action");
        game.apply_mut(seat, &action).expect("a legal action");
    }
    panic!("no such position");
}
