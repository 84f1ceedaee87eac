//! Secrets drawn from the operating system's secure random source (R9.1): round seeds and
//! invite codes.

use racko_rules::Seed;
use rand::rngs::OsRng;
use rand::TryRngCore;

use crate::error::ServiceError;

/// No 0/O, 1/I/L: codes are read aloud and typed by hand.
const INVITE_ALPHABET: &[u8] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";
pub const INVITE_CODE_LEN: usize = 8;

/// A fresh round seed.
pub fn seed() -> Result<Seed, ServiceError> {
    let mut bytes = [0u8; 32];
    OsRng
        .try_fill_bytes(&mut bytes)
        .map_err(ServiceError::internal)?;
    Ok(Seed(bytes))
}

/// A fresh invite code of `INVITE_CODE_LEN` letters from `INVITE_ALPHABET`, uniform.
pub fn invite_code() -> Result<String, ServiceError> {
    // Bytes at or above the largest multiple of the alphabet size are dropped so that every
    // letter is equally likely.
    let zone = (256 / INVITE_ALPHABET.len() * INVITE_ALPHABET.len()) as u8;
    let mut code = String::with_capacity(INVITE_CODE_LEN);
    let mut buf = [0u8; 16];
    while code.len() < INVITE_CODE_LEN {
        OsRng
            .try_fill_bytes(&mut buf)
            .map_err(ServiceError::internal)?;
        for &b in buf.iter().filter(|&&b| b < zone) {
            if code.len() < INVITE_CODE_LEN {
                code.push(char::from(
                    INVITE_ALPHABET[usize::from(b) % INVITE_ALPHABET.len()],
                ));
            }
        }
    }
    Ok(code)
}

/// The canonical form of a code a person typed (trimmed, upper case), or None when it cannot
/// be a code at all (so that no odd text, e.g. a NUL byte, reaches the database).
pub fn normalize_invite_code(code: &str) -> Option<String> {
    let code = code.trim().to_ascii_uppercase();
    let valid = code.len() == INVITE_CODE_LEN && code.bytes().all(|b| INVITE_ALPHABET.contains(&b));
    valid.then_some(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invite_codes_use_the_unambiguous_alphabet() {
        for _ in 0..50 {
            let code = invite_code().expect("os rng");
            assert_eq!(code.len(), INVITE_CODE_LEN);
            assert!(code.bytes().all(|b| INVITE_ALPHABET.contains(&b)));
        }
    }

    #[test]
    fn typed_codes_are_normalized_or_refused() {
        assert_eq!(
            normalize_invite_code(" abcd2345 ").as_deref(),
            Some("ABCD2345")
        );
        assert_eq!(normalize_invite_code("ABCD234"), None);
        assert_eq!(
            normalize_invite_code("ABCD2340"),
            None,
            "0 is not in the alphabet"
        );
        assert_eq!(normalize_invite_code("ABCD234\0"), None);
    }

    #[test]
    fn seeds_differ() {
        assert_ne!(seed().expect("os rng"), seed().expect("os rng"));
    }
}
