//! What the handlers share: the caller, the `Idempotency-Key`, the version an action is
//! decided on, and replies with an `ETag` (fresh or replayed).

use actix_web::{
    http::{
        header::{self, ContentType},
        StatusCode,
    },
    HttpRequest, HttpResponse,
};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use utoipa::openapi::{schema::Type, ObjectBuilder, RefOr, Schema};
use utoipa::{IntoParams, PartialSchema, ToSchema};

use crate::{
    auth::CurrentUser,
    error::{Code, ServiceError},
    service::{Caller, IdempotencyKey, Reply},
};

/// The `Idempotency-Key` header, declared once for the API document (`params(...)`); handlers
/// read it with [`idempotency_key`].
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Header)]
pub struct IdempotencyKeyHeader {
    /// Retry safely: the same key returns the first answer. Keys are scoped per account, not
    /// per route: a key this account already used for any other request (another route, game
    /// or body) is refused with 422 `idempotency_key_reused`. 1 to 200 visible ASCII
    /// characters (`!` to `~`, no spaces).
    #[param(
        rename = "Idempotency-Key",
        nullable = false,
        min_length = 1,
        max_length = 200,
        pattern = r"^[!-~]{1,200}$"
    )]
    pub idempotency_key: Option<String>,
}

/// The `If-None-Match` header of the GETs that answer with an `ETag`, declared once for the
/// API document; handlers answer it with [`conditional`].
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Header)]
pub struct IfNoneMatchHeader {
    /// The `ETag`s of copies the client holds (`"7"`, `W/"7"`, a comma-separated list, or
    /// `*`): when one is current the answer is 304 Not Modified with no body.
    #[param(rename = "If-None-Match", nullable = false)]
    pub if_none_match: Option<String>,
}

/// The `If-Match` header of the changes of a game, declared once for the API document;
/// handlers read it with [`version_of`].
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Header)]
pub struct IfMatchHeader {
    /// The version seen, as its ETag: `"7"`, `W/"7"` or a bare `7` (surrounding blanks are
    /// ignored). Optional when the body has `version`; when both are sent they must agree
    /// (else 400 `version_mismatch`).
    #[param(
        rename = "If-Match",
        nullable = false,
        pattern = r#"^(W/)?("[0-9]{1,18}"|[0-9]{1,18})$"#
    )]
    pub if_match: Option<String>,
}

/// A page cursor of the game lists: `next_cursor` of the previous page.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(transparent)]
pub struct GameCursor(pub String);

/// A page cursor of the audit lists: `next_cursor` of the previous page.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(transparent)]
pub struct EventCursor(pub String);

/// The hex of "<time in µs>:<game id>" and of "<time in µs>:<game id>:<seq>", as the store
/// issues them.
const GAME_CURSOR: &str = r"^(2d)?(3[0-9]){1,17}3a(3[0-9]|6[1-6]){8}2d(3[0-9]|6[1-6]){4}2d(3[0-9]|6[1-6]){4}2d(3[0-9]|6[1-6]){4}2d(3[0-9]|6[1-6]){12}$";
const EVENT_CURSOR: &str = r"^(2d)?(3[0-9]){1,17}3a(3[0-9]|6[1-6]){8}2d(3[0-9]|6[1-6]){4}2d(3[0-9]|6[1-6]){4}2d(3[0-9]|6[1-6]){4}2d(3[0-9]|6[1-6]){12}3a(2d)?(3[0-9]){1,18}$";

fn cursor_schema(pattern: &str) -> RefOr<Schema> {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .description(Some(
            "Opaque: lowercase hex as the server issues it; anything else is 400 `invalid_cursor`.",
        ))
        .pattern(Some(pattern))
        .into()
}

impl PartialSchema for GameCursor {
    fn schema() -> RefOr<Schema> {
        cursor_schema(GAME_CURSOR)
    }
}

impl ToSchema for GameCursor {}

impl PartialSchema for EventCursor {
    fn schema() -> RefOr<Schema> {
        cursor_schema(EVENT_CURSOR)
    }
}

impl ToSchema for EventCursor {}

pub fn caller(user: &CurrentUser) -> Caller {
    Caller {
        id: user.id,
        username: user.username.clone(),
    }
}

/// The token behind the request, for a stream or long-poll that must end when it is revoked.
pub fn session(user: &CurrentUser) -> crate::notify::Session {
    crate::notify::Session {
        account: user.id,
        token_generation: user.token_generation,
        session: user.session,
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
    opaque(value.trim()).parse().ok()
}

/// The game's version as its entity tag: `"7"`.
pub fn version_tag(version: i64) -> String {
    format!("\"{version}\"")
}

/// A strong entity tag for a JSON body: the first 128 bits of its SHA-256, hex, quoted.
pub fn body_tag(body: &[u8]) -> String {
    let digest = Sha256::digest(body);
    format!("\"{}\"", hex::encode(&digest[..16]))
}

/// Whether `If-None-Match` names `etag` (or is `*`): then the client's copy is current. Tags are
/// compared weakly (RFC 9110 §13.1.2): `W/"7"` matches `"7"`. Several headers and
/// comma-separated lists count; an unreadable header matches nothing.
pub fn none_match(req: &HttpRequest, etag: &str) -> bool {
    let ours = opaque(etag);
    req.headers()
        .get_all(header::IF_NONE_MATCH)
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .any(|tag| tag == "*" || (!tag.is_empty() && opaque(tag) == ours))
}

/// The tag without `W/` and its quotes.
fn opaque(tag: &str) -> &str {
    let tag = tag.strip_prefix("W/").unwrap_or(tag);
    tag.strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .unwrap_or(tag)
}

/// A GET's answer that a client can revalidate: 200 with the JSON `body` and its `ETag`
/// (`etag`, or a hash of the body when None), or 304 with no body when `If-None-Match`
/// already names it. The body is per caller (R8), so shared caches must key it by the
/// token (`Vary: Authorization`) and never keep it (`private`); `no-cache` makes clients ask
/// again, with the tag, every time.
pub fn conditional<T: Serialize>(
    req: &HttpRequest,
    etag: Option<String>,
    body: &T,
) -> Result<HttpResponse, ServiceError> {
    let json = serde_json::to_vec(body).map_err(ServiceError::internal)?;
    let etag = etag.unwrap_or_else(|| body_tag(&json));
    let current = none_match(req, &etag);
    let mut builder = if current {
        HttpResponse::NotModified()
    } else {
        HttpResponse::Ok()
    };
    builder
        .insert_header((header::ETAG, etag))
        .insert_header((header::VARY, "Authorization"))
        .insert_header((header::CACHE_CONTROL, "private, no-cache"));
    Ok(if current {
        builder.finish()
    } else {
        builder.content_type(ContentType::json()).body(json)
    })
}

pub fn with_etag(
    mut builder: actix_web::HttpResponseBuilder,
    version: i64,
) -> actix_web::HttpResponseBuilder {
    builder.insert_header((header::ETAG, version_tag(version)));
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
    use super::{none_match, parse_etag};
    use actix_web::test::TestRequest;

    fn matches(headers: &[&str], etag: &str) -> bool {
        let mut req = TestRequest::get();
        for h in headers {
            req = req.append_header(("If-None-Match", *h));
        }
        none_match(&req.to_http_request(), etag)
    }

    #[test]
    fn if_none_match_takes_lists_stars_and_weak_tags() {
        assert!(matches(&["\"7\""], "\"7\""));
        assert!(matches(&["W/\"7\""], "\"7\""));
        assert!(matches(&["\"1\", W/\"7\" ,\"9\""], "\"7\""));
        assert!(matches(&["\"1\"", "\"7\""], "\"7\""));
        assert!(matches(&["*"], "\"7\""));
        assert!(!matches(&[], "\"7\""));
        assert!(!matches(&["\"8\""], "\"7\""));
        assert!(!matches(&["\"17\""], "\"7\""));
        assert!(!matches(&["\"\""], "\"7\""));
        assert!(!matches(&[""], "\"7\""));
    }

    #[test]
    fn etags_parse_in_their_usual_forms() {
        assert_eq!(parse_etag("\"7\""), Some(7));
        assert_eq!(parse_etag("W/\"7\""), Some(7));
        assert_eq!(parse_etag(" 12 "), Some(12));
        assert_eq!(parse_etag("*"), None);
        assert_eq!(parse_etag("\"x\""), None);
    }
}
