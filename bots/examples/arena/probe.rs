//! `--probe N`: how well the expert's estimate of the other rack guesses it. Plays N 2-player
//! games of the first pairing (seated as the arena seats them) and prints, at every turn the
//! first player begins, one CSV line: the cards drawn so far in the round, the slots of the
//! other rack public facts show, that rack's real cost and its estimate by the expert's
//! measure, and the seat's own cost.

use racko_bots::oracle;
use racko_bots::table::play_game_seeing;
use racko_rules::{Game, Options, Seat, View};

use crate::players::Player;

pub fn run(games: usize, levels: [Player; 2]) {
    println!("game,draws,known,real,estimate,mine");
    for i in 0..games {
        let seats = crate::seating(2, false, i);
        let player = |game: &Game, seat: Seat, view: &View, seed: u64| {
            let k = seats[usize::from(seat)];
            if k == 0 {
                let other = game.rack(1 - seat.min(1)).map(|r| r.0);
                if let Some(p) = other.and_then(|rack| oracle::probe(view, &rack)) {
                    println!(
                        "{i},{},{},{:.2},{:.2},{:.2}",
                        p.draws, p.known, p.real, p.estimate, p.mine
                    );
                }
            }
            levels[k].decide(Some((game, seat)), view, seed)
        };
        if let Err(e) = play_game_seeing(&Options::default(), i as u64 + 1, 200_000, player) {
            panic!("game {i}: {e}");
        }
    }
}
