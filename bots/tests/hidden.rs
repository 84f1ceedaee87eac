//! R8: a computer player decides from its seat's view alone. For a fixed bot seed, re-dealing
//! every card the seat cannot see (the other racks and the stock) leaves each decision as it
//! was, at every position of many whole games.

use racko_bots::learned::{self, Scope};
use racko_bots::sparring::{self, Sparring};
use racko_bots::{decide, decide_expert_with, expert, Level, Tuning};
use racko_rules::{BlitzMode, Game, Options, Phase, Seat, Viewer};
use serde_json::Value;

/// xorshift64*: the tests' own chance.
struct Dice(u64);

impl Dice {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n.max(1)
    }
}

/// `game` with the number cards and jokers of every other rack and of the stock dealt anew
/// among those places (event cards stay where they are in the stock: a rack never holds one).
fn redeal_hidden(game: &Game, seat: Seat, dice: &mut Dice) -> Game {
    let mut state: Value = serde_json::to_value(game).expect("a game serializes");
    let mut places: Vec<(usize, usize)> = Vec::new(); // (rack or usize::MAX for stock, index)
    let mut cards: Vec<Value> = Vec::new();
    let racks = state["racks"].as_array().expect("racks").len();
    for r in (0..racks).filter(|r| *r != usize::from(seat)) {
        for i in 0..12 {
            places.push((r, i));
            cards.push(state["racks"][r][i].clone());
        }
    }
    let stock = state["stock"].as_array().expect("a stock").clone();
    for (i, card) in stock.iter().enumerate() {
        // The stored state writes a card as one number (rules/src/game/stored.rs): a number
        // card's value, -1 for a joker, below that the event cards.
        let code = card.as_i64().expect("a stored card");
        if code >= -1 {
            places.push((usize::MAX, i));
            cards.push(card.clone());
        }
    }
    for i in (1..cards.len()).rev() {
        cards.swap(i, dice.below(i + 1));
    }
    for ((r, i), card) in places.into_iter().zip(cards) {
        if r == usize::MAX {
            state["stock"][i] = card;
        } else {
            state["racks"][r][i] = card;
        }
    }
    serde_json::from_value(state).expect("a re-dealt game reads back")
}

#[test]
fn r8_decisions_ignore_every_card_the_seat_cannot_see() {
    let variants = [
        Options::default(),
        Options {
            players: 3,
            bonus: true,
            ..Options::default()
        },
        Options {
            players: 4,
            partner: true,
            blitz: BlitzMode::DealersChoice,
            ..Options::default()
        },
    ];
    let mut dice = Dice(0x1234_5678_9abc_def1);
    let (mut positions, mut changed) = (0, 0);
    for options in variants {
        for game_no in 0..3u64 {
            let levels = [Level::Expert, Level::Basic, Level::Strong, Level::Random];
            replay_positions(&options, game_no, &levels, |state: &Game, seat| {
                if !matches!(state.phase(), Phase::Turn { .. }) {
                    return;
                }
                let twin = redeal_hidden(state, seat, &mut dice);
                let view = state.view(Viewer::Seat { seat });
                let twin_view = twin.view(Viewer::Seat { seat });
                assert_eq!(twin_view, view, "the seat sees the same in both games");
                if twin.view(Viewer::Everyone) != state.view(Viewer::Everyone) {
                    changed += 1;
                }
                for level in Level::ALL {
                    let seed = positions as u64;
                    assert_eq!(decide(level, &twin_view, seed), decide(level, &view, seed));
                }
                // The weights that read more of the view (the unseen rack swaps, the card
                // laid for the next seat) must not see more than it either.
                let tuned = Tuning {
                    rival_cost: 15.0,
                    feed_weight: 2.0,
                    bonus_weight: 0.05,
                    race: 1.0,
                    finish_guard: 20.0,
                    bonus_cap: 1.0,
                    bonus_behind: 2.0,
                    ..expert::TUNED
                };
                assert_eq!(
                    decide_expert_with(tuned, &twin_view),
                    decide_expert_with(tuned, &view)
                );
                // The ninth round's learned valuation (arena only) reads the view alone too.
                for scope in [Scope::All, Scope::Begin] {
                    assert_eq!(
                        learned::decide(&twin_view, scope, learned::WEIGHTS),
                        learned::decide(&view, scope, learned::WEIGHTS)
                    );
                }
                for partner in Sparring::ALL {
                    assert_eq!(
                        sparring::decide(partner, &twin_view),
                        sparring::decide(partner, &view)
                    );
                }
                positions += 1;
            });
        }
    }
    assert!(positions > 300, "only {positions} positions");
    assert!(
        changed * 10 > positions * 9,
        "hidden cards changed in {changed} of {positions}"
    );
}

/// Plays game `game_no` as the table does and calls `check(state, seat)` before each
/// decision of an awaited seat; returns the final game.
fn replay_positions(
    options: &Options,
    game_no: u64,
    levels: &[Level],
    mut check: impl FnMut(&Game, Seat),
) -> Game {
    let mut game = Game::new(options.clone()).expect("valid options");
    let mut step = 0u64;
    while !game.is_over() && step < 3_000 {
        if game.needs_round() {
            let deal = racko_rules::RoundDeal {
                seed: racko_bots::table::round_seed(game_no, game.round() + 1),
                stacked: None,
            };
            game.start_round_mut(&deal).expect("a deal");
            continue;
        }
        let seat = game.awaiting()[0];
        // Every third position: a re-deal costs a round trip through JSON.
        if step.is_multiple_of(3) {
            check(&game, seat);
        }
        let view = game.view(Viewer::Seat { seat });
        let action = decide(levels[usize::from(seat)], &view, step).expect("an action");
        game.apply_mut(seat, &action).expect("a legal action");
        step += 1;
    }
    game
}
