//! Play endpoints: a game as the caller sees it, actions, and the event log.

use actix_web::{http::StatusCode, web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::IntoParams;
use uuid::Uuid;

use super::extract::Json;
use super::helpers::{
    caller, conditional, idempotency_key, reply, version_of, version_tag, IdempotencyKeyHeader,
    IfMatchHeader, IfNoneMatchHeader,
};
use crate::{
    auth::CurrentUser,
    error::{Code, ServiceError},
    http::AppState,
    service::{
        self,
        hint::Hint,
        log_page::EventPage,
        play::{ActionRequest, ActionResult, ResignRequest},
        GameView, Reply,
    },
};

pub fn configure(cfg: &mut web::ServiceConfig) {
    // `/v1/games/join` is registered before `/v1/games/{id}`: actix stops at the first resource
    // whose path matches, and `{id}` would answer its POST with 405.
    super::lobby::configure_join_by_code(cfg);
    cfg.service(web::resource("/v1/games/{id}").route(web::get().to(get_game)))
        .service(web::resource("/v1/games/{id}/actions").route(web::post().to(post_action)))
        .service(web::resource("/v1/games/{id}/events").route(web::get().to(list_events)))
        .service(web::resource("/v1/games/{id}/hint").route(web::get().to(get_hint)))
        .service(web::resource("/v1/games/{id}/resign").route(web::post().to(post_resign)));
}

/// The caller's view of a game, with its legal actions. `ETag` is the game's version.
///
/// Send the `ETag` back as `If-None-Match` to get 304 (no body) while the game is unchanged.
#[utoipa::path(get, path = "/v1/games/{id}", tag = "play",
    params(("id" = Uuid, Path, description = "The game"), IfNoneMatchHeader),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The game as the caller may see it (R8)", body = GameView,
            headers(("ETag" = String, description = "The version, quoted: \"7\""))),
        (status = 304, description = "Not modified: `If-None-Match` names the current version. No body.",
            headers(("ETag" = String, description = "The version, quoted: \"7\""))),
        (status = 401, description = "`unauthorized`"),
        (status = 404, description = "`game_not_found`"),
    ))]
pub async fn get_game(
    state: web::Data<AppState>,
    user: CurrentUser,
    id: web::Path<Uuid>,
    req: HttpRequest,
) -> Result<HttpResponse, ServiceError> {
    let (caller, id) = (caller(&user), id.into_inner());
    let view = state
        .db(move |store| service::play::view(store, &caller, id))
        .await?;
    conditional(&req, Some(version_tag(view.version)), &view)
}

/// Play one action. The version comes from the body or from `If-Match`; an `Idempotency-Key`
/// makes a retry return the first answer instead of acting twice.
#[utoipa::path(post, path = "/v1/games/{id}/actions", tag = "play",
    params(
        ("id" = Uuid, Path, description = "The game"),
        IfMatchHeader,
        IdempotencyKeyHeader,
    ),
    request_body = ActionRequest,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Applied: the game after it and the new events as the caller may see them", body = ActionResult),
        (status = 400, description = "`invalid_json`, `invalid_if_match`, `version_mismatch`, `invalid_idempotency_key`"),
        (status = 401, description = "`unauthorized`"),
        (status = 403, description = "`not_a_player`"),
        (status = 404, description = "`game_not_found`"),
        (status = 409, description = "`stale_version` (with the current version), `game_not_started`, `game_cancelled`"),
        (status = 422, description = "An illegal action, with the rule's code: {action refusals}; `invalid_body`; `idempotency_key_reused`"),
        (status = 428, description = "`version_required`"),
    ))]
pub async fn post_action(
    state: web::Data<AppState>,
    user: CurrentUser,
    id: web::Path<Uuid>,
    req: HttpRequest,
    body: Json<ActionRequest>,
) -> Result<HttpResponse, ServiceError> {
    let (caller, id, body) = (caller(&user), id.into_inner(), body.into_inner());
    let version = version_of(&req, body.version)?;
    let action = body.action;
    let canonical = ActionRequest {
        version: Some(version),
        action,
    };
    let key = idempotency_key(&req, &format!("/v1/games/{id}/actions"), &canonical)?;
    let result = state
        .db(move |store| service::play::act(store, &caller, id, version, &action, key.as_ref()))
        .await;
    match &result {
        Ok(Reply::Fresh(_)) => state.metrics.action_applied(),
        Err(e) if e.code == Code::StaleVersion => state.metrics.version_conflict(),
        _ => {}
    }
    Ok(reply(result?, StatusCode::OK, |r: &ActionResult| {
        r.view.version
    }))
}

/// Resign (R10.3). With two players or Partner the game ends at once and the others win; with
/// three or four the server plays the seat to the end and it cannot win. The version comes
/// from the body or from `If-Match`; an `Idempotency-Key` makes a retry return the first answer.
#[utoipa::path(post, path = "/v1/games/{id}/resign", tag = "play",
    params(
        ("id" = Uuid, Path, description = "The game"),
        IfMatchHeader,
        IdempotencyKeyHeader,
    ),
    request_body = ResignRequest,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Resigned: the game after it and the new events as the caller may see them", body = ActionResult),
        (status = 400, description = "`invalid_json`, `invalid_if_match`, `version_mismatch`, `invalid_idempotency_key`"),
        (status = 401, description = "`unauthorized`"),
        (status = 403, description = "`not_a_player`"),
        (status = 404, description = "`game_not_found`"),
        (status = 409, description = "`stale_version` (with the current version), `game_not_started`, `game_cancelled`, `seat_resigned`, `already_resigned`"),
        (status = 422, description = "`game_over`; `invalid_body`; `idempotency_key_reused`"),
        (status = 428, description = "`version_required`"),
    ))]
pub async fn post_resign(
    state: web::Data<AppState>,
    user: CurrentUser,
    id: web::Path<Uuid>,
    req: HttpRequest,
    body: Json<ResignRequest>,
) -> Result<HttpResponse, ServiceError> {
    let (caller, id, body) = (caller(&user), id.into_inner(), body.into_inner());
    let version = version_of(&req, body.version)?;
    let canonical = ResignRequest {
        version: Some(version),
    };
    let key = idempotency_key(&req, &format!("/v1/games/{id}/resign"), &canonical)?;
    let result = state
        .db(move |store| {
            let expect = service::write::Expect::Version(version);
            service::play::resign(store, &caller, id, expect, key.as_ref())
        })
        .await?;
    Ok(reply(result, StatusCode::OK, |r: &ActionResult| {
        r.view.version
    }))
}

#[derive(Debug, Deserialize, Serialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct EventsQuery {
    /// Events with a seq above this (default 0: from the start).
    #[param(minimum = 0)]
    pub after: Option<i64>,
    /// 1 to 500, default 100.
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
    /// Long-poll: when there is no event after `after` yet, wait up to this many seconds for
    /// one (0 to 60, default 0: answer at once). Answers as soon as an event exists.
    #[param(minimum = 0, maximum = 60)]
    pub wait: Option<u64>,
}

/// The game's log after `after`, projected for the caller: players see their own cards,
/// everyone else the public facts; an ended round and a finished game are public (R8.2).
/// With `wait`, a long-poll: the answer comes when the next event is committed (on any server
/// process) or, empty, after `wait` seconds.
#[utoipa::path(get, path = "/v1/games/{id}/events", tag = "play",
    params(("id" = Uuid, Path, description = "The game"), EventsQuery, IfNoneMatchHeader),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "A page of events", body = EventPage,
            headers(("ETag" = String, description = "A hash of this page as the caller sees it"))),
        (status = 304, description = "Not modified: `If-None-Match` names this page's `ETag`. No body.",
            headers(("ETag" = String, description = "A hash of this page as the caller sees it"))),
        (status = 400, description = "`invalid_query`, `invalid_after`, `invalid_limit`, `invalid_wait`"),
        (status = 401, description = "`unauthorized`"),
        (status = 404, description = "`game_not_found`"),
        (status = 429, description = "`too_many_requests`: this account or address holds as many streams and long-polls as allowed (RACKO_STREAMS_PER_ACCOUNT, RACKO_STREAMS_PER_ADDRESS), or the server as many as it can",
            headers(("Retry-After" = u64, description = "Seconds to wait before trying again"))),
    ))]
pub async fn list_events(
    state: web::Data<AppState>,
    user: CurrentUser,
    id: web::Path<Uuid>,
    query: web::Query<EventsQuery>,
    req: HttpRequest,
) -> Result<HttpResponse, ServiceError> {
    let (caller, id, query) = (caller(&user), id.into_inner(), query.into_inner());
    let _slot = super::stream::long_poll_slot(&state, &user, &req, query.wait)?;
    let page: EventPage = service::stream::events_page(
        &state.service,
        (caller, super::helpers::session(&user)),
        id,
        query.after,
        query.limit,
        query.wait,
    )
    .await?;
    conditional(&req, None, &page)
}

/// What the best computer player would do for the caller's seat now, decided from the
/// caller's own view only (R8.1): one of the caller's legal actions, by the `expert` level. Off turn, the hint is an
/// off-turn Racko call (R4.2) when the caller's rack is in order.
#[utoipa::path(get, path = "/v1/games/{id}/hint", tag = "play",
    params(("id" = Uuid, Path, description = "The game"), IfNoneMatchHeader),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The suggested action", body = Hint,
            headers(("ETag" = String, description = "A hash of this hint"))),
        (status = 304, description = "Not modified: `If-None-Match` names this hint's `ETag`. No body.",
            headers(("ETag" = String, description = "A hash of this hint"))),
        (status = 401, description = "`unauthorized`"),
        (status = 403, description = "`not_a_player`"),
        (status = 404, description = "`game_not_found`"),
        (status = 409, description = "`not_awaited` (the seat has nothing to do now, or the game is over), `game_not_started`, `game_cancelled`"),
    ))]
pub async fn get_hint(
    state: web::Data<AppState>,
    user: CurrentUser,
    id: web::Path<Uuid>,
    req: HttpRequest,
) -> Result<HttpResponse, ServiceError> {
    let (caller, id) = (caller(&user), id.into_inner());
    let hint = state
        .db(move |store| service::hint::hint(store, &caller, id))
        .await?;
    conditional(&req, None, &hint)
}
