//! Diesel's errors as store errors: a broken uniqueness rule becomes a `Conflict` with a stable
//! code; everything else is `Internal` with the cause's text (for the log).

use diesel::result::{DatabaseErrorKind, Error};

use super::StoreError;
use crate::error::Code;

impl From<Error> for StoreError {
    fn from(e: Error) -> StoreError {
        match &e {
            Error::NotFound => StoreError::NotFound,
            Error::DatabaseError(DatabaseErrorKind::UniqueViolation, info) => {
                match unique_rule(info.constraint_name(), info.message()) {
                    Some(code) => StoreError::Conflict(code),
                    None => StoreError::Internal(e.to_string()),
                }
            }
            Error::DatabaseError(_, info) if is_bad_client_value(info.message()) => {
                StoreError::BadInput(Code::InvalidValue)
            }
            _ => StoreError::Internal(e.to_string()),
        }
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

impl From<diesel::r2d2::PoolError> for StoreError {
    fn from(e: diesel::r2d2::PoolError) -> StoreError {
        StoreError::Internal(format!("no database connection: {e}"))
    }
}

/// Names the uniqueness rule a violation broke. PostgreSQL reports the constraint's name
/// (named in the migrations); SQLite only says "UNIQUE constraint failed: table.column, …".
/// Either text holds the table or column name looked for here.
fn unique_rule(constraint: Option<&str>, message: &str) -> Option<Code> {
    let text = format!("{} {message}", constraint.unwrap_or_default());
    [
        ("idempotency_keys", Code::IdempotencyKeyTaken),
        ("game_seats", Code::SeatTaken),
        ("invite_code", Code::InviteCodeTaken),
        ("username", Code::UsernameTaken),
        ("settings", Code::SettingTaken),
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
    use super::unique_rule;
    use crate::error::Code;

    #[test]
    fn names_the_rule_from_either_backend() {
        let pg = "duplicate key value violates unique constraint \"games_invite_code_key\"";
        assert_eq!(
            unique_rule(Some("games_invite_code_key"), pg),
            Some(Code::InviteCodeTaken)
        );
        let sqlite = "UNIQUE constraint failed: game_seats.game_id, game_seats.account_id";
        assert_eq!(unique_rule(None, sqlite), Some(Code::SeatTaken));
        assert_eq!(
            unique_rule(None, "UNIQUE constraint failed: accounts.username_lower"),
            Some(Code::UsernameTaken)
        );
        assert_eq!(
            unique_rule(None, "UNIQUE constraint failed: games.id"),
            None
        );
    }
}
