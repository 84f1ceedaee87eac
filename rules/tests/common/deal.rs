//! Building stacked decks from racks, so that tests state what each seat holds rather than the
//! deal order (R2.2: one card at a time clockwise from the start player; a seat's first card goes
//! into slot 60, its twelfth into slot 5).

use racko_rules::{Card, DeckCounts, StackedDeck};

/// The dealer of round `round` (1-based) at a table of `players`: seat 0 deals round 1 and the
/// deal passes to the left (R2.1).
pub fn dealer(round: u32, players: u8) -> u8 {
    ((round - 1) % u32::from(players)) as u8
}

pub fn start_seat(round: u32, players: u8) -> u8 {
    (dealer(round, players) + 1) % players
}

/// The deal order that gives seat `s` the cards `hands[s]` in the order it receives them.
pub fn deal_from_hands(hands: &[Vec<u16>], start: u8) -> Vec<u16> {
    let players = hands.len();
    let mut deal = Vec::with_capacity(players * 12);
    let order: Vec<&Vec<u16>> = (0..players)
        .map(|p| &hands[(usize::from(start) + p) % players])
        .collect();
    for card in 0..12 {
        deal.extend(order.iter().map(|hand| hand[card]));
    }
    deal
}

/// The deal order that leaves `racks[s]` (slot 5 first) in seat s's rack after a normal deal.
pub fn deal_from_racks(racks: &[Vec<u16>], start: u8) -> Vec<u16> {
    let hands: Vec<Vec<u16>> = racks
        .iter()
        .map(|rack| rack.iter().rev().copied().collect())
        .collect();
    deal_from_hands(&hands, start)
}

/// Every card of a deck: numbers ascending, then jokers, card swaps, skips, rack swaps.
pub fn full_deck(deck: &DeckCounts) -> Vec<Card> {
    let mut cards: Vec<Card> = (1..=deck.max_number)
        .map(|value| Card::Number { value })
        .collect();
    let kinds = [
        (deck.jokers, Card::Joker),
        (deck.card_swaps, Card::CardSwap),
        (deck.skips, Card::Skip),
        (deck.rack_swaps, Card::RackSwap),
    ];
    for (count, card) in kinds {
        cards.extend(std::iter::repeat_n(card, usize::from(count)));
    }
    cards
}

/// A stacked deck: `deal`, then `stock_top` from the top down, then (if `fill`) every remaining
/// card of the deck in `full_deck` order at the bottom.
pub fn stacked(deck: &DeckCounts, deal: Vec<u16>, stock_top: Vec<Card>, fill: bool) -> StackedDeck {
    let mut stock = stock_top;
    if fill {
        let mut rest = full_deck(deck);
        for used in deal
            .iter()
            .map(|&value| Card::Number { value })
            .chain(stock.iter().copied())
        {
            if let Some(i) = rest.iter().position(|c| *c == used) {
                rest.remove(i);
            }
        }
        stock.extend(rest);
    }
    StackedDeck { deal, stock }
}
