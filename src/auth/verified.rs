//! Access tokens whose signature and claims have been checked, kept until they expire.
//!
//! Checking a token (decoding its JSON twice and its HMAC) was about 5 % of the server's CPU
//! under load, for the same few tokens again and again. Only tokens that passed are kept,
//! looked up by their whole text, so a forged or altered token is always checked in full.
//! What revokes a token (a later token generation, an ended session, a deleted account) is
//! checked against the store on every request after this (`CurrentUser`), so keeping the
//! check of the signature changes none of it. Expiry is checked on every hit.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::TokenClaims;

/// At most this many tokens are kept; when full, all are forgotten and the cache fills again.
pub const MAX_KEPT: usize = 10_000;

#[derive(Clone, Default)]
pub struct Verified {
    tokens: Arc<Mutex<HashMap<String, Kept>>>,
}

struct Kept {
    claims: TokenClaims,
    /// The token's `exp` claim plus the leeway the check allows, in Unix seconds.
    valid_until: i64,
}

impl Verified {
    /// The claims of `token` if it was checked before and is still valid at `now` (Unix
    /// seconds). An expired one is forgotten: the full check then answers `token_expired`.
    pub fn get(&self, token: &str, now: i64) -> Option<TokenClaims> {
        let mut tokens = self.tokens.lock().ok()?;
        match tokens.get(token) {
            Some(kept) if now <= kept.valid_until => Some(kept.claims.clone()),
            Some(_) => {
                tokens.remove(token);
                None
            }
            None => None,
        }
    }

    /// Keeps `token`, which passed the full check, with its claims until `valid_until`.
    pub fn put(&self, token: &str, claims: &TokenClaims, valid_until: i64) {
        let Ok(mut tokens) = self.tokens.lock() else {
            return;
        };
        if tokens.len() >= MAX_KEPT {
            tokens.clear();
        }
        tokens.insert(
            token.to_owned(),
            Kept {
                claims: claims.clone(),
                valid_until,
            },
        );
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.tokens.lock().map(|t| t.len()).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use uuid::Uuid;

    use super::*;
    use crate::store::Role;

    fn claims() -> TokenClaims {
        TokenClaims {
            id: Uuid::new_v4(),
            username: "alice".into(),
            role: Role::Player,
            guest: false,
            token_generation: 1,
            session: Some(Uuid::new_v4()),
        }
    }

    #[test]
    fn a_kept_token_answers_until_it_expires() {
        let verified = Verified::default();
        let claims = claims();
        assert_eq!(verified.get("t", 100), None);
        verified.put("t", &claims, 200);
        assert_eq!(verified.get("t", 200), Some(claims));
        assert_eq!(verified.get("t2", 150), None, "only the same text");
        assert_eq!(verified.get("t", 201), None, "expired");
        assert_eq!(verified.len(), 0, "an expired token is forgotten");
    }

    #[test]
    fn the_cache_is_bounded() {
        let verified = Verified::default();
        let claims = claims();
        for i in 0..MAX_KEPT + 5 {
            verified.put(&format!("t{i}"), &claims, 10);
        }
        assert!(verified.len() <= MAX_KEPT);
        assert!(verified.get(&format!("t{}", MAX_KEPT + 4), 1).is_some());
    }
}
