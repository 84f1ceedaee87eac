//! Authentication: argon2id password hashes, short-lived HS256 access tokens that name their
//! session, refresh tokens ([`refresh`]), and the [`CurrentUser`] extractor that a handler
//! names in its signature when it needs a signed-in account.

pub mod refresh;
mod verified;

use std::{sync::LazyLock, time::Duration};

use actix_web::web;
use argon2::{
    password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString},
    Argon2,
};
use chrono::{DateTime, Utc};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};
use tokio::sync::Semaphore;
use uuid::Uuid;

use crate::{
    config::Secret,
    error::{Code, ServiceError},
    store::{Account, Role},
};

const ISSUER: &str = "racko";

/// What a token says. The username, role and guest flag are as of issue, for clients that
/// read them; the server takes them from the store on every request (see [`CurrentUser`]).
#[derive(Debug, Serialize, Deserialize)]
struct Claims {
    sub: Uuid,
    username: String,
    role: Role,
    #[serde(default)]
    guest: bool,
    /// The account's token generation at issue; a later one revokes the token.
    #[serde(default)]
    gen: i64,
    /// The session the token belongs to: it stops working when the session ends. Tokens
    /// issued before sessions existed have none (see [`CurrentUser`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sid: Option<Uuid>,
    iss: String,
    iat: i64,
    exp: i64,
}

/// The keys that sign and check tokens. Clone is cheap enough (done once per worker).
#[derive(Clone)]
pub struct TokenKeys {
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
    ttl: Duration,
    /// Tokens already checked, shared by the clones (every worker's).
    verified: verified::Verified,
}

impl std::fmt::Debug for TokenKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenKeys")
            .field("ttl", &self.ttl)
            .finish_non_exhaustive()
    }
}

impl TokenKeys {
    pub fn new(secret: &Secret, ttl: Duration) -> Result<TokenKeys, jsonwebtoken::errors::Error> {
        let bytes = secret.expose().as_bytes();
        // Pinned to HS256: a token naming any other algorithm (or `none`) is refused.
        let mut validation = Validation::new(Algorithm::HS256);
        validation.set_required_spec_claims(&["exp", "iat", "sub", "iss"]);
        validation.set_issuer(&[ISSUER]);
        // A token not valid yet is refused too (RFC 7519 §4.1.5), not only an expired one.
        validation.validate_nbf = true;
        validation.leeway = 5;
        Ok(TokenKeys {
            encoding: EncodingKey::from_secret(bytes)?,
            decoding: DecodingKey::from_secret(bytes)?,
            validation,
            ttl,
            verified: verified::Verified::default(),
        })
    }

    /// An access token for `account` in `session` and when it expires.
    pub fn issue(
        &self,
        account: &Account,
        session: Uuid,
    ) -> Result<(String, DateTime<Utc>), ServiceError> {
        let now = Utc::now();
        let ttl = chrono::Duration::from_std(self.ttl).map_err(ServiceError::internal)?;
        let expires_at = now
            .checked_add_signed(ttl)
            .ok_or_else(|| ServiceError::internal("token expiry out of range"))?;
        let claims = Claims {
            sub: account.id,
            username: account.username.clone(),
            role: account.role,
            guest: account.guest,
            gen: account.token_generation,
            sid: Some(session),
            iss: ISSUER.to_string(),
            iat: now.timestamp(),
            exp: expires_at.timestamp(),
        };
        let token = jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &self.encoding)
            .map_err(ServiceError::internal)?;
        Ok((token, expires_at))
    }

    /// What a valid token claims; `token_expired` for a good token past its life (the client
    /// refreshes), `unauthorized` for any other bad token.
    pub fn verify(&self, token: &str) -> Result<TokenClaims, ServiceError> {
        if let Some(claims) = self.verified.get(token, Utc::now().timestamp()) {
            return Ok(claims);
        }
        let data = jsonwebtoken::decode::<Claims>(token, &self.decoding, &self.validation)
            .map_err(|e| {
                tracing::debug!(error = %e, "token refused");
                match e.kind() {
                    jsonwebtoken::errors::ErrorKind::ExpiredSignature => ServiceError::new(
                        Code::TokenExpired,
                        "the access token has expired; refresh it with the refresh token",
                    ),
                    _ => ServiceError::unauthorized("the bearer token is invalid or expired"),
                }
            })?;
        let c = data.claims;
        let claims = TokenClaims {
            id: c.sub,
            username: c.username,
            role: c.role,
            guest: c.guest,
            token_generation: c.gen,
            session: c.sid,
        };
        let leeway = i64::try_from(self.validation.leeway).unwrap_or(0);
        self.verified
            .put(token, &claims, c.exp.saturating_add(leeway));
        Ok(claims)
    }
}

/// What a valid token says, as of its issue. Only `id` and `token_generation` are trusted;
/// [`CurrentUser`] takes the rest from the store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenClaims {
    pub id: Uuid,
    pub username: String,
    pub role: Role,
    pub guest: bool,
    pub token_generation: i64,
    pub session: Option<Uuid>,
}

/// The signed-in account, from `Authorization: Bearer <token>`. Naming it in a handler's
/// arguments makes the route answer 401 `unauthorized` without a valid token (401
/// `token_expired` for one past its life), or when the account is gone, has signed out
/// everywhere since the token was issued, or the token's session has ended. The username,
/// role and guest flag are the store's, read on every request, so a change applies at once.
///
/// A token without a session (issued before sessions existed, for 30 days) is accepted until
/// it expires, and signing out everywhere still revokes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CurrentUser {
    pub id: Uuid,
    pub username: String,
    pub role: Role,
    pub guest: bool,
    pub created_at: DateTime<Utc>,
    /// The token's generation: a stream it opens ends once the account's moves past it.
    pub token_generation: i64,
    /// The token's session: a stream it opens ends with it. None for a token from before
    /// sessions.
    pub session: Option<Uuid>,
}

// ---- passwords ----

/// argon2id with the crate's defaults (OWASP: 19 MiB, 2 passes, 1 lane). Blocking: call from
/// [`hash_password`] / [`verify_password`], which move it off the async workers.
fn argon2() -> Argon2<'static> {
    Argon2::default()
}

/// Hashing is CPU- and memory-bound (19 MiB each): running more at once than there are CPUs
/// gains nothing and would let a flood of sign-ups exhaust memory. The rest wait their turn.
static HASHING: LazyLock<Semaphore> =
    LazyLock::new(|| Semaphore::new(std::thread::available_parallelism().map_or(2, |n| n.get())));

async fn hashing<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ServiceError> + Send + 'static,
) -> Result<T, ServiceError> {
    let _permit = HASHING.acquire().await.map_err(ServiceError::internal)?;
    web::block(work).await.map_err(ServiceError::internal)?
}

/// Hashes a password (PHC string) on the blocking pool.
pub async fn hash_password(password: String) -> Result<String, ServiceError> {
    hashing(move || {
        let salt = new_salt()?;
        argon2()
            .hash_password(password.as_bytes(), &salt)
            .map(|h| h.to_string())
            .map_err(ServiceError::internal)
    })
    .await
}

/// Checks a password against a stored hash on the blocking pool. With no hash (unknown user,
/// or a guest) it checks against a dummy hash, so the answer takes as long either way.
pub async fn verify_password(password: String, hash: Option<String>) -> Result<bool, ServiceError> {
    hashing(move || {
        let known = hash.is_some();
        let hash = hash.unwrap_or_else(|| DUMMY_HASH.clone());
        let parsed = PasswordHash::new(&hash).map_err(ServiceError::internal)?;
        let ok = argon2()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok();
        Ok(ok && known)
    })
    .await
}

/// 16 random bytes (rand's CSPRNG, seeded by the OS), as the PHC salt.
fn new_salt() -> Result<SaltString, ServiceError> {
    SaltString::encode_b64(&rand::random::<[u8; 16]>()).map_err(ServiceError::internal)
}

static DUMMY_HASH: LazyLock<String> = LazyLock::new(|| {
    new_salt()
        .and_then(|salt| {
            argon2()
                .hash_password(b"racko-dummy-password", &salt)
                .map(|h| h.to_string())
                .map_err(ServiceError::internal)
        })
        // Cannot fail with the default parameters; an empty hash would only refuse everyone.
        .unwrap_or_default()
});

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(secret: &str) -> TokenKeys {
        TokenKeys::new(&Secret::new(secret), Duration::from_secs(60)).expect("keys")
    }

    fn account() -> Account {
        Account {
            id: Uuid::new_v4(),
            username: "alice".into(),
            password_hash: None,
            role: Role::Player,
            guest: false,
            created_at: Utc::now(),
            token_generation: 3,
        }
    }

    #[test]
    fn issued_token_verifies() {
        let k = keys("0123456789abcdef0123456789abcdef");
        let a = account();
        let session = Uuid::new_v4();
        let (token, exp) = k.issue(&a, session).expect("issue");
        assert!(exp > Utc::now());
        let user = k.verify(&token).expect("verify");
        assert_eq!(user.id, a.id);
        assert_eq!(user.username, "alice");
        assert_eq!(user.role, Role::Player);
        assert_eq!(user.token_generation, 3);
        assert_eq!(user.session, Some(session));
    }

    #[test]
    fn other_key_is_refused() {
        let a = keys("0123456789abcdef0123456789abcdef");
        let b = keys("fedcba9876543210fedcba9876543210");
        let (token, _) = a.issue(&account(), Uuid::new_v4()).expect("issue");
        assert_eq!(b.verify(&token).unwrap_err().code, Code::Unauthorized);
    }

    #[test]
    fn a_kept_token_answers_as_checked_and_an_altered_one_is_still_refused() {
        let k = keys("0123456789abcdef0123456789abcdef");
        let (token, _) = k.issue(&account(), Uuid::new_v4()).expect("issue");
        let first = k.verify(&token).expect("checked");
        assert_eq!(k.clone().verify(&token).expect("kept"), first);
        let mut altered = token.clone();
        altered.push('x');
        assert_eq!(k.verify(&altered).unwrap_err().code, Code::Unauthorized);
        let b = keys("fedcba9876543210fedcba9876543210");
        assert_eq!(b.verify(&token).unwrap_err().code, Code::Unauthorized);
    }

    #[test]
    fn debug_hides_keys() {
        let k = keys("0123456789abcdef0123456789abcdef");
        assert!(!format!("{k:?}").contains("0123"));
    }

    #[actix_web::test]
    async fn password_round_trip() {
        let hash = hash_password("correct horse".into()).await.expect("hash");
        assert!(hash.starts_with("$argon2id$"));
        assert!(verify_password("correct horse".into(), Some(hash.clone()))
            .await
            .expect("verify"));
        assert!(!verify_password("wrong horse".into(), Some(hash))
            .await
            .expect("verify"));
        assert!(!verify_password("anything".into(), None)
            .await
            .expect("verify"));
    }
}
