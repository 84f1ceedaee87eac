//! Deterministic shuffles (R9). The exact algorithm is part of the rules version and is written
//! out here so that an outside verifier can reimplement it.
//!
//! TODO(engine): document the algorithm precisely: ChaCha20 keystream (key = round seed,
//! stream/nonce = shuffle index within the round: 0 = the number cards for the deal, 1 = the
//! stock, 2.. = each reshuffle of the discards R3.6), read as little-endian u32 words, and an
//! unbiased Fisher–Yates by rejection sampling written out in code. Which list is shuffled and
//! in which order its cards start must be stated too.

use serde::{Deserialize, Serialize};

use crate::Card;

/// A round's 32-byte shuffle seed; serialized as 64 lowercase hex digits.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(value_type = String))]
pub struct Seed(pub [u8; 32]);

impl Seed {
    /// The R9.2 commitment: SHA-256 of the 32 seed bytes, lowercase hex.
    pub fn commitment(&self) -> String {
        todo!()
    }
    pub fn to_hex(&self) -> String {
        hex::encode(self.0)
    }
    pub fn from_hex(s: &str) -> Option<Seed> {
        let bytes = hex::decode(s).ok()?;
        Some(Seed(bytes.try_into().ok()?))
    }
}

// Debug never prints the seed: a seed in a log line would reveal the stock order (R8.2).
impl std::fmt::Debug for Seed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Seed(<hidden>)")
    }
}

impl Serialize for Seed {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_hex())
    }
}

impl<'de> Deserialize<'de> for Seed {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Seed::from_hex(&s).ok_or_else(|| serde::de::Error::custom("a seed is 64 hex digits"))
    }
}

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

/// What the caller supplies to deal a round: the seed always (it drives reshuffles, R3.6, and is
/// committed and revealed, R9.2); a stacked deck replaces the two initial shuffles.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoundDeal {
    pub seed: Seed,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stacked: Option<StackedDeck>,
}

/// Shuffles `cards` in place with the ChaCha20 stream `stream` of `seed` (see module docs).
pub fn shuffle(cards: &mut [Card], seed: &Seed, stream: u64) {
    todo!("{} {:?} {stream}", cards.len(), seed)
}
