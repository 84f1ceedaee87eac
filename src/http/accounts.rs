//! Account endpoints: register, sign in, guests, guest upgrade, and "me".

use actix_web::{
    http::{header, StatusCode},
    middleware::from_fn,
    web, HttpRequest, HttpResponse,
};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::{
    auth::CurrentUser,
    error::ServiceError,
    http::AppState,
    http::{
        extract::{optional_json, Json},
        sessions::open_session,
        throttle,
    },
    service::accounts::{self, Password, Username},
    service::sessions::Opened,
    store::{Account, Role},
};

pub fn configure(cfg: &mut web::ServiceConfig) {
    // The credential routes are limited per client address (see `throttle`).
    let limited = |path| web::resource(path).wrap(from_fn(throttle::limit));
    cfg.service(limited("/v1/accounts").route(web::post().to(register)))
        .service(limited("/v1/sessions").route(web::post().to(login)))
        .service(limited("/v1/guests").route(web::post().to(create_guest)))
        .service(
            web::resource("/v1/accounts/me")
                .route(web::get().to(me))
                // It checks a password: limited like the other credential routes.
                .route(web::delete().to(delete_me).wrap(from_fn(throttle::limit))),
        )
        .service(web::resource("/v1/accounts/me/tokens").route(web::delete().to(revoke_tokens)))
        .configure(super::sessions::configure)
        .service(limited("/v1/accounts/me/upgrade").route(web::post().to(upgrade)));
}

/// A username and a password.
// Debug leaves the password out.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"username": "alice", "password": "correct horse battery"}))]
pub struct Credentials {
    /// 3 to 32 characters: letters, digits, `_` and `-`; not starting with `guest-`.
    #[schema(
        example = "alice",
        min_length = 3,
        max_length = 32,
        pattern = "^(?![Gg][Uu][Ee][Ss][Tt]-)[A-Za-z0-9_-]{3,32}$"
    )]
    pub username: String,
    /// 8 to 128 characters.
    #[schema(
        example = "correct horse battery",
        format = Password,
        min_length = 8,
        max_length = 128
    )]
    pub password: String,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("username", &self.username)
            .finish_non_exhaustive()
    }
}

impl Credentials {
    fn parse(self) -> Result<(Username, Password), ServiceError> {
        Ok((
            Username::parse(&self.username)?,
            Password::parse(self.password)?,
        ))
    }
}

/// The optional body of `POST /v1/guests` (no fields yet).
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({}))]
pub struct GuestRequest {}

#[derive(Clone, Copy, Debug, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum AccountRole {
    Player,
    Admin,
}

/// An account as its owner sees it.
#[derive(Debug, Serialize, ToSchema)]
pub struct AccountView {
    pub id: Uuid,
    pub username: String,
    pub role: AccountRole,
    /// A guest has no password until upgraded.
    pub guest: bool,
    pub created_at: DateTime<Utc>,
}

impl From<Role> for AccountRole {
    fn from(role: Role) -> AccountRole {
        match role {
            Role::Player => AccountRole::Player,
            Role::Admin => AccountRole::Admin,
        }
    }
}

impl From<&Account> for AccountView {
    fn from(a: &Account) -> AccountView {
        AccountView {
            id: a.id,
            username: a.username.clone(),
            role: a.role.into(),
            guest: a.guest,
            created_at: a.created_at,
        }
    }
}

/// The extractor has just read the account from the store: no second read.
impl From<&CurrentUser> for AccountView {
    fn from(u: &CurrentUser) -> AccountView {
        AccountView {
            id: u.id,
            username: u.username.clone(),
            role: u.role.into(),
            guest: u.guest,
            created_at: u.created_at,
        }
    }
}

/// An account signed in: a short-lived access token and the session's refresh token.
// Debug by hand, without the tokens.
#[derive(Serialize, ToSchema)]
pub struct AuthResponse {
    pub account: AccountView,
    /// The access token: send as `Authorization: Bearer <token>`. It expires at `expires_at`
    /// (`RACKO_TOKEN_TTL_SECS`, 15 minutes by default); then get the next one from
    /// `POST /v1/sessions/refresh`.
    pub token: String,
    pub expires_at: DateTime<Utc>,
    /// Exchange it once at `POST /v1/sessions/refresh` for a new access token and a new
    /// refresh token; a refresh token sent a second time ends the session. Keep it secret.
    #[schema(min_length = 68, max_length = 68, pattern = "^rt1_[A-Za-z0-9_-]{64}$")]
    pub refresh_token: String,
    /// The session ends unless refreshed by then (`RACKO_SESSION_TTL_SECS`, 90 days by
    /// default); each refresh moves it forward.
    pub refresh_expires_at: DateTime<Utc>,
    /// This device's session, as `GET /v1/accounts/me/sessions` lists it.
    pub session_id: Uuid,
}

impl std::fmt::Debug for AuthResponse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthResponse")
            .field("account", &self.account)
            .field("expires_at", &self.expires_at)
            .field("session_id", &self.session_id)
            .finish_non_exhaustive()
    }
}

/// The answer carrying fresh tokens, `status` 200 or 201. `no-store`: a token must not sit in
/// a cache (RFC 6749 §5.1).
pub fn signed_in(
    state: &AppState,
    opened: Opened,
    status: StatusCode,
) -> Result<HttpResponse, ServiceError> {
    let (token, expires_at) = state.tokens.issue(&opened.account, opened.session.id)?;
    Ok(HttpResponse::build(status)
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(AuthResponse {
            account: (&opened.account).into(),
            token,
            expires_at,
            refresh_token: opened.refresh_token,
            refresh_expires_at: opened.session.expires_at,
            session_id: opened.session.id,
        }))
}

/// Register an account.
#[utoipa::path(post, path = "/v1/accounts", tag = "accounts", request_body = Credentials,
    responses(
        (status = 201, description = "Registered and signed in", body = AuthResponse),
        (status = 409, description = "`username_taken`"),
        (status = 422, description = "`invalid_username`, `invalid_password`"),
        (status = 429, description = "`rate_limited`: too many tries from this address",
            headers(("Retry-After" = u64, description = "Seconds until the next try is allowed"))),
    ))]
pub async fn register(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: Json<Credentials>,
) -> Result<HttpResponse, ServiceError> {
    let (username, password) = body.into_inner().parse()?;
    let account = accounts::register(&state.service, username, password, Role::Player).await?;
    let opened = open_session(&state, &req, account).await?;
    signed_in(&state, opened, StatusCode::CREATED)
}

/// Sign in with a username and password.
#[utoipa::path(post, path = "/v1/sessions", tag = "accounts", request_body = Credentials,
    responses(
        (status = 200, description = "Signed in", body = AuthResponse),
        (status = 401, description = "`invalid_credentials`"),
        (status = 429, description = "`rate_limited`: too many tries from this address",
            headers(("Retry-After" = u64, description = "Seconds until the next try is allowed"))),
    ))]
pub async fn login(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: Json<Credentials>,
) -> Result<HttpResponse, ServiceError> {
    let Credentials { username, password } = body.into_inner();
    let account = accounts::login(&state.service, username, password).await?;
    let opened = open_session(&state, &req, account).await?;
    signed_in(&state, opened, StatusCode::OK)
}

/// Create a guest account (no password) and sign it in. The body is optional.
#[utoipa::path(post, path = "/v1/guests", tag = "accounts",
    request_body(content = Option<GuestRequest>, description = "Optional; `{}`"),
    responses(
        (status = 201, description = "A new guest, signed in", body = AuthResponse),
        (status = 429, description = "`rate_limited`: too many tries from this address",
            headers(("Retry-After" = u64, description = "Seconds until the next try is allowed"))),
    ))]
pub async fn create_guest(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, ServiceError> {
    let GuestRequest {} = optional_json(&req, &body)?;
    let account = accounts::create_guest(&state.service).await?;
    let opened = open_session(&state, &req, account).await?;
    signed_in(&state, opened, StatusCode::CREATED)
}

/// The signed-in account.
#[utoipa::path(get, path = "/v1/accounts/me", tag = "accounts",
    security(("bearer" = [])),
    responses((status = 200, description = "The account", body = AccountView)))]
pub async fn me(user: CurrentUser) -> web::Json<AccountView> {
    web::Json((&user).into())
}

/// The body of `DELETE /v1/accounts/me`: the password of a registered account; a guest
/// sends none (or `{}`).
// Debug leaves the password out.
#[derive(Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"password": "correct horse battery"}))]
pub struct DeleteAccount {
    /// The account's password; a guest sends none.
    #[schema(format = Password)]
    pub password: Option<String>,
}

impl std::fmt::Debug for DeleteAccount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeleteAccount").finish_non_exhaustive()
    }
}

/// Delete the signed-in account for good. Its active games are resigned (R10.3), the open
/// games it created cancelled and those it joined left; then every token is revoked and the
/// username and password hash erased: the name becomes `deleted-player-` and hex digits, and
/// the old name is free to register. Finished games keep the name their seats were played
/// under, so their exports still verify. A registered account sends its password; a guest
/// needs no body.
#[utoipa::path(delete, path = "/v1/accounts/me", tag = "accounts",
    security(("bearer" = [])),
    request_body(content = Option<DeleteAccount>, description = "`{\"password\": \"…\"}`; optional for a guest"),
    responses(
        (status = 204, description = "Deleted: the token no longer works"),
        (status = 400, description = "`invalid_json`"),
        (status = 401, description = "`unauthorized`, `invalid_credentials` (a wrong or missing password)"),
        (status = 422, description = "`invalid_body`"),
        (status = 429, description = "`rate_limited`: too many tries from this address",
            headers(("Retry-After" = u64, description = "Seconds until the next try is allowed"))),
    ))]
pub async fn delete_me(
    state: web::Data<AppState>,
    user: CurrentUser,
    req: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, ServiceError> {
    let DeleteAccount { password } = optional_json(&req, &body)?;
    accounts::delete_account(&state.service, &user, password).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Sign out everywhere: every session of this account ends, and every token issued so far,
/// this one included, stops working. A guest has no password to sign in again with, so this
/// ends a guest account's use.
#[utoipa::path(delete, path = "/v1/accounts/me/tokens", tag = "accounts",
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Every token issued so far is revoked"),
        (status = 401, description = "`unauthorized`"),
    ))]
pub async fn revoke_tokens(
    state: web::Data<AppState>,
    user: CurrentUser,
) -> Result<HttpResponse, ServiceError> {
    accounts::sign_out_everywhere(&state.service, user.id).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Turn the signed-in guest into a registered account. The guest's sessions end (whoever held
/// a guest token would otherwise keep the account); the answer opens a new one.
#[utoipa::path(post, path = "/v1/accounts/me/upgrade", tag = "accounts",
    security(("bearer" = [])),
    request_body(content = Credentials,
        example = json!({"username": "bob", "password": "correct horse battery"})),
    responses(
        (status = 200, description = "Upgraded and signed in again", body = AuthResponse),
        (status = 409, description = "`not_a_guest`, `username_taken`"),
        (status = 422, description = "`invalid_username`, `invalid_password`"),
        (status = 429, description = "`rate_limited`: too many tries from this address",
            headers(("Retry-After" = u64, description = "Seconds until the next try is allowed"))),
    ))]
pub async fn upgrade(
    state: web::Data<AppState>,
    user: CurrentUser,
    req: HttpRequest,
    body: Json<Credentials>,
) -> Result<HttpResponse, ServiceError> {
    let (username, password) = body.into_inner().parse()?;
    let account = accounts::upgrade_guest(&state.service, &user, username, password).await?;
    let opened = open_session(&state, &req, account).await?;
    signed_in(&state, opened, StatusCode::OK)
}
