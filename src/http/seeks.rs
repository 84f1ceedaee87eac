//! The seek pool: the caller's seeks for an opponent.

use actix_web::{web, HttpResponse};
use uuid::Uuid;

use super::extract::Json;
use super::helpers::caller;
use crate::{
    auth::CurrentUser,
    error::ServiceError,
    http::AppState,
    service::seeks::{self, SeekList, SeekRequest, SeekView},
};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/v1/seeks")
            .route(web::post().to(create_seek))
            .route(web::get().to(list_seeks)),
    )
    .service(
        web::resource("/v1/seeks/{id}")
            .route(web::get().to(get_seek))
            .route(web::delete().to(cancel_seek)),
    );
}

/// Seek an opponent: the seek waits in its pool (equal options and `rated`) until enough
/// compatible seekers are there, then the oldest compatible seeks are seated in a new game
/// that starts at once; each player gets `game_started` in the account feed. Two seeks are
/// compatible when neither seeker blocks the other and each one's rating is in the other's
/// `rating_range`. Answered `matched` (with `game_id`) when partners were waiting, else
/// `open`. At most 5 open seeks per account; a seek expires after `expires_in`. Guests seek
/// casual games only.
#[utoipa::path(post, path = "/v1/seeks", tag = "lobby", request_body = SeekRequest,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "The seek: `open`, or `matched` with its game", body = SeekView),
        (status = 400, description = "`invalid_json`"),
        (status = 401, description = "`unauthorized`"),
        (status = 403, description = "`rated_needs_account`: a guest asked for a rated game"),
        (status = 409, description = "`too_many_seeks` (5 open)"),
        (status = 422, description = "`invalid_body`, `invalid_options`, `invalid_rating_range`, `invalid_seek_expiry`"),
    ))]
pub async fn create_seek(
    state: web::Data<AppState>,
    user: CurrentUser,
    body: Json<SeekRequest>,
) -> Result<HttpResponse, ServiceError> {
    let (caller, guest, body) = (caller(&user), user.guest, body.into_inner());
    let seek = state
        .db(move |s| seeks::create(s, &caller, guest, &body))
        .await?;
    Ok(HttpResponse::Created().json(seek))
}

/// The caller's seeks, newest first: the open ones and those that ended within the last day.
#[utoipa::path(get, path = "/v1/seeks", tag = "lobby",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "At most 50 seeks", body = SeekList),
        (status = 401, description = "`unauthorized`"),
    ))]
pub async fn list_seeks(
    state: web::Data<AppState>,
    user: CurrentUser,
) -> Result<HttpResponse, ServiceError> {
    let caller = caller(&user);
    let list = state.db(move |s| seeks::list(s, &caller)).await?;
    Ok(HttpResponse::Ok().json(list))
}

/// One of the caller's seeks: `matched` ones name their game.
#[utoipa::path(get, path = "/v1/seeks/{id}", tag = "lobby",
    params(("id" = Uuid, Path, description = "The seek")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The seek", body = SeekView),
        (status = 401, description = "`unauthorized`"),
        (status = 404, description = "`seek_not_found`"),
    ))]
pub async fn get_seek(
    state: web::Data<AppState>,
    user: CurrentUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ServiceError> {
    let (caller, id) = (caller(&user), id.into_inner());
    let seek = state.db(move |s| seeks::get(s, &caller, id)).await?;
    Ok(HttpResponse::Ok().json(seek))
}

/// Cancel one of the caller's open seeks.
#[utoipa::path(delete, path = "/v1/seeks/{id}", tag = "lobby",
    params(("id" = Uuid, Path, description = "The seek")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The seek, `cancelled`", body = SeekView),
        (status = 401, description = "`unauthorized`"),
        (status = 404, description = "`seek_not_found`"),
        (status = 409, description = "`seek_closed`: matched, cancelled or expired already"),
    ))]
pub async fn cancel_seek(
    state: web::Data<AppState>,
    user: CurrentUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ServiceError> {
    let (caller, id) = (caller(&user), id.into_inner());
    let seek = state.db(move |s| seeks::cancel(s, &caller, id)).await?;
    Ok(HttpResponse::Ok().json(seek))
}
