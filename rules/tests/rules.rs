//! One or more tests per rule of RULES.md (R1..R9) and per worked example (E1..E8), named after
//! it (`r3_6_...`, `e5_...`), through the public API only. The engine's unit tests cover many
//! rules from the inside; these pin the contract from the outside. Longer cases live in the
//! scenario files; a test here may run one by name.

mod common;
mod scenario;

#[path = "rules/examples.rs"]
mod examples;
#[path = "rules/r1_r2_table_and_deal.rs"]
mod r1_r2_table_and_deal;
#[path = "rules/r3_turn.rs"]
mod r3_turn;
#[path = "rules/r4_r6_order_scoring_end.rs"]
mod r4_r6_order_scoring_end;
#[path = "rules/r7_variants.rs"]
mod r7_variants;
#[path = "rules/r8_r9_visibility_randomness.rs"]
mod r8_r9_visibility_randomness;

use common::deal::start_seat;
use common::notation::cards;
use common::{seed, Checks, Table};
use racko_rules::{DeckCounts, Options, RoundDeal, StackedDeck};

/// The small 2-player deck of the scenarios: 1..=30, 2 jokers, 2 card swaps, 2 skips, 1 rack
/// swap.
pub fn small_deck() -> DeckCounts {
    DeckCounts {
        max_number: 30,
        jokers: 2,
        card_swaps: 2,
        skips: 2,
        rack_swaps: 1,
    }
}

pub fn two_players() -> Options {
    Options {
        players: 2,
        deck: Some(small_deck()),
        ..Options::default()
    }
}

/// Racks of the 2-player small deck: seat 0 in order, seat 1 not (prefix 1).
pub const ORDERED: &str = "2 4 6 8 10 12 14 16 18 20 22 24";
pub const UNORDERED: &str = "25 1 3 5 7 9 11 13 15 17 19 21";

/// Deals the next round of `table` from racks (slot 5 first, numbers) and the top of the stock
/// (the rest of the deck below it).
pub fn deal(table: &mut Table, racks: &[&str], stock_top: &str) {
    let round = table.game.round() + 1;
    let racks: Vec<[u16; 12]> = racks
        .iter()
        .map(|r| {
            let numbers: Vec<u16> = cards(r)
                .iter()
                .map(|c| c.number().expect("racks hold numbers"))
                .collect();
            numbers.try_into().expect("a rack holds 12 cards")
        })
        .collect();
    let start = start_seat(round, table.players());
    let deck = table.options().deck_counts();
    let deal = RoundDeal {
        seed: seed(round as u8),
        stacked: Some(StackedDeck::from_racks(
            &deck,
            &racks,
            start,
            &cards(stock_top),
        )),
    };
    table.start_round(&deal).expect("the deal is valid");
}

/// A table with round 1 dealt.
pub fn dealt(options: Options, racks: &[&str], stock_top: &str) -> Table {
    let mut table = Table::new(options, Checks::Full);
    deal(&mut table, racks, stock_top);
    table
}

/// Runs the scenario called `name` from rules/scenarios.
pub fn run_scenario(name: &str) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    for entry in std::fs::read_dir(dir).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap_or_default();
        let Ok(file) = serde_json::from_str::<scenario::format::File>(&text) else {
            continue;
        };
        let list = match file {
            scenario::format::File::One(s) => vec![*s],
            scenario::format::File::Many(list) => list,
        };
        if let Some(found) = list.iter().find(|s| s.name == name) {
            return scenario::run(found);
        }
    }
    panic!("no scenario {name}");
}
