//! The one error type at the HTTP edge. Every error a client sees is an RFC 9457
//! `application/problem+json` body with a stable snake_case `code`. Internal causes are logged
//! here and never sent.

use actix_web::{http::StatusCode, HttpResponse, ResponseError};
use racko_rules::RulesError;
use serde::Serialize;
use utoipa::ToSchema;

use crate::store::StoreError;

/// The problem+json body (RFC 9457) with the project's extension members.
#[derive(Debug, Serialize, ToSchema)]
pub struct Problem {
    /// A URI naming the kind of problem: `urn:racko:problem:<code>`.
    #[serde(rename = "type")]
    pub kind: String,
    pub title: String,
    pub status: u16,
    pub detail: String,
    /// Stable machine-readable code, e.g. `not_your_turn`, `stale_version`.
    pub code: String,
    /// The game's current version, on `stale_version`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_version: Option<i64>,
}

#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub detail: String,
    pub current_version: Option<i64>,
    /// Seconds for the `Retry-After` header, on `rate_limited`.
    pub retry_after: Option<u64>,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, detail: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            detail: detail.into(),
            current_version: None,
            retry_after: None,
        }
    }
    pub fn bad_request(code: &'static str, detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, code, detail)
    }
    pub fn unauthorized(detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNAUTHORIZED, "unauthorized", detail)
    }
    pub fn forbidden(code: &'static str, detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::FORBIDDEN, code, detail)
    }
    pub fn not_found(code: &'static str, detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, code, detail)
    }
    pub fn conflict(code: &'static str, detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::CONFLICT, code, detail)
    }
    pub fn unprocessable(code: &'static str, detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, code, detail)
    }
    pub fn stale_version(current: i64) -> ApiError {
        ApiError {
            current_version: Some(current),
            ..ApiError::conflict(
                "stale_version",
                format!("the game has changed; its current version is {current}"),
            )
        }
    }
    /// 429 `rate_limited`: the client may try again after `wait` (rounded up to seconds).
    pub fn rate_limited(wait: std::time::Duration) -> ApiError {
        let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
        ApiError {
            retry_after: Some(seconds.max(1)),
            ..ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                "rate_limited",
                format!(
                    "too many tries from this address; try again in {} s",
                    seconds.max(1)
                ),
            )
        }
    }
    /// For causes a client must not see: logs `cause` and answers an opaque 500.
    pub fn internal(cause: impl std::fmt::Display) -> ApiError {
        tracing::error!(error = %cause, "internal error");
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "an internal error occurred",
        )
    }
    pub fn problem(&self) -> Problem {
        Problem {
            kind: format!("urn:racko:problem:{}", self.code),
            title: self
                .status
                .canonical_reason()
                .unwrap_or("Error")
                .to_string(),
            status: self.status.as_u16(),
            detail: self.detail.clone(),
            code: self.code.to_string(),
            current_version: self.current_version,
        }
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}: {}", self.status.as_u16(), self.code, self.detail)
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.status
    }
    fn error_response(&self) -> HttpResponse {
        let mut res = HttpResponse::build(self.status);
        res.content_type("application/problem+json");
        if self.status == StatusCode::UNAUTHORIZED {
            // RFC 6750 §3: tell the client which scheme to use.
            res.insert_header((actix_web::http::header::WWW_AUTHENTICATE, "Bearer"));
        }
        if let Some(seconds) = self.retry_after {
            res.insert_header((actix_web::http::header::RETRY_AFTER, seconds));
        }
        res.json(self.problem())
    }
}

/// An illegal action or bad options: 422 with the rule's code. Rules messages never hold
/// hidden cards (see `racko_rules::error`).
impl From<RulesError> for ApiError {
    fn from(e: RulesError) -> ApiError {
        ApiError::unprocessable(e.code(), e.to_string())
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> ApiError {
        match e {
            StoreError::NotFound => ApiError::not_found("not_found", "no such resource"),
            StoreError::Conflict(code) => ApiError::conflict(code, code.replace('_', " ")),
            StoreError::StaleVersion { current } => ApiError::stale_version(current),
            StoreError::BadInput(code) => ApiError::bad_request(code, code.replace('_', " ")),
            StoreError::Internal(_) => ApiError::internal(e),
        }
    }
}
