//! Refresh tokens: opaque to the client, 256 random bits after the session's id, stored only
//! as their SHA-256. The id in front lets the server find the session of a token it no longer
//! holds, so that a spent token can be told from a forged one and end its session.

use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine};
use sha2::{Digest, Sha256};
use uuid::Uuid;

const PREFIX: &str = "rt1_";
/// The session id's 16 bytes and 32 random ones.
const BYTES: usize = 48;
/// Every refresh token has this many characters: the prefix and 48 bytes in base64url.
pub const LENGTH: usize = PREFIX.len() + BYTES / 3 * 4;
/// The shape of a refresh token, as the OpenAPI document states it.
pub const PATTERN: &str = "^rt1_[A-Za-z0-9_-]{64}$";

/// A refresh token as presented: the session it names and the hash to compare.
#[derive(Debug, PartialEq, Eq)]
pub struct Presented {
    pub session: Uuid,
    pub hash: String,
}

/// A fresh token for `session` and its hash. 32 bytes from rand's thread generator (a CSPRNG
/// seeded by the operating system), as for password salts.
pub fn new_token(session: Uuid) -> (String, String) {
    let mut bytes = [0u8; BYTES];
    bytes[..16].copy_from_slice(session.as_bytes());
    bytes[16..].copy_from_slice(&rand::random::<[u8; 32]>());
    let token = format!("{PREFIX}{}", URL_SAFE_NO_PAD.encode(bytes));
    let hash = hash(&token);
    (token, hash)
}

/// The session and hash of a token of the right shape; None for anything else.
pub fn parse(token: &str) -> Option<Presented> {
    if token.len() != LENGTH {
        return None;
    }
    let bytes = URL_SAFE_NO_PAD.decode(token.strip_prefix(PREFIX)?).ok()?;
    let session = Uuid::from_slice(bytes.get(..16)?).ok()?;
    Some(Presented {
        session,
        hash: hash(token),
    })
}

/// The SHA-256 of the token, in hex. A fast hash is enough: the token holds 256 random bits,
/// so nobody can search for one that matches a stored hash.
fn hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_token_parses_back_to_its_session_and_hash() {
        let session = Uuid::new_v4();
        let (token, hash) = new_token(session);
        assert_eq!(token.len(), LENGTH);
        assert!(regex_like(&token), "{token}");
        assert_eq!(parse(&token), Some(Presented { session, hash }));
        assert_ne!(new_token(session).0, token, "random each time");
    }

    #[test]
    fn other_shapes_are_refused() {
        let (token, _) = new_token(Uuid::new_v4());
        for bad in [
            "",
            "rt1_",
            &token[..LENGTH - 1],
            &format!("{token}A"),
            &token.replacen("rt1_", "rt2_", 1),
            &format!("rt1_{}", "!".repeat(64)),
        ] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }

    /// The pattern of the OpenAPI document, checked by hand.
    fn regex_like(token: &str) -> bool {
        token.strip_prefix("rt1_").is_some_and(|rest| {
            rest.len() == 64
                && rest
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        })
    }
}
