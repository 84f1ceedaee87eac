//! What the handlers share: the caller, the `Idempotency-Key`, the version an action is
//! decided on, and replies with an `ETag` (fresh or replayed).

use actix_web::{
    http::{header, StatusCode},
    HttpRequest, HttpResponse,
};
use serde::Serialize;

use crate::{
    auth::CurrentUser,
    error::{Code, ServiceError},
    service::{Caller, IdempotencyKey, Reply},
};

pub fn caller(user: &CurrentUser) -> Caller {
    Caller {
        id: user.id,
        username: user.username.clone(),
    }
}

/// The request's `Idempotency-Key`, bound to what is asked: method, `path` (canonical, so
/// that spellings of one id agree) and `body`. The store keys it by account as well.
pub fn idempotency_key(
    req: &HttpRequest,
    path: &str,
    body: &impl Serialize,
) -> Result<Option<IdempotencyKey>, ServiceError> {
    let Some(value) = req.headers().get("idempotency-key") else {
        return Ok(None);
    };
    let key = value.to_str().map_err(|_| {
        ServiceError::new(Code::InvalidIdempotencyKey, "Idempotency-Key must be ASCII")
    })?;
    IdempotencyKey::new(key, req.method().as_str(), path, body).map(Some)
}

/// The version the client acts on: `version` in the body or `If-Match: "7"`.
pub fn version_of(req: &HttpRequest, body: Option<i64>) -> Result<i64, ServiceError> {
    let header = match req.headers().get(header::IF_MATCH) {
        None => None,
        Some(value) => Some(
            parse_etag(value.to_str().unwrap_or_default()).ok_or_else(|| {
                ServiceError::new(
                    Code::InvalidIfMatch,
                    "If-Match must be the game's ETag, e.g. \"7\"",
                )
            })?,
        ),
    };
    match (body, header) {
        (Some(a), Some(b)) if a != b => Err(ServiceError::new(
            Code::VersionMismatch,
            "the body's version and If-Match differ",
        )),
        (Some(v), _) | (None, Some(v)) => Ok(v),
        (None, None) => Err(ServiceError::new(
            Code::VersionRequired,
            "send the version you saw: `version` in the body or If-Match",
        )),
    }
}

/// `"7"`, `W/"7"` or a bare `7`.
fn parse_etag(value: &str) -> Option<i64> {
    let value = value.trim();
    let value = value.strip_prefix("W/").unwrap_or(value);
    let value = value
        .strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .unwrap_or(value);
    value.parse().ok()
}

pub fn with_etag(
    mut builder: actix_web::HttpResponseBuilder,
    version: i64,
) -> actix_web::HttpResponseBuilder {
    builder.insert_header((header::ETAG, format!("\"{version}\"")));
    builder
}

/// A fresh answer with `status`, or the stored answer of an earlier request with the same
/// Idempotency-Key (marked `Idempotent-Replayed: true`).
pub fn reply<T: Serialize>(
    reply: Reply<T>,
    status: StatusCode,
    version: impl Fn(&T) -> i64,
) -> HttpResponse {
    match reply {
        Reply::Fresh(body) => with_etag(HttpResponse::build(status), version(&body)).json(body),
        Reply::Replayed { status, body } => {
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
            let mut builder = HttpResponse::build(status);
            // The stored answer is a game view or an action answer holding one.
            let version = body
                .get("version")
                .or_else(|| body.pointer("/view/version"));
            if let Some(version) = version.and_then(serde_json::Value::as_i64) {
                builder = with_etag(builder, version);
            }
            builder
                .insert_header(("Idempotent-Replayed", "true"))
                .json(body)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse_etag;

    #[test]
    fn etags_parse_in_their_usual_forms() {
        assert_eq!(parse_etag("\"7\""), Some(7));
        assert_eq!(parse_etag("W/\"7\""), Some(7));
        assert_eq!(parse_etag(" 12 "), Some(12));
        assert_eq!(parse_etag("*"), None);
        assert_eq!(parse_etag("\"x\""), None);
    }
}
