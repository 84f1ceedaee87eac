//! How a [`Game`](super::Game) writes its cards when serialized for the server's store: one
//! JSON number per card (a number card as its value, the others as small negative codes)
//! instead of the API's `{"kind": "number", "value": 17}`. A game holds about a hundred cards,
//! so this takes its stored state from about 3 KB to under 1 KB: less to write to the log of
//! every action, and less to parse on every read. Reading accepts both forms, so a game stored
//! in the tagged form loads as before.

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};

use crate::event::RoundEnd;
use crate::view::RoundResult;
use crate::{Card, Rack, Seat, Seed};

/// A card in the stored form.
pub(super) struct Stored(pub(super) Card);

impl Stored {
    pub(super) fn code(&self) -> i32 {
        match self.0 {
            Card::Number { value } => i32::from(value),
            Card::Joker => -1,
            Card::CardSwap => -2,
            Card::Skip => -3,
            Card::RackSwap => -4,
        }
    }

    pub(super) fn from_code<E: de::Error>(code: i64) -> Result<Card, E> {
        Ok(match code {
            -1 => Card::Joker,
            -2 => Card::CardSwap,
            -3 => Card::Skip,
            -4 => Card::RackSwap,
            n => Card::Number {
                value: u16::try_from(n)
                    .map_err(|_| E::custom(format!("{n} is not a stored card")))?,
            },
        })
    }
}

impl Serialize for Stored {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_i32(self.code())
    }
}

impl<'de> Deserialize<'de> for Stored {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Stored, D::Error> {
        struct CardVisitor;
        impl<'de> Visitor<'de> for CardVisitor {
            type Value = Card;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a card: its stored code or its tagged form")
            }
            fn visit_i64<E: de::Error>(self, code: i64) -> Result<Card, E> {
                Stored::from_code(code)
            }
            fn visit_u64<E: de::Error>(self, code: u64) -> Result<Card, E> {
                let code = i64::try_from(code).map_err(E::custom)?;
                Stored::from_code(code)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Card, A::Error> {
                Card::deserialize(de::value::MapAccessDeserializer::new(map))
            }
        }
        d.deserialize_any(CardVisitor).map(Stored)
    }
}

fn write_all<'a, S: Serializer>(
    cards: impl ExactSizeIterator<Item = &'a Card>,
    s: S,
) -> Result<S::Ok, S::Error> {
    let mut seq = s.serialize_seq(Some(cards.len()))?;
    for card in cards {
        seq.serialize_element(&Stored(*card))?;
    }
    seq.end()
}

fn read_all<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Card>, D::Error> {
    struct All;
    impl<'de> Visitor<'de> for All {
        type Value = Vec<Card>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a list of cards")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Card>, A::Error> {
            let mut cards = Vec::with_capacity(seq.size_hint().unwrap_or(0));
            while let Some(Stored(card)) = seq.next_element()? {
                cards.push(card);
            }
            Ok(cards)
        }
    }
    d.deserialize_seq(All)
}

/// `#[serde(with)]` for a pile of cards.
pub mod cards {
    use super::*;

    pub fn serialize<S: Serializer>(cards: &[Card], s: S) -> Result<S::Ok, S::Error> {
        write_all(cards.iter(), s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Card>, D::Error> {
        read_all(d)
    }
}

/// `#[serde(with)]` for one card or none.
pub mod card {
    use super::*;

    pub fn serialize<S: Serializer>(card: &Option<Card>, s: S) -> Result<S::Ok, S::Error> {
        card.map(Stored).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Card>, D::Error> {
        Ok(Option::<Stored>::deserialize(d)?.map(|c| c.0))
    }
}

/// A rack: its twelve cards, slot 5 first.
struct StoredRack<'a>(&'a Rack);

impl Serialize for StoredRack<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        write_all(self.0 .0.iter(), s)
    }
}

struct ReadRack(Rack);

impl<'de> Deserialize<'de> for ReadRack {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ReadRack, D::Error> {
        let cards = read_all(d)?;
        let n = cards.len();
        let cards: [Card; 12] = cards
            .try_into()
            .map_err(|_| de::Error::invalid_length(n, &"a rack of 12 cards"))?;
        Ok(ReadRack(Rack(cards)))
    }
}

/// `#[serde(with)]` for the racks by seat.
pub mod racks {
    use super::*;

    pub fn serialize<S: Serializer>(racks: &[Rack], s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(racks.len()))?;
        for rack in racks {
            seq.serialize_element(&StoredRack(rack))?;
        }
        seq.end()
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Rack>, D::Error> {
        Ok(Vec::<ReadRack>::deserialize(d)?
            .into_iter()
            .map(|r| r.0)
            .collect())
    }
}

/// The fields of [`RoundResult`], with its racks in the stored form.
#[derive(Serialize)]
struct WriteRound<'a> {
    round: u32,
    dealer: Seat,
    end: &'a RoundEnd,
    #[serde(with = "racks")]
    racks: &'a [Rack],
    scores: &'a [u32],
    seed: &'a Seed,
}

#[derive(Deserialize)]
struct ReadRound {
    round: u32,
    dealer: Seat,
    end: RoundEnd,
    #[serde(with = "racks")]
    racks: Vec<Rack>,
    scores: Vec<u32>,
    seed: Seed,
}

/// `#[serde(with)]` for the last ended round.
pub mod last_round {
    use super::*;

    pub fn serialize<S: Serializer>(round: &Option<RoundResult>, s: S) -> Result<S::Ok, S::Error> {
        round
            .as_ref()
            .map(|r| WriteRound {
                round: r.round,
                dealer: r.dealer,
                end: &r.end,
                racks: &r.racks,
                scores: &r.scores,
                seed: &r.seed,
            })
            .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<RoundResult>, D::Error> {
        Ok(Option::<ReadRound>::deserialize(d)?.map(|r| RoundResult {
            round: r.round,
            dealer: r.dealer,
            end: r.end,
            racks: r.racks,
            scores: r.scores,
            seed: r.seed,
        }))
    }
}
