//! Audit endpoints: replay as of an event, export, verify (whoever may see the game, as R8
//! allows), and the admin's queries across games (role admin, else 403 `admin_only`).

use actix_web::{http::header, web, HttpResponse};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use super::helpers::{caller, EventCursor};
use crate::{
    auth::CurrentUser,
    error::{Code, ServiceError},
    http::AppState,
    service::audit::{
        export::{self, GameExport},
        queries::{self, AuditEventPage, EventFilter, PlayerHistory},
        replay::{self, ReplayView},
        verify::{self, VerifyReport},
    },
    store::GameStatus,
    store::Role,
};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/v1/games/{id}/replay").route(web::get().to(replay_game)))
        .service(web::resource("/v1/games/{id}/export").route(web::get().to(export_game)))
        .service(web::resource("/v1/games/{id}/verify").route(web::get().to(verify_game)))
        .service(web::resource("/v1/admin/events").route(web::get().to(admin_events)))
        .service(
            web::resource("/v1/admin/players/{player}/games").route(web::get().to(admin_history)),
        );
}

#[derive(Debug, Deserialize, Serialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ReplayQuery {
    /// The state after this event (0: before the first); default the last event. At most
    /// the game's last seq (else 400 `invalid_seq`).
    #[param(minimum = 0)]
    pub seq: Option<i64>,
}

/// The game as it stood after event `seq`, rebuilt from the stored log by the rules and shown
/// as the caller may see it: during the game a player sees what he could see then, others the
/// public view; after the game everyone sees everything (R8.2).
#[utoipa::path(get, path = "/v1/games/{id}/replay", tag = "audit",
    params(("id" = Uuid, Path, description = "The game"), ReplayQuery),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The replayed state", body = ReplayView),
        (status = 400, description = "`invalid_seq`, `invalid_query`"),
        (status = 401, description = "`unauthorized`"),
        (status = 404, description = "`game_not_found`"),
        (status = 409, description = "`unknown_rules_version`"),
    ))]
pub async fn replay_game(
    state: web::Data<AppState>,
    user: CurrentUser,
    id: web::Path<Uuid>,
    query: web::Query<ReplayQuery>,
) -> Result<web::Json<ReplayView>, ServiceError> {
    let (caller, id, seq) = (caller(&user), id.into_inner(), query.seq);
    let view = state
        .db(move |store| replay::replay_view(store, &caller, id, seq))
        .await?;
    Ok(web::Json(view))
}

/// The game's record as one versioned JSON document (`racko-game-export` version 1). Complete
/// once the game has ended; before, it holds only what the caller may see.
#[utoipa::path(get, path = "/v1/games/{id}/export", tag = "audit",
    params(("id" = Uuid, Path, description = "The game")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The export document", body = GameExport),
        (status = 401, description = "`unauthorized`"),
        (status = 404, description = "`game_not_found`"),
        (status = 409, description = "`unknown_rules_version`"),
    ))]
pub async fn export_game(
    state: web::Data<AppState>,
    user: CurrentUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ServiceError> {
    let (caller, id) = (caller(&user), id.into_inner());
    let doc = state
        .db(move |store| export::export_game(store, &caller, id))
        .await?;
    Ok(HttpResponse::Ok()
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("inline; filename=\"racko-{id}.json\""),
        ))
        .json(doc))
}

/// The outcome of verifying a stored game.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct VerifyResult {
    pub verified: bool,
    /// What was checked, when verified.
    pub report: Option<VerifyReport>,
    /// The first discrepancy, when not.
    pub discrepancy: Option<String>,
}

/// Verifies a finished game's record as `racko verify` does: seeds against commitments, decks,
/// every action replayed through the rules, scores, totals and winners.
#[utoipa::path(get, path = "/v1/games/{id}/verify", tag = "audit",
    params(("id" = Uuid, Path, description = "The game")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The verification result", body = VerifyResult),
        (status = 401, description = "`unauthorized`"),
        (status = 404, description = "`game_not_found`"),
        (status = 409, description = "`game_not_finished`, `unknown_rules_version`"),
    ))]
pub async fn verify_game(
    state: web::Data<AppState>,
    user: CurrentUser,
    id: web::Path<Uuid>,
) -> Result<web::Json<VerifyResult>, ServiceError> {
    let (caller, id) = (caller(&user), id.into_inner());
    let doc = state
        .db(move |store| export::export_game(store, &caller, id))
        .await?;
    if doc.status != GameStatus::Finished || !doc.complete {
        return Err(ServiceError::new(
            Code::GameNotFinished,
            "only a finished game's complete record can be verified",
        ));
    }
    // Replaying a long game is CPU work: off the async workers.
    let outcome = web::block(move || verify::verify(&doc))
        .await
        .map_err(ServiceError::internal)?;
    Ok(web::Json(match outcome {
        Ok(report) => VerifyResult {
            verified: true,
            report: Some(report),
            discrepancy: None,
        },
        Err(e) => VerifyResult {
            verified: false,
            report: None,
            discrepancy: Some(e.message().to_string()),
        },
    }))
}

/// `CurrentUser` has the role as the store has it now, not as the token says.
pub(crate) fn require_admin(user: &CurrentUser) -> Result<(), ServiceError> {
    if user.role == Role::Admin {
        Ok(())
    } else {
        Err(ServiceError::new(
            Code::AdminOnly,
            "this needs an admin account",
        ))
    }
}

#[derive(Debug, Deserialize, Serialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AdminEventsQuery {
    /// Events caused by this player: an account id or a username.
    pub player: Option<String>,
    /// Events of this kind, e.g. `drew`, `round_ended`, `player_joined`.
    pub kind: Option<String>,
    pub game: Option<Uuid>,
    /// At or after this time (RFC 3339).
    pub from: Option<DateTime<Utc>>,
    /// Before this time (RFC 3339).
    pub to: Option<DateTime<Utc>>,
    /// 1 to 500, default 100.
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
    /// `next_cursor` of the previous page.
    pub cursor: Option<EventCursor>,
}

/// Events across games, oldest first by (time, game, seq), with a stable cursor. Admins only.
#[utoipa::path(get, path = "/v1/admin/events", tag = "audit", params(AdminEventsQuery),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "A page of events", body = AuditEventPage),
        (status = 400, description = "`invalid_query`, `invalid_limit`, `invalid_cursor`, `invalid_time_range`"),
        (status = 401, description = "`unauthorized`"),
        (status = 403, description = "`admin_only`"),
        (status = 404, description = "`player_not_found`"),
    ))]
pub async fn admin_events(
    state: web::Data<AppState>,
    user: CurrentUser,
    query: web::Query<AdminEventsQuery>,
) -> Result<web::Json<AuditEventPage>, ServiceError> {
    require_admin(&user)?;
    let (caller, q) = (caller(&user), query.into_inner());
    let filter = EventFilter {
        player: q.player,
        kind: q.kind,
        game: q.game,
        from: q.from,
        to: q.to,
        limit: q.limit,
        cursor: q.cursor.map(|c| c.0),
    };
    let page = state
        .db(move |store| queries::events(store, &caller, filter))
        .await?;
    Ok(web::Json(page))
}

#[derive(Debug, Deserialize, Serialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct HistoryQuery {
    /// 1 to 100, default 100.
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<i64>,
    /// `next_cursor` of the previous page.
    pub cursor: Option<EventCursor>,
}

/// A player's games, newest first, with seat, totals and winners. Admins only.
#[utoipa::path(get, path = "/v1/admin/players/{player}/games", tag = "audit",
    params(("player" = String, Path, description = "An account id or a username"), HistoryQuery),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "A page of the player's games", body = PlayerHistory),
        (status = 400, description = "`invalid_query`, `invalid_limit`, `invalid_cursor`"),
        (status = 401, description = "`unauthorized`"),
        (status = 403, description = "`admin_only`"),
        (status = 404, description = "`player_not_found`"),
    ))]
pub async fn admin_history(
    state: web::Data<AppState>,
    user: CurrentUser,
    player: web::Path<String>,
    query: web::Query<HistoryQuery>,
) -> Result<web::Json<PlayerHistory>, ServiceError> {
    require_admin(&user)?;
    let (player, q) = (player.into_inner(), query.into_inner());
    let history = state
        .db(move |store| queries::history(store, &player, q.limit, q.cursor.map(|c| c.0)))
        .await?;
    Ok(web::Json(history))
}
