//! Tests of the game's transitions, by rule. Stacked decks pin every card.

mod examples;
mod known;
mod outlast;
mod playout;
mod rounds;
mod turns;
mod views;

use super::*;
use crate::{BlitzMode, Card, Options, RoundDeal, Seat, Seed, Slot, StackedDeck};

pub(super) fn number(value: u16) -> Card {
    Card::Number { value }
}

pub(super) fn options(players: u8) -> Options {
    Options {
        players,
        ..Options::default()
    }
}

pub(super) fn seed(byte: u8) -> Seed {
    Seed([byte; 32])
}

/// A stacked deck that deals `racks[s]` (slot 5 first) to seat s when `dealer` deals, with
/// `stock_top` on top of the stock (the first is the start card); the other cards follow.
pub(super) fn stacked(
    options: &Options,
    dealer: Seat,
    racks: &[[u16; 12]],
    stock_top: &[Card],
) -> StackedDeck {
    assert_eq!(racks.len(), usize::from(options.players));
    let start = (dealer + 1) % options.players;
    StackedDeck::from_racks(&options.deck_counts(), racks, start, stock_top)
}

/// A game of `options` with the first round dealt from a stacked deck.
pub(super) fn dealt(
    options: Options,
    racks: &[[u16; 12]],
    stock_top: &[Card],
) -> (Game, Vec<Event>) {
    let deck = stacked(&options, 0, racks, stock_top);
    let game = Game::new(options).expect("valid options");
    game.start_round(&RoundDeal {
        seed: seed(1),
        stacked: Some(deck),
    })
    .expect("the stacked deck is valid")
}

/// Applies an action that must be legal, checking the legal list agrees.
pub(super) fn play(game: &mut Game, seat: Seat, action: Action) -> Vec<Event> {
    assert!(
        game.legal_actions(seat).contains(&action),
        "{action:?} of seat {seat} should be legal in {:?}",
        game.phase()
    );
    game.apply_mut(seat, &action).expect("a legal action")
}

/// Ascending racks 1..12, 13..24, ... (in order), one per seat.
pub(super) fn ordered_racks(players: u8) -> Vec<[u16; 12]> {
    (0..u16::from(players))
        .map(|s| std::array::from_fn(|i| s * 12 + i as u16 + 1))
        .collect()
}

/// Racks of seat s: 12 cards, descending (slot 5 holds the highest): not in order.
pub(super) fn unordered_racks(players: u8) -> Vec<[u16; 12]> {
    (0..u16::from(players))
        .map(|s| std::array::from_fn(|i| s * 12 + 12 - i as u16))
        .collect()
}

pub(super) fn slot(label: u16) -> Slot {
    Slot(label)
}

pub(super) fn blitz_options(players: u8, blitz: BlitzMode) -> Options {
    Options {
        players,
        blitz,
        ..Options::default()
    }
}
