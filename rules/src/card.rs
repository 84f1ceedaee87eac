//! Cards, slots, racks and seats (R1).

use serde::{Deserialize, Serialize};

/// A seat at the table, 0..players-1, clockwise (R1.1).
pub type Seat = u8;

/// A card (R1.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Card {
    Number {
        value: u16,
    },
    Joker,
    /// "Kartentausch"
    CardSwap,
    /// "Aussetzen"
    Skip,
    /// "Kartenhalter-Tausch"
    RackSwap,
}

impl Card {
    pub fn number(&self) -> Option<u16> {
        match self {
            Card::Number { value } => Some(*value),
            _ => None,
        }
    }
    /// Number cards and jokers may sit in a rack and be taken from the discard pile (R3.5).
    pub fn is_playable(&self) -> bool {
        matches!(self, Card::Number { .. } | Card::Joker)
    }
    pub fn is_event(&self) -> bool {
        !self.is_playable()
    }
}

/// A card as people name it: its number, or "joker", "card swap", "skip", "rack swap".
impl std::fmt::Display for Card {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Card::Number { value } => write!(f, "{value}"),
            Card::Joker => f.write_str("joker"),
            Card::CardSwap => f.write_str("card swap"),
            Card::Skip => f.write_str("skip"),
            Card::RackSwap => f.write_str("rack swap"),
        }
    }
}

/// A slot, named by its label 5, 10, ..., 60 (R1.2). Another label is refused with
/// `slot_out_of_range`.
// The label is kept as given so that a bad label is that rules error, not a parse error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(example = 25))]
#[serde(transparent)]
pub struct Slot(pub u16);

impl Slot {
    pub const COUNT: usize = 12;
    /// All slots from 5 to 60.
    pub fn all() -> impl Iterator<Item = Slot> {
        (1..=12u16).map(|i| Slot(i * 5))
    }
    /// The index 0..12 of a valid label (slot 5 is index 0), or None.
    pub fn index(self) -> Option<usize> {
        if self.0 >= 5 && self.0 <= 60 && self.0.is_multiple_of(5) {
            Some(usize::from(self.0 / 5 - 1))
        } else {
            None
        }
    }
    pub fn from_index(index: usize) -> Slot {
        Slot((index as u16 + 1) * 5)
    }
}

/// A full rack: `cards[0]` is slot 5, `cards[11]` slot 60.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(transparent)]
pub struct Rack(pub [Card; 12]);

#[cfg(test)]
mod tests {
    use super::Card;

    /// R1.3: every kind of card has the name an audit report or a person uses.
    #[test]
    fn cards_are_named_as_people_name_them() {
        let named: Vec<String> = [
            Card::Number { value: 42 },
            Card::Joker,
            Card::CardSwap,
            Card::Skip,
            Card::RackSwap,
        ]
        .iter()
        .map(Card::to_string)
        .collect();
        assert_eq!(named, ["42", "joker", "card swap", "skip", "rack swap"]);
    }
}
