//! Diesel's errors as store errors: a broken uniqueness rule becomes a `Conflict` with a stable
//! code; everything else is `Internal` with the cause's text (for the log).

use diesel::result::{DatabaseErrorKind, Error};

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("not found")]
    NotFound,
    /// The account acting is being deleted or no longer exists: nothing may seat it.
    #[error("the account is gone")]
    AccountGone,
    /// A uniqueness rule or a limit was broken.
    #[error("conflict: {0:?}")]
    Conflict(Conflict),
    /// The game changed since it was read.
    #[error("stale version; current is {current}")]
    StaleVersion { current: i64 },
    /// A value the client sent cannot be taken.
    #[error("bad input: {0:?}")]
    BadInput(BadInput),
    /// A lock wait ran out (a game's row on PostgreSQL, the file's write lock on SQLite):
    /// another transaction holds it. Nothing was written; the text is for the log.
    #[error("locked: {0}")]
    Locked(String),
    /// The database is overloaded: a statement ran over its time, or no pooled connection
    /// came free in time. Nothing was written.
    #[error("busy: {0}")]
    Busy(String),
    /// The database cannot be reached or cannot write (stopped, restarting, disk full).
    /// Nothing was written.
    #[error("store unavailable: {0}")]
    Unavailable(String),
    /// Anything else (SQL, (de)serialization). Logged, never shown to clients.
    #[error("database error: {0}")]
    Internal(String),
}

/// Which uniqueness rule or limit a write broke (the service names each to the client).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Conflict {
    UsernameTaken,
    InviteCodeTaken,
    IdempotencyKeyTaken,
    SeatTaken,
    SettingTaken,
    RematchExists,
    NotAGuest,
    TooManyDevices,
    /// The account has as many open seeks as allowed.
    TooManySeeks,
    /// A seek chosen for a pairing was no longer open when it was to be matched.
    SeekTaken,
}

/// What of a request's values the store cannot take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BadInput {
    /// A page cursor that does not decode.
    InvalidCursor,
    /// A value the database refuses (a NUL in a text, a time out of its range).
    InvalidValue,
    /// A query plan was asked of SQLite.
    ExplainNeedsPostgres,
}

impl From<Error> for StoreError {
    fn from(e: Error) -> StoreError {
        StoreError::from_ref(&e)
    }
}

impl StoreError {
    /// As `From<Error>`, for an error the caller only borrows.
    pub(super) fn from_ref(e: &Error) -> StoreError {
        match e {
            Error::NotFound => StoreError::NotFound,
            Error::DatabaseError(DatabaseErrorKind::UniqueViolation, info) => {
                match unique_rule(info.constraint_name(), info.message()) {
                    Some(code) => StoreError::Conflict(code),
                    None => StoreError::Internal(e.to_string()),
                }
            }
            // An account removed meanwhile: out of band, or its deletion began (the seat check
            // of the account-deletion migration).
            Error::DatabaseError(DatabaseErrorKind::ForeignKeyViolation, info)
                if names_an_account(info.constraint_name(), info.message()) =>
            {
                StoreError::AccountGone
            }
            Error::DatabaseError(_, info) if info.message().contains(ACCOUNT_DELETED) => {
                StoreError::AccountGone
            }
            Error::DatabaseError(_, info) if is_bad_client_value(info.message()) => {
                StoreError::BadInput(BadInput::InvalidValue)
            }
            Error::DatabaseError(DatabaseErrorKind::ClosedConnection, _) => {
                StoreError::Unavailable(e.to_string())
            }
            _ => {
                let text = e.to_string();
                match transient(&text) {
                    Some(Transient::Locked) => StoreError::Locked(text),
                    Some(Transient::Busy) => StoreError::Busy(text),
                    Some(Transient::Unavailable) => StoreError::Unavailable(text),
                    None => StoreError::Internal(text),
                }
            }
        }
    }
}

/// The text the seat check raises for a deleted account (both migrations).
const ACCOUNT_DELETED: &str = "racko: the account is deleted";

/// Whether a broken foreign key is one to `accounts`. PostgreSQL names the constraint
/// (`game_seats_account_id_fkey`, `games_created_by_fkey`, …); SQLite names none, and there
/// an account is the only row a request's write can find missing.
fn names_an_account(constraint: Option<&str>, message: &str) -> bool {
    match constraint {
        Some(name) => ["account_id", "created_by", "actor"]
            .iter()
            .any(|column| name.contains(column)),
        None => message.contains("FOREIGN KEY constraint failed"),
    }
}

/// Values a client can send that PostgreSQL refuses but that pass our own checks: a NUL
/// character in a text (SQLSTATE 22021) or a time outside its range (22008). They are the
/// client's fault, so they must not answer 500. Diesel gives the message, not the SQLSTATE.
fn is_bad_client_value(message: &str) -> bool {
    [
        "invalid byte sequence for encoding",
        "timestamp out of range",
        "date/time field value out of range",
        "date out of range",
    ]
    .iter()
    .any(|needle| message.contains(needle))
}

enum Transient {
    Locked,
    Busy,
    Unavailable,
}

/// Failures that pass: the client may try again and should be told so (503/409 with
/// Retry-After), not given a 500. Diesel gives the message, not the SQLSTATE, and libpq's and
/// SQLite's texts are what identify them.
fn transient(message: &str) -> Option<Transient> {
    let has = |needles: &[&str]| needles.iter().any(|n| message.contains(n));
    if has(&[
        "due to lock timeout",      // PostgreSQL lock_timeout (55P03)
        "could not obtain lock",    // PostgreSQL NOWAIT (55P03)
        "database is locked",       // SQLite busy_timeout ran out
        "database table is locked", // SQLite
    ]) {
        Some(Transient::Locked)
    } else if has(&[
        "due to statement timeout", // PostgreSQL statement_timeout (57014)
        "deadlock detected",        // PostgreSQL 40P01: the other transaction went on
        "could not serialize",      // PostgreSQL 40001
    ]) {
        Some(Transient::Busy)
    } else if has(&[
        "server closed the connection",
        "terminating connection",
        "connection to server",
        "could not connect",
        "no connection to the server",
        "Connection refused",
        "the database system is",  // starting up, shutting down, in recovery
        "cannot execute",          // … in a read-only transaction (a standby)
        "could not extend file",   // PostgreSQL: disk full
        "No space left on device", // PostgreSQL
        "database or disk is full", // SQLite
        "disk I/O error",          // SQLite
        "unable to open database", // SQLite: the file went away
        "attempt to write a readonly database", // SQLite
        "SSL SYSCALL error",
        "SSL connection has been closed",
    ]) {
        Some(Transient::Unavailable)
    } else {
        None
    }
}

/// Names the uniqueness rule a violation broke. PostgreSQL reports the constraint's name
/// (named in the migrations); SQLite only says "UNIQUE constraint failed: table.column, …".
/// Either text holds the table or column name looked for here.
fn unique_rule(constraint: Option<&str>, message: &str) -> Option<Conflict> {
    let text = format!("{} {message}", constraint.unwrap_or_default());
    [
        ("idempotency_keys", Conflict::IdempotencyKeyTaken),
        ("game_seats", Conflict::SeatTaken),
        ("invite_code", Conflict::InviteCodeTaken),
        ("username", Conflict::UsernameTaken),
        ("settings", Conflict::SettingTaken),
    ]
    .into_iter()
    .find(|(needle, _)| text.contains(needle))
    .map(|(_, code)| code)
}

/// A value read from the database that does not decode (bad JSON, an unknown status, …).
pub(crate) fn bad_data(what: &str, e: impl std::fmt::Display) -> StoreError {
    StoreError::Internal(format!("bad {what} in the database: {e}"))
}

#[cfg(test)]
mod tests {
    use super::{unique_rule, Conflict};

    #[test]
    fn passing_failures_are_told_apart_from_bugs() {
        use super::{transient, Transient};
        let locked = "canceling statement due to lock timeout";
        assert!(matches!(transient(locked), Some(Transient::Locked)));
        assert!(matches!(
            transient("database is locked"),
            Some(Transient::Locked)
        ));
        let slow = "canceling statement due to statement timeout";
        assert!(matches!(transient(slow), Some(Transient::Busy)));
        let gone = "server closed the connection unexpectedly";
        assert!(matches!(transient(gone), Some(Transient::Unavailable)));
        let full = "database or disk is full";
        assert!(matches!(transient(full), Some(Transient::Unavailable)));
        assert!(transient("syntax error at or near \"SELEC\"").is_none());
    }

    #[test]
    fn names_the_rule_from_either_backend() {
        let pg = "duplicate key value violates unique constraint \"games_invite_code_key\"";
        assert_eq!(
            unique_rule(Some("games_invite_code_key"), pg),
            Some(Conflict::InviteCodeTaken)
        );
        let sqlite = "UNIQUE constraint failed: game_seats.game_id, game_seats.account_id";
        assert_eq!(unique_rule(None, sqlite), Some(Conflict::SeatTaken));
        assert_eq!(
            unique_rule(None, "UNIQUE constraint failed: accounts.username_lower"),
            Some(Conflict::UsernameTaken)
        );
        assert_eq!(
            unique_rule(None, "UNIQUE constraint failed: games.id"),
            None
        );
    }
}
