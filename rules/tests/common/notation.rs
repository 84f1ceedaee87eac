//! A compact card notation for scenario files and tests: a number is a number card, "J" a
//! joker, "CS" a card swap, "SK" a skip, "RS" a rack swap, null an empty slot (Blitz deal).

use racko_rules::Card;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum CardSpec {
    Number(u16),
    Named(Named),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Named {
    J,
    CS,
    SK,
    RS,
}

impl CardSpec {
    pub fn card(self) -> Card {
        match self {
            CardSpec::Number(value) => Card::Number { value },
            CardSpec::Named(Named::J) => Card::Joker,
            CardSpec::Named(Named::CS) => Card::CardSwap,
            CardSpec::Named(Named::SK) => Card::Skip,
            CardSpec::Named(Named::RS) => Card::RackSwap,
        }
    }

    pub fn of(card: Card) -> CardSpec {
        match card {
            Card::Number { value } => CardSpec::Number(value),
            Card::Joker => CardSpec::Named(Named::J),
            Card::CardSwap => CardSpec::Named(Named::CS),
            Card::Skip => CardSpec::Named(Named::SK),
            Card::RackSwap => CardSpec::Named(Named::RS),
        }
    }
}

/// Parses a rack or pile written as text, e.g. `"3 8 J 15"`, for tests written in Rust.
pub fn cards(text: &str) -> Vec<Card> {
    text.split_whitespace()
        .map(|word| match word {
            "J" => Card::Joker,
            "CS" => Card::CardSwap,
            "SK" => Card::Skip,
            "RS" => Card::RackSwap,
            n => Card::Number {
                value: n.parse().unwrap_or_else(|_| panic!("not a card: {n}")),
            },
        })
        .collect()
}

/// A rack as text, `None` slots as `_`, for readable failure messages.
pub fn show(rack: &[Option<Card>]) -> String {
    rack.iter()
        .map(|card| match card.map(CardSpec::of) {
            None => "_".to_string(),
            Some(CardSpec::Number(n)) => n.to_string(),
            Some(CardSpec::Named(named)) => format!("{named:?}"),
        })
        .collect::<Vec<_>>()
        .join(" ")
}
