//! Deterministic shuffles (R9). The exact algorithm is part of the rules version
//! ([`crate::RULES_VERSION`]) and is written out here so that an outside verifier holding a
//! round's seed can recompute every deck order of that round.
//!
//! # The random words
//! Each shuffle reads its own ChaCha20 keystream: `rand_chacha::ChaCha20Rng::from_seed(seed)`
//! with `set_stream(stream)`, words read with `next_u32`. Written out: the 16-word ChaCha
//! state is the constants `0x61707865 0x3320646e 0x79622d32 0x6b206574`, the 32 seed bytes as
//! 8 little-endian words (the key), a 64-bit block counter starting at 0 (low word, high
//! word), and the 64-bit `stream` as the nonce (low word, high word). Each block is 20 rounds
//! (10 double rounds) plus the input state, as in RFC 7539 but for that counter/nonce split;
//! its 16 output words are used in order, then the counter goes up by one.
//!
//! An independent reimplementation from this text (in Python) reproduces the fixed vectors of
//! the tests of this module.
//!
//! Streams within one round:
//! - stream 0: the number cards, for the deal (R2.2);
//! - stream 1: the stock (R2.3);
//! - stream 2, 3, ...: each reshuffle of the discards (R3.6), in the order they happen in the
//!   round. A stacked deck replaces streams 0 and 1 only; reshuffles still start at stream 2.
//!
//! # The shuffle
//! An unbiased Fisher–Yates over a list `a` of `n` cards: for `i` from `n-1` down to `1`, draw
//! `j` uniform in `0..=i` and swap `a[i]` and `a[j]`. To draw `j`: `bound = i + 1`,
//! `zone = floor(2^32 / bound) * bound` (the largest multiple of `bound` that fits in 2^32);
//! read words `x` until `x < zone` (rejecting the rest), then `j = x % bound`.
//!
//! # The lists and their initial order
//! - Deal (stream 0): the number cards in ascending order `1, 2, ..., max_number`. After the
//!   shuffle, the first `12 * players` are dealt in that order (R2.2: one at a time clockwise
//!   from the start player; a seat's first card into slot 60, its twelfth into slot 5).
//! - Stock (stream 1): the number cards that were not dealt, in their shuffled order from the
//!   deal list, then all jokers, then all card swaps, then all skips, then all rack swaps.
//!   After the shuffle, index 0 is the top of the stock: it is turned up as the start card.
//! - Reshuffle (stream 2+): the discard pile from bottom to top without its top card (which
//!   stays as the new discard pile). After the shuffle, index 0 is the top of the new stock.
//!
//! [`shuffled_deck`] computes the first two; the game performs reshuffles with [`shuffle`].

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::{Card, DeckCounts, Slot, StackedDeck};

/// Stream numbers within a round (see the module docs).
pub const DEAL_STREAM: u64 = 0;
pub const STOCK_STREAM: u64 = 1;
pub const FIRST_RESHUFFLE_STREAM: u64 = 2;

/// A round's 32-byte shuffle seed; serialized as 64 lowercase hex digits.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(value_type = String))]
pub struct Seed(pub [u8; 32]);

impl Seed {
    /// The R9.2 commitment: SHA-256 of the 32 seed bytes, lowercase hex.
    pub fn commitment(&self) -> String {
        hex::encode(Sha256::digest(self.0))
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

/// What the caller supplies to deal a round: the seed always (it drives reshuffles, R3.6, and is
/// committed and revealed, R9.2); a stacked deck replaces the two initial shuffles.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct RoundDeal {
    pub seed: Seed,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stacked: Option<StackedDeck>,
}

/// Shuffles `cards` in place with the ChaCha20 stream `stream` of `seed` (see module docs).
pub fn shuffle(cards: &mut [Card], seed: &Seed, stream: u64) {
    let mut rng = ChaCha20Rng::from_seed(seed.0);
    rng.set_stream(stream);
    for i in (1..cards.len()).rev() {
        let j = uniform_up_to(&mut rng, i as u64);
        cards.swap(i, j as usize);
    }
}

/// A uniform draw in `0..=top` by rejection sampling (module docs), `top < 2^32`.
fn uniform_up_to(rng: &mut ChaCha20Rng, top: u64) -> u64 {
    let bound = top + 1;
    let zone = (1u64 << 32) / bound * bound;
    loop {
        let x = u64::from(rng.next_u32());
        if x < zone {
            return x % bound;
        }
    }
}

/// The deck a seed deals for `players` (streams 0 and 1, module docs), as a stacked deck.
pub fn shuffled_deck(counts: &DeckCounts, players: u8, seed: &Seed) -> StackedDeck {
    // The deck's order (`DeckCounts::cards`): the numbers ascending, then the other kinds.
    let mut cards = counts.cards();
    let numbers = usize::from(counts.max_number);
    shuffle(&mut cards[..numbers], seed, DEAL_STREAM);
    let dealt = (Slot::COUNT * usize::from(players)).min(numbers);
    let deal = cards[..dealt].iter().filter_map(Card::number).collect();
    let mut stock = cards.split_off(dealt);
    shuffle(&mut stock, seed, STOCK_STREAM);
    StackedDeck { deal, stock }
}

#[cfg(test)]
mod tests;
