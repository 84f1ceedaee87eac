//! Who deals, and racks as the tests write them. Stacked decks are built by the rules crate
//! (`StackedDeck::from_racks`, `StackedDeck::from_deal`), so that tests state what each seat
//! holds rather than the deal order.

/// The dealer of round `round` (1-based) at a table of `players`: seat 0 deals round 1 and the
/// deal passes to the left (R2.1).
pub fn dealer(round: u32, players: u8) -> u8 {
    ((round - 1) % u32::from(players)) as u8
}

pub fn start_seat(round: u32, players: u8) -> u8 {
    (dealer(round, players) + 1) % players
}

/// Racks by seat, slot 5 first, of exactly 12 cards each.
pub fn racks(racks: &[Vec<u16>]) -> Vec<[u16; 12]> {
    racks
        .iter()
        .map(|rack| {
            rack.as_slice()
                .try_into()
                .unwrap_or_else(|_| panic!("a rack holds 12 cards, not {}", rack.len()))
        })
        .collect()
}

/// The racks a normal deal leaves when seat s receives `hands[s]` in this order (R2.2: the
/// first card into slot 60, the twelfth into slot 5).
pub fn racks_from_hands(hands: &[Vec<u16>]) -> Vec<[u16; 12]> {
    let reversed: Vec<Vec<u16>> = hands
        .iter()
        .map(|hand| hand.iter().rev().copied().collect())
        .collect();
    racks(&reversed)
}
