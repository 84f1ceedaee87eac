//! Session endpoints: refreshing an access token, and the account's signed-in devices.

use actix_web::{http::header, http::StatusCode, web, HttpRequest, HttpResponse};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::{
    auth::CurrentUser,
    error::ServiceError,
    http::AppState,
    http::{accounts::signed_in, extract::Json, throttle},
    service::sessions::{self, Device, Opened},
    store::{Account, SessionRecord},
};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/v1/sessions/refresh").route(web::post().to(refresh)))
        .service(
            web::resource("/v1/accounts/me/sessions")
                .route(web::get().to(list_sessions))
                .route(web::post().to(adopt_token)),
        )
        .service(
            web::resource("/v1/accounts/me/sessions/{id}").route(web::delete().to(end_session)),
        );
}

/// Opens a session of `account` for the device making `req`.
pub async fn open_session(
    state: &AppState,
    req: &HttpRequest,
    account: Account,
) -> Result<Opened, ServiceError> {
    let device = device(state, req);
    sessions::open(&state.service, account, &device, state.config.session_ttl).await
}

/// The device making `req`, as its session records it.
fn device(state: &AppState, req: &HttpRequest) -> Device {
    Device {
        user_agent: req
            .headers()
            .get(header::USER_AGENT)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string),
        address: throttle::client_address(req, state),
    }
}

/// The body of `POST /v1/sessions/refresh`.
// Debug by hand, without the token.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({
    "refresh_token": "rt1_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
}))]
pub struct RefreshRequest {
    /// The refresh token of the last sign-in or refresh; spent by this request.
    #[schema(
        example = "rt1_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        min_length = 68,
        max_length = 68,
        pattern = "^rt1_[A-Za-z0-9_-]{64}$"
    )]
    pub refresh_token: String,
}

impl std::fmt::Debug for RefreshRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RefreshRequest").finish_non_exhaustive()
    }
}

/// Exchange a refresh token for a new access token and a new refresh token.
///
/// The refresh token sent is spent: keep the new one from the answer. The session lives
/// another `RACKO_SESSION_TTL_SECS` (90 days by default) from now, so a device that comes back
/// within that keeps its account, a guest's included. A refresh token sent a second time (it
/// may have been stolen) ends its session at once: its newer refresh token and its access
/// tokens stop working on every server, and the answer is 401 `refresh_token_reused`. So send
/// one refresh at a time per session. One exception, for an answer lost on its way: the
/// token spent by the session's last refresh, sent again within 30 seconds of that refresh,
/// is answered with a new pair (and the pair that refresh answered is spent). No bearer
/// token is needed: the access token may have expired.
#[utoipa::path(post, path = "/v1/sessions/refresh", tag = "accounts", request_body = RefreshRequest,
    responses(
        (status = 200, description = "New tokens; the session lives on", body = crate::http::accounts::AuthResponse),
        (status = 401, description = "`invalid_refresh_token` (malformed, unknown, expired, or the session ended), `refresh_token_reused` (the session is now ended)"),
        (status = 422, description = "`invalid_body`"),
    ))]
pub async fn refresh(
    state: web::Data<AppState>,
    body: Json<RefreshRequest>,
) -> Result<HttpResponse, ServiceError> {
    let token = body.into_inner().refresh_token;
    let opened = sessions::refresh(&state.service, &token, state.config.session_ttl).await?;
    signed_in(&state, opened, StatusCode::OK)
}

/// A signed-in device of the account.
#[derive(Debug, Serialize, ToSchema)]
pub struct SessionView {
    pub id: Uuid,
    /// When the device signed in.
    pub created_at: DateTime<Utc>,
    /// When it signed in or last refreshed its access token.
    pub last_used_at: DateTime<Utc>,
    /// It ends then unless refreshed before.
    pub expires_at: DateTime<Utc>,
    /// The `User-Agent` it signed in with, if any (printable characters, cut to 256).
    #[schema(max_length = 256)]
    pub user_agent: Option<String>,
    /// The network it signed in from, coarsened: an IPv4 /24 or an IPv6 /48, e.g.
    /// `203.0.113.0/24`.
    #[schema(example = "203.0.113.0/24", max_length = 64)]
    pub client_address: Option<String>,
    /// The session of the token this request was made with.
    pub current: bool,
}

/// The account's signed-in devices.
#[derive(Debug, Serialize, ToSchema)]
pub struct SessionList {
    /// The most recently used first; at most 50 (signing in again past that ends the one
    /// unused longest).
    #[schema(max_items = 50)]
    pub sessions: Vec<SessionView>,
}

impl SessionView {
    fn new(record: SessionRecord, current: Option<Uuid>) -> SessionView {
        SessionView {
            current: current == Some(record.id),
            id: record.id,
            created_at: record.created_at,
            last_used_at: record.last_used_at,
            expires_at: record.expires_at,
            user_agent: record.user_agent,
            client_address: record.client_address,
        }
    }
}

/// The account's sessions: one per signed-in device, the most recently used first.
///
/// An account holds at most 50; signing in once more ends the one unused longest. A session
/// unused for `RACKO_SESSION_TTL_SECS` (90 days by default) ends by itself.
#[utoipa::path(get, path = "/v1/accounts/me/sessions", tag = "accounts",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The live sessions", body = SessionList),
        (status = 401, description = "`unauthorized`, `token_expired`"),
    ))]
pub async fn list_sessions(
    state: web::Data<AppState>,
    user: CurrentUser,
) -> Result<HttpResponse, ServiceError> {
    let records = sessions::list(&state.service, user.id).await?;
    let sessions = records
        .into_iter()
        .map(|r| SessionView::new(r, user.session))
        .collect();
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(SessionList { sessions }))
}

/// End one of the account's sessions (sign a device out).
///
/// Its refresh token and its access tokens stop working at once, on every server, and the
/// streams they opened end. Ending the caller's own session signs the caller out.
#[utoipa::path(delete, path = "/v1/accounts/me/sessions/{id}", tag = "accounts",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The session's id")),
    responses(
        (status = 204, description = "The session has ended"),
        (status = 400, description = "`invalid_path`"),
        (status = 401, description = "`unauthorized`, `token_expired`"),
        (status = 404, description = "`session_not_found`: not a session of this account"),
    ))]
pub async fn end_session(
    state: web::Data<AppState>,
    user: CurrentUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ServiceError> {
    sessions::end(&state.service, user.id, id.into_inner()).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Open a session for a token issued before sessions existed.
///
/// Tokens from before this server version name no session; they are accepted until they
/// expire (at most 30 days after they were issued). Such a token, sent here, opens a session for its
/// device: the answer carries a refresh token, so the account (a guest's too) lives on past
/// the old token. A token that already belongs to a session is refused: refresh instead.
#[utoipa::path(post, path = "/v1/accounts/me/sessions", tag = "accounts",
    security(("bearer" = [])),
    responses(
        (status = 201, description = "A session for this device", body = crate::http::accounts::AuthResponse),
        (status = 401, description = "`unauthorized`, `token_expired`"),
        (status = 403, description = "`forbidden`: the token belongs to a session already"),
    ))]
pub async fn adopt_token(
    state: web::Data<AppState>,
    user: CurrentUser,
    req: HttpRequest,
) -> Result<HttpResponse, ServiceError> {
    let device = device(&state, &req);
    let opened = sessions::adopt(&state.service, &user, &device, state.config.session_ttl).await?;
    signed_in(&state, opened, StatusCode::CREATED)
}

#[cfg(test)]
mod tests {
    use crate::auth::refresh;

    /// The document states the refresh token's shape as `auth::refresh` makes it.
    #[test]
    fn the_documented_refresh_token_is_the_one_issued() {
        let doc = serde_json::to_value(crate::http::openapi::openapi()).expect("JSON");
        let schemas = &doc["components"]["schemas"];
        for field in [
            &schemas["RefreshRequest"]["properties"]["refresh_token"],
            &schemas["AuthResponse"]["properties"]["refresh_token"],
        ] {
            assert_eq!(field["minLength"], refresh::LENGTH);
            assert_eq!(field["maxLength"], refresh::LENGTH);
            assert_eq!(field["pattern"], refresh::PATTERN);
        }
        let example = schemas["RefreshRequest"]["properties"]["refresh_token"]["example"]
            .as_str()
            .expect("an example");
        assert!(
            refresh::parse(example).is_some(),
            "the example has the shape"
        );
    }
}
