//! The token secret: a wrapper that never prints its value, and an estimate of how much
//! randomness a secret holds, so that start-up refuses a guessable one (a blank, a repeated
//! filler, a short pattern) and accepts what `openssl rand -hex 32` or `openssl rand -base64 32`
//! prints, every time.
//!
//! The estimate is `symbols × log2(alphabet)`: the alphabet is the smallest of the usual ones
//! (decimal, hexadecimal, letters and digits, base64, base64url, printable text, any byte) that
//! holds every character, and the symbols are what is left after a greedy LZ77 pass replaces each
//! long repetition of earlier text by a copy worth two symbols. A random string loses nothing to
//! that pass (a repeat of [`MIN_COPY`] characters is vanishingly rare), a patterned one almost
//! everything. Secrets are refused below [`MIN_SECRET_BITS`].

/// What HS256 needs from a key, whatever its length: an attacker's work factor of 2^128.
pub const MIN_SECRET_BITS: u32 = 128;
/// Shorter repetitions are left alone: 64 random hex characters repeat some 3-character run in
/// about a third of draws, and counting those would make the verdict on a random secret of
/// exactly 128 bits depend on luck. An 8-character repeat happens in fewer than one draw in a
/// million, while a repeated filler or word yields one long copy.
pub const MIN_COPY: usize = 8;
/// What a copy of earlier text costs, in symbols (where it starts, how long it is).
const COPY_COST: usize = 2;
/// The first bytes are judged; a longer secret holds at least as much as them.
const JUDGED_BYTES: usize = 1024;

/// A secret string whose `Debug` never shows the value.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Secret {
        Secret(value.into())
    }
    /// The value, for the one place that needs it (the token keys).
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

impl std::str::FromStr for Secret {
    type Err = std::convert::Infallible;
    fn from_str(s: &str) -> Result<Secret, Self::Err> {
        Ok(Secret::new(s))
    }
}

/// An alphabet's name, its size and whether it holds a byte.
type Alphabet = (&'static str, f64, fn(u8) -> bool);

/// The recognised alphabets, smallest first: a string is judged by the first that holds it.
const ALPHABETS: &[Alphabet] = &[
    ("decimal digits", 10.0, |b| b.is_ascii_digit()),
    ("hexadecimal", 16.0, |b| b.is_ascii_hexdigit()),
    ("lowercase letters and digits", 36.0, |b| {
        b.is_ascii_lowercase() || b.is_ascii_digit()
    }),
    ("uppercase letters and digits", 36.0, |b| {
        b.is_ascii_uppercase() || b.is_ascii_digit()
    }),
    ("letters and digits", 62.0, |b| b.is_ascii_alphanumeric()),
    ("base64", 64.0, |b| {
        b.is_ascii_alphanumeric() || b == b'+' || b == b'/'
    }),
    ("base64url", 64.0, |b| {
        b.is_ascii_alphanumeric() || b == b'-' || b == b'_'
    }),
    ("printable text", 95.0, |b| {
        b == b' ' || b.is_ascii_graphic()
    }),
];

/// An estimate of a secret's randomness.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Strength {
    pub bits: f64,
    pub alphabet: &'static str,
}

/// Estimates the randomness `secret` holds (see the module's documentation).
pub fn strength(secret: &str) -> Strength {
    let bytes = &secret.as_bytes()[..secret.len().min(JUDGED_BYTES)];
    // Base64 padding carries nothing; elsewhere `=` is text like any other.
    let unpadded = strip_padding(bytes);
    let (alphabet, size, body) = ALPHABETS
        .iter()
        .find_map(|&(name, size, holds)| {
            [unpadded, bytes]
                .into_iter()
                .find(|body| body.iter().all(|&b| holds(b)))
                .map(|body| (name, size, body))
        })
        .unwrap_or(("any byte", 256.0, bytes));
    Strength {
        bits: symbols(body) as f64 * f64::log2(size),
        alphabet,
    }
}

fn strip_padding(bytes: &[u8]) -> &[u8] {
    let body = bytes
        .strip_suffix(b"==")
        .or_else(|| bytes.strip_suffix(b"="));
    body.unwrap_or(bytes)
}

/// The symbols a greedy LZ77 pass leaves: one per literal byte, [`COPY_COST`] per copy of at
/// least [`MIN_COPY`] bytes of earlier text (the copy may overlap itself, so "aaaa…" is one
/// literal and one copy).
fn symbols(bytes: &[u8]) -> usize {
    let mut count = 0;
    let mut at = 0;
    while at < bytes.len() {
        let longest = (0..at)
            .map(|from| {
                (0..bytes.len() - at)
                    .take_while(|&k| bytes[from + k] == bytes[at + k])
                    .count()
            })
            .max()
            .unwrap_or(0);
        if longest >= MIN_COPY {
            count += COPY_COST;
            at += longest;
        } else {
            count += 1;
            at += 1;
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::{engine::general_purpose::STANDARD, Engine};

    const DRAWS: usize = 10_000;

    fn passes(secret: &str) -> bool {
        strength(secret).bits >= f64::from(MIN_SECRET_BITS)
    }

    #[test]
    fn the_documented_commands_always_pass() {
        // `openssl rand -hex 32` and `openssl rand -base64 32` print these forms.
        for _ in 0..DRAWS {
            let bytes: [u8; 32] = rand::random();
            let hex = hex::encode(bytes);
            assert!(passes(&hex), "{hex}: {:?}", strength(&hex));
            assert!(passes(&hex.to_uppercase()), "{hex}");
            let b64 = STANDARD.encode(bytes);
            assert_eq!(b64.len(), 44);
            assert!(passes(&b64), "{b64}: {:?}", strength(&b64));
        }
    }

    #[test]
    fn shorter_random_secrets_of_enough_bits_pass() {
        for _ in 0..DRAWS {
            // `openssl rand -hex 24`: 192 bits.
            let hex = hex::encode(rand::random::<[u8; 24]>());
            assert!(passes(&hex), "{hex}: {:?}", strength(&hex));
        }
        // 128 bits exactly passes unless the draw repeats 8 characters (odds about 1 in 10^7),
        // so fewer draws keep this test from ever failing by luck.
        for _ in 0..DRAWS / 10 {
            let hex = hex::encode(rand::random::<[u8; 16]>());
            assert!(passes(&hex), "{hex}: {:?}", strength(&hex));
        }
    }

    #[test]
    fn alphabets_are_recognised() {
        let hex = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
        assert_eq!(strength(hex).alphabet, "hexadecimal");
        assert_eq!(strength(hex).bits, 256.0);
        let b64 = STANDARD.encode([0x5a_u8; 1]);
        assert_eq!(b64, "Wg==");
        assert_eq!(strength(&b64).alphabet, "letters and digits");
        assert_eq!(strength("ab+/cd").alphabet, "base64");
        assert_eq!(strength("ab-_cd").alphabet, "base64url");
        assert_eq!(strength("a b!").alphabet, "printable text");
        assert_eq!(strength("0123").alphabet, "decimal digits");
        assert_eq!(strength("héllo").alphabet, "any byte");
    }

    #[test]
    fn patterned_secrets_fail() {
        let weak = [
            String::new(),
            " ".repeat(64),
            "a".repeat(64),
            "0".repeat(63) + "1",
            "0123".repeat(16),
            "0123456789abcdef".repeat(4),
            "password".repeat(8),
            "correcthorse".repeat(3) + "!",
            "ab".repeat(40),
            // 32 decimal digits hold 106 bits.
            "73120984561230947561092384756102".into(),
        ];
        for secret in weak {
            assert!(!passes(&secret), "{secret:?}: {:?}", strength(&secret));
        }
    }

    #[test]
    fn a_random_prefix_does_not_rescue_a_long_filler() {
        let secret = format!(
            "{}{}",
            hex::encode(rand::random::<[u8; 8]>()),
            "x".repeat(200)
        );
        assert!(!passes(&secret), "{:?}", strength(&secret));
    }
}
