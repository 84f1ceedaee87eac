//! The store's errors in the API's words: each conflict and bad input has its stable code,
//! passing faults answer 503 with `Retry-After`, and the rest is logged and answers 500.

use crate::error::{Code, ServiceError};
use crate::store::{BadInput, Conflict, StoreError};

impl From<StoreError> for ServiceError {
    fn from(e: StoreError) -> ServiceError {
        match e {
            StoreError::NotFound => ServiceError::new(Code::NotFound, "no such resource"),
            StoreError::AccountGone => {
                ServiceError::unauthorized("the account was deleted or its tokens were revoked")
            }
            StoreError::Conflict(conflict) => said(conflict_code(conflict)),
            StoreError::BadInput(bad) => said(bad_input_code(bad)),
            StoreError::StaleVersion { current } => ServiceError::stale_version(current),
            StoreError::Locked(cause) | StoreError::Busy(cause) => {
                tracing::warn!(error = %cause, "database busy");
                ServiceError {
                    retry_after: Some(1),
                    ..ServiceError::new(Code::Busy, "the database is busy; try again in a moment")
                }
            }
            StoreError::Unavailable(cause) => {
                tracing::warn!(error = %cause, "database unavailable");
                ServiceError {
                    retry_after: Some(2),
                    ..ServiceError::new(
                        Code::StoreUnavailable,
                        "the database is unavailable; nothing was changed, try again shortly",
                    )
                }
            }
            StoreError::Internal(_) => ServiceError::internal(e),
        }
    }
}

/// The code a client is told for a broken uniqueness rule or limit.
pub fn conflict_code(conflict: Conflict) -> Code {
    match conflict {
        Conflict::UsernameTaken => Code::UsernameTaken,
        Conflict::InviteCodeTaken => Code::InviteCodeTaken,
        Conflict::IdempotencyKeyTaken => Code::IdempotencyKeyTaken,
        Conflict::SeatTaken => Code::SeatTaken,
        Conflict::SettingTaken => Code::SettingTaken,
        Conflict::RematchExists => Code::RematchExists,
        Conflict::NotAGuest => Code::NotAGuest,
        Conflict::TooManyDevices => Code::TooManyDevices,
        Conflict::TooManySeeks => Code::TooManySeeks,
        Conflict::SeekTaken => Code::SeekClosed,
    }
}

fn bad_input_code(bad: BadInput) -> Code {
    match bad {
        BadInput::InvalidCursor => Code::InvalidCursor,
        BadInput::InvalidValue => Code::InvalidValue,
        BadInput::ExplainNeedsPostgres => Code::ExplainNeedsPostgres,
    }
}

/// The code with its own words as the detail.
fn said(code: Code) -> ServiceError {
    ServiceError::new(code, code.as_str().replace('_', " "))
}
