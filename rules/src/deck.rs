//! A round's deck laid out: who receives which card of the deal (R2.2), and stacked decks,
//! checked ([`StackedDeck::validate`]) and built from the racks they are to deal
//! ([`StackedDeck::from_racks`]) for tests and the service's test mode.
//!
//! The deal order is written down here once: the game deals by it, the audit re-derives racks
//! by it, and the builders invert it.

use serde::{Deserialize, Serialize};

use crate::options::count_field;
use crate::{Card, DeckCounts, RulesError, Seat, Slot};

/// An explicit deal, for tests and the service's test mode: `deal` is the number cards in the
/// order they are dealt (R2.2: one at a time, clockwise from the start player, 12 each), `stock`
/// the rest of the deck from the top down (`stock[0]` is turned up as the start card, R2.3).
/// Together they must hold every card of the deck exactly once.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct StackedDeck {
    pub deal: Vec<u16>,
    pub stock: Vec<Card>,
}

/// R2.2: the card at `index` of the deal goes to seat `(start + index) mod players`, as that
/// seat's card number `index / players` (0 is its first card). Returns (seat, card number).
pub fn receiver(index: usize, players: u8, start: Seat) -> (Seat, usize) {
    let n = usize::from(players.max(1));
    let seat = (usize::from(start) + index % n) % n;
    (seat as Seat, index / n)
}

/// R2.2, the other way round: where in the deal `seat`'s card number `card` (0 first) is.
pub fn deal_index(seat: Seat, card: usize, players: u8, start: Seat) -> usize {
    let n = usize::from(players.max(1));
    let offset = (usize::from(seat) + n - usize::from(start) % n) % n;
    card * n + offset
}

/// R2.2: the slot index (0 is slot 5) that a seat's card number `card` goes into in a normal
/// deal: the first into slot 60, the twelfth into slot 5. None beyond the twelfth.
pub fn dealt_slot(card: usize) -> Option<usize> {
    (Slot::COUNT - 1).checked_sub(card)
}

impl StackedDeck {
    /// R2.2/R2.3: `deal` holds 12 number cards per player and, with `stock`, every card of the
    /// deck exactly once. Messages name no card value (the deck may be secret to someone).
    pub fn validate(&self, counts: &DeckCounts, players: u8) -> Result<(), RulesError> {
        let bad = |message: String| Err(RulesError::InvalidStackedDeck(message));
        let dealt = Slot::COUNT * usize::from(players);
        if self.deal.len() != dealt {
            return bad(format!(
                "the deal must hold {dealt} number cards, it holds {}",
                self.deal.len()
            ));
        }
        let mut seen = vec![false; usize::from(counts.max_number) + 1];
        let numbers = self
            .deal
            .iter()
            .copied()
            .chain(self.stock.iter().filter_map(Card::number));
        for value in numbers {
            match seen.get_mut(usize::from(value)) {
                Some(present) if value >= 1 && !*present => *present = true,
                Some(_) if value >= 1 => return bad("a number card appears twice".into()),
                _ => {
                    let max = counts.max_number;
                    return bad(format!("number cards must be 1..={max}"));
                }
            }
        }
        if seen.iter().skip(1).any(|present| !present) {
            return bad("a number card is missing".into());
        }
        for (kind, want) in counts.others() {
            let have = self.stock.iter().filter(|card| **card == kind).count();
            if have != usize::from(want) {
                let name = count_field(kind).replace('_', " ");
                return bad(format!("the deck holds {want} {name}, the stock {have}"));
            }
        }
        Ok(())
    }

    /// The racks a normal deal (R2.2) of this deck gives, by seat, slot 5 first, when `start`
    /// receives the first card. A slot stays None if the deal is too short to fill it.
    pub fn racks(&self, players: u8, start: Seat) -> Vec<[Option<u16>; 12]> {
        let mut racks = vec![[None; 12]; usize::from(players)];
        for (index, value) in self.deal.iter().enumerate() {
            let (seat, card) = receiver(index, players, start);
            let rack = racks.get_mut(usize::from(seat));
            if let (Some(rack), Some(slot)) = (rack, dealt_slot(card)) {
                rack[slot] = Some(*value);
            }
        }
        racks
    }

    /// The deal order (R2.2) that leaves `racks[s]` (slot 5 first) in seat s's rack after a
    /// normal deal in which `start` receives the first card.
    pub fn deal_order(racks: &[[u16; 12]], start: Seat) -> Vec<u16> {
        let players = racks.len() as u8;
        (0..Slot::COUNT * racks.len())
            .filter_map(|index| {
                let (seat, card) = receiver(index, players, start);
                Some(racks[usize::from(seat)][dealt_slot(card)?])
            })
            .collect()
    }

    /// A deck of `counts` that deals `deal` (in deal order), whose stock begins with
    /// `stock_top` (the first is the start card) and holds every other card of the deck below
    /// it, in the deck's order ([`DeckCounts::cards`]).
    ///
    /// Nothing is checked here, so that a test can build a broken deck on purpose: a card
    /// named twice or not in the deck stays as named. [`validate`](Self::validate) (and every
    /// deal from a stacked deck) checks the result.
    pub fn from_deal(counts: &DeckCounts, deal: Vec<u16>, stock_top: &[Card]) -> StackedDeck {
        let mut rest = counts.cards();
        let named = deal
            .iter()
            .map(|&value| Card::Number { value })
            .chain(stock_top.iter().copied());
        for card in named {
            if let Some(at) = rest.iter().position(|c| *c == card) {
                rest.remove(at);
            }
        }
        let mut stock = stock_top.to_vec();
        stock.extend(rest);
        StackedDeck { deal, stock }
    }

    /// A deck of `counts` that deals `racks[s]` (slot 5 first) to seat s when `start` receives
    /// the first card (R2.2), with `stock_top` on top of the stock; see
    /// [`from_deal`](Self::from_deal) for the rest of the stock.
    pub fn from_racks(
        counts: &DeckCounts,
        racks: &[[u16; 12]],
        start: Seat,
        stock_top: &[Card],
    ) -> StackedDeck {
        StackedDeck::from_deal(counts, StackedDeck::deal_order(racks, start), stock_top)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> DeckCounts {
        DeckCounts {
            max_number: 40,
            jokers: 1,
            card_swaps: 2,
            skips: 3,
            rack_swaps: 4,
        }
    }

    fn number(value: u16) -> Card {
        Card::Number { value }
    }

    #[test]
    fn r2_2_one_card_at_a_time_clockwise_from_the_start_player() {
        // 3 players, seat 2 starts: the deal goes 2, 0, 1, 2, 0, 1, ...
        let seats: Vec<Seat> = (0..7).map(|i| receiver(i, 3, 2).0).collect();
        assert_eq!(seats, [2, 0, 1, 2, 0, 1, 2]);
        let cards: Vec<usize> = (0..7).map(|i| receiver(i, 3, 2).1).collect();
        assert_eq!(cards, [0, 0, 0, 1, 1, 1, 2]);
        for index in 0..36 {
            let (seat, card) = receiver(index, 3, 2);
            assert_eq!(deal_index(seat, card, 3, 2), index);
        }
    }

    #[test]
    fn r2_2_first_card_into_slot_60_twelfth_into_slot_5() {
        assert_eq!(dealt_slot(0), Slot(60).index());
        assert_eq!(dealt_slot(1), Slot(55).index());
        assert_eq!(dealt_slot(11), Slot(5).index());
        assert_eq!(dealt_slot(12), None);
    }

    #[test]
    fn r2_2_deal_order_gives_back_the_racks() {
        let racks = [
            std::array::from_fn(|i| i as u16 + 1),
            std::array::from_fn(|i| 24 - i as u16),
            std::array::from_fn(|i| 2 * i as u16 + 25),
        ];
        for start in 0..3 {
            let deck = StackedDeck::from_racks(&small(), &racks, start, &[]);
            // The start player's first card is his slot 60, the next player's slot 60 follows.
            let next = usize::from((start + 1) % 3);
            assert_eq!(deck.deal[0], racks[usize::from(start)][11]);
            assert_eq!(deck.deal[1], racks[next][11]);
            assert_eq!(deck.deal[3], racks[usize::from(start)][10]);
            let dealt = deck.racks(3, start);
            for (seat, rack) in racks.iter().enumerate() {
                assert_eq!(dealt[seat], rack.map(Some), "start {start}, seat {seat}");
            }
        }
    }

    #[test]
    fn r2_3_built_deck_holds_every_card_once_with_the_named_stock_on_top() {
        let counts = small();
        let racks = [
            std::array::from_fn(|i| i as u16 + 1),
            std::array::from_fn(|i| i as u16 + 13),
        ];
        let top = [Card::Skip, number(30), Card::Joker];
        let deck = StackedDeck::from_racks(&counts, &racks, 1, &top);
        assert_eq!(deck.validate(&counts, 2), Ok(()));
        assert_eq!(deck.stock[..3], top);
        assert_eq!(deck.deal.len() + deck.stock.len(), counts.total());
        // Below the named cards: the rest in the deck's order.
        assert_eq!(deck.stock[3], number(25));
        assert_eq!(deck.stock.last(), Some(&Card::RackSwap));
    }

    #[test]
    fn r2_2_a_broken_deck_is_built_as_named_and_refused_by_validate() {
        let counts = small();
        let mut racks = [[0u16; 12]; 2];
        racks[0] = std::array::from_fn(|i| i as u16 + 1);
        racks[1] = std::array::from_fn(|i| i as u16 + 1);
        let deck = StackedDeck::from_racks(&counts, &racks, 0, &[]);
        let err = deck
            .validate(&counts, 2)
            .expect_err("number 1 is dealt twice");
        assert_eq!(err.code(), "invalid_stacked_deck");
        let too_many = StackedDeck::from_deal(&counts, deck.deal[..24].to_vec(), &[Card::Joker; 2]);
        assert!(too_many.validate(&counts, 2).is_err());
    }

    #[test]
    fn r1_4_validate_names_the_kind_whose_count_is_off() {
        let counts = small();
        let racks = [
            std::array::from_fn(|i| i as u16 + 1),
            std::array::from_fn(|i| i as u16 + 13),
        ];
        let good = StackedDeck::from_racks(&counts, &racks, 0, &[]);
        for (kind, name) in [
            (Card::Joker, "jokers"),
            (Card::CardSwap, "card swaps"),
            (Card::Skip, "skips"),
            (Card::RackSwap, "rack swaps"),
        ] {
            let mut deck = good.clone();
            let at = deck
                .stock
                .iter()
                .position(|c| *c == kind)
                .expect("in the deck");
            deck.stock.remove(at);
            let err = deck.validate(&counts, 2).expect_err("a card is missing");
            assert!(err.to_string().contains(name), "{kind:?}: {err}");
        }
    }
}
