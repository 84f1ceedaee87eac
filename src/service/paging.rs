//! The bounds every page of a log shares (a game's events, an account's feed, a game's chat):
//! read after a seq, 1 to 500 entries at a time.

use crate::error::{Code, ServiceError};

pub const DEFAULT_LIMIT: i64 = 100;
pub const MAX_LIMIT: i64 = 500;

/// `after` (default 0) and `limit` (default [`DEFAULT_LIMIT`]) as asked, or 400
/// `invalid_after` / `invalid_limit`.
pub fn after_and_limit(after: Option<i64>, limit: Option<i64>) -> Result<(i64, i64), ServiceError> {
    let after = after.unwrap_or(0);
    if after < 0 {
        return Err(ServiceError::new(
            Code::InvalidAfter,
            "after must be 0 or more",
        ));
    }
    Ok((after, checked_limit(limit)?))
}

/// `limit` (default [`DEFAULT_LIMIT`]) as asked, or 400 `invalid_limit`.
pub fn checked_limit(limit: Option<i64>) -> Result<i64, ServiceError> {
    let limit = limit.unwrap_or(DEFAULT_LIMIT);
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(ServiceError::new(
            Code::InvalidLimit,
            format!("limit must be 1..={MAX_LIMIT}"),
        ));
    }
    Ok(limit)
}
