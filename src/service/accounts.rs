//! Accounts: validated usernames and passwords, and the account operations behind the
//! `/v1/accounts`, `/v1/sessions` and `/v1/guests` endpoints (and `racko admin create`).
//! Signing in opens a session ([`sessions`]).

use uuid::Uuid;

use crate::{
    auth::{self, CurrentUser},
    blocking::blocking,
    error::{Code, ServiceError},
    service::{farewell, Caller, Service},
    store::{Account, NewAccount, Role, SignedInAccount, Store},
};

/// Guest names are `guest-` and six of these; registered names may not take the prefix.
const GUEST_PREFIX: &str = "guest-";
const GUEST_ALPHABET: &[u8] = b"abcdefghijkmnpqrstuvwxyz23456789";

/// A deleted account's name is `deleted-player-` and four hex digits (more after clashes);
/// nobody may register one, so it never passes for a person.
const DELETED_PREFIX: &str = "deleted-player-";
/// Four hex digits give 65,536 names: a clash is retried, and after a few, longer names.
const DELETED_NAME_TRIES: usize = 8;

/// 3..=32 characters of `[A-Za-z0-9_-]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Username(String);

impl Username {
    pub fn parse(s: &str) -> Result<Username, ServiceError> {
        let ok_chars = s
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !(3..=32).contains(&s.len()) || !ok_chars {
            return Err(ServiceError::new(
                Code::InvalidUsername,
                "a username has 3 to 32 characters: letters, digits, '_' and '-'",
            ));
        }
        if s.to_ascii_lowercase().starts_with(GUEST_PREFIX) {
            return Err(ServiceError::new(
                Code::InvalidUsername,
                "usernames starting with 'guest-' are reserved for guests",
            ));
        }
        if s.to_ascii_lowercase().starts_with(DELETED_PREFIX) {
            return Err(ServiceError::new(
                Code::InvalidUsername,
                "usernames starting with 'deleted-player-' are reserved for deleted accounts",
            ));
        }
        // The computer players' accounts are named so; a person holding such a name would
        // block the migration that adds a level's accounts.
        if s.to_ascii_lowercase().starts_with("computer-") {
            return Err(ServiceError::new(
                Code::InvalidUsername,
                "usernames starting with 'computer-' are reserved for computer players",
            ));
        }
        Ok(Username(s.to_string()))
    }
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// 8..=128 characters. Debug never shows it.
#[derive(Clone)]
pub struct Password(String);

impl Password {
    pub fn parse(s: String) -> Result<Password, ServiceError> {
        if !(8..=128).contains(&s.chars().count()) {
            return Err(ServiceError::new(
                Code::InvalidPassword,
                "a password has 8 to 128 characters",
            ));
        }
        Ok(Password(s))
    }
}

impl std::fmt::Debug for Password {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Password(<redacted>)")
    }
}

/// Creates a registered account. Conflict `username_taken` (409) when the name exists.
pub async fn register(
    store: &Store,
    username: Username,
    password: Password,
    role: Role,
) -> Result<Account, ServiceError> {
    let hash = auth::hash_password(password.0).await?;
    let new = NewAccount {
        username: username.0,
        password_hash: Some(hash),
        role,
        guest: false,
    };
    blocking(store, move |s| s.insert_account(&new)).await
}

/// The account whose username and password match; one `invalid_credentials` answer for an
/// unknown user, a guest and a wrong password alike.
pub async fn login(
    store: &Store,
    username: String,
    password: String,
) -> Result<Account, ServiceError> {
    let account = blocking(store, move |s| s.account_by_username(&username)).await?;
    let hash = account.as_ref().and_then(|a| a.password_hash.clone());
    match account {
        Some(a) if auth::verify_password(password, hash).await? => Ok(a),
        _ => Err(ServiceError::new(
            Code::InvalidCredentials,
            "wrong username or password",
        )),
    }
}

/// A new guest account with a random `guest-xxxxxx` name (retried on the rare collision).
pub async fn create_guest(store: &Store) -> Result<Account, ServiceError> {
    for _ in 0..5 {
        let new = NewAccount {
            username: guest_name(),
            password_hash: None,
            role: Role::Player,
            guest: true,
        };
        match blocking(store, move |s| s.insert_account(&new)).await {
            Err(e) if e.code == Code::UsernameTaken => continue,
            result => return result,
        }
    }
    Err(ServiceError::internal("no free guest name after 5 tries"))
}

/// Turns the guest `id` into a registered account. 409 `not_a_guest` for a registered account
/// (the request is fine, the account's state is not), 409 `username_taken` when the name exists.
pub async fn upgrade_guest(
    store: &Service,
    user: &CurrentUser,
    username: Username,
    password: Password,
) -> Result<Account, ServiceError> {
    // Checked before hashing; the store checks again, against a racing upgrade.
    if !user.guest {
        return Err(ServiceError::new(
            Code::NotAGuest,
            "only a guest account can be upgraded",
        ));
    }
    let (id, hash) = (user.id, auth::hash_password(password.0).await?);
    blocking(store, move |s| {
        s.upgrade_guest(id, &username.0, &hash)
            .map(|done| s.after(done))
    })
    .await
}

/// The account a valid token names; 401 if it no longer exists.
pub async fn existing(store: &Store, id: Uuid) -> Result<Account, ServiceError> {
    Ok(signed_in(store, id, None).await?.account)
}

/// The account a valid token names with its live sessions, `session` among them if it is
/// still live; 401 if the account no longer exists.
pub async fn signed_in(
    store: &Store,
    id: Uuid,
    session: Option<Uuid>,
) -> Result<SignedInAccount, ServiceError> {
    // Most requests come from an account seen seconds ago: no round trip, no thread hop. A
    // session the cached read does not hold live may be newer than it: read again.
    if let Some(cached) = store.recent_account(id) {
        if session.is_none_or(|s| cached.has_session(s, store.now())) {
            return Ok(cached);
        }
    }
    blocking(store, move |s| s.account_for_token(id))
        .await?
        .ok_or_else(|| ServiceError::unauthorized("the account no longer exists"))
}

/// "Sign out everywhere": every token of the account issued so far stops working and every
/// session ends (a lost phone, a shared computer). The caller signs in again for a new token.
pub async fn sign_out_everywhere(store: &Service, id: Uuid) -> Result<(), ServiceError> {
    blocking(store, move |s| {
        s.revoke_tokens(id).map(|done| s.after(done))
    })
    .await
}

/// Leaving for good: `password` must be the account's (a guest's own token is proof enough).
/// First, in one commit, every token is revoked and the account marked deleted, so from then
/// on no request can sign in as it, and no join or new game can seat it (the store refuses
/// inside the seating transaction, also for a request that authenticated just before). Then
/// [`finish_deletion`] resigns and leaves its games and erases its name. Should that be cut
/// short, housekeeping finishes it ([`finish_unfinished_deletions`]).
pub async fn delete_account(
    store: &Service,
    user: &CurrentUser,
    password: Option<String>,
) -> Result<(), ServiceError> {
    if !user.guest {
        let hash = existing(store, user.id).await?.password_hash;
        let ok = match password {
            Some(password) => auth::verify_password(password, hash).await?,
            None => false,
        };
        if !ok {
            return Err(ServiceError::new(
                Code::InvalidCredentials,
                "the account's password is required to delete it",
            ));
        }
    }
    let id = user.id;
    blocking(store, move |s| {
        s.begin_deletion(id).map(|done| s.after(done))
    })
    .await?;
    finish_deletion(store, id).await
}

/// The rest of a deletion that has begun: every active game is resigned and every open one
/// left (`service::farewell`, through each game's one write path), then the username is
/// replaced by a `deleted-player-…` pseudonym. The account row stays, so finished games keep
/// their seats, and exports and `racko verify` stay complete. Repeatable.
pub async fn finish_deletion(store: &Service, id: Uuid) -> Result<(), ServiceError> {
    let account = existing(store, id).await?;
    let caller = Caller {
        id,
        username: account.username,
    };
    blocking(store, move |s| farewell::leave_all_games(s, &caller)).await?;
    for attempt in 0..DELETED_NAME_TRIES {
        // The last tries draw longer names: the short ones are crowded.
        let name = deleted_name(if attempt < DELETED_NAME_TRIES / 2 {
            2
        } else {
            4
        });
        match blocking(store, move |s| {
            s.erase_account(id, &name).map(|done| s.after(done))
        })
        .await
        {
            Err(e) if e.code == Code::UsernameTaken => continue,
            result => return result,
        }
    }
    Err(ServiceError::internal(format!(
        "no free deleted-player name after {DELETED_NAME_TRIES} tries"
    )))
}

/// Finishes deletions that began but were cut short (a crash, the database gone midway);
/// how many were finished. Run by housekeeping in every process; finishing one twice at once
/// is harmless.
pub async fn finish_unfinished_deletions(store: &Service) -> Result<usize, ServiceError> {
    let ids = blocking(store, |s| s.unfinished_deletions(DELETED_PREFIX, 100)).await?;
    let mut finished = 0;
    for id in ids {
        match finish_deletion(store, id).await {
            Ok(()) => finished += 1,
            Err(e) => tracing::warn!(account = %id, error = %e, "cannot finish a deletion"),
        }
    }
    Ok(finished)
}

/// `deleted-player-` and `bytes` random bytes in hex.
fn deleted_name(bytes: usize) -> String {
    use rand::Rng;
    let mut rng = rand::rng();
    let tail: Vec<u8> = (0..bytes).map(|_| rng.random()).collect();
    format!("{DELETED_PREFIX}{}", hex::encode(tail))
}

fn guest_name() -> String {
    use rand::Rng;
    let mut rng = rand::rng();
    let tail: String = (0..6)
        .map(|_| char::from(GUEST_ALPHABET[rng.random_range(0..GUEST_ALPHABET.len())]))
        .collect();
    format!("{GUEST_PREFIX}{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usernames() {
        for ok in ["abc", "Alice_99", "a-b", &"x".repeat(32)] {
            assert!(Username::parse(ok).is_ok(), "{ok}");
        }
        for bad in [
            "ab",
            "",
            "with space",
            "émile",
            &"x".repeat(33),
            "guest-abc",
            "Guest-x1",
            "deleted-player-7f3a",
            "Deleted-Player-x",
        ] {
            assert_eq!(
                Username::parse(bad).unwrap_err().code,
                Code::InvalidUsername,
                "{bad}"
            );
        }
    }

    #[test]
    fn passwords() {
        assert!(Password::parse("12345678".into()).is_ok());
        assert!(Password::parse("ü".repeat(128)).is_ok());
        for bad in ["1234567".to_string(), "x".repeat(129)] {
            assert_eq!(
                Password::parse(bad).unwrap_err().code,
                Code::InvalidPassword
            );
        }
        assert!(!format!("{:?}", Password::parse("secret-pw".into())).contains("secret"));
    }

    #[test]
    fn deleted_names_have_the_prefix_and_hex() {
        let n = deleted_name(2);
        assert_eq!(n.len(), "deleted-player-".len() + 4);
        assert!(n.starts_with("deleted-player-"));
        assert!(n[15..].bytes().all(|b| b.is_ascii_hexdigit()));
    }

    #[test]
    fn guest_names_are_valid_shapes() {
        let n = guest_name();
        assert_eq!(n.len(), 12);
        assert!(n.starts_with("guest-"));
    }
}
