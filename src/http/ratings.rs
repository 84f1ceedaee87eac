//! Ratings: the leaderboard of a pool and an account's public stats.

use actix_web::{web, HttpResponse};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::{
    auth::CurrentUser,
    error::ServiceError,
    http::AppState,
    service::leaderboard::{self, AccountStats, BoardQuery, Family, Leaderboard},
};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/v1/leaderboard").route(web::get().to(get_leaderboard)))
        .service(
            web::resource("/v1/accounts/{username}/stats").route(web::get().to(account_stats)),
        );
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LeaderboardQuery {
    /// The variant family: `standard` (free-for-all, default) or `partner` (two teams).
    pub family: Option<Family>,
    /// 2 to 4 for `standard` (default 2); 4 for `partner`.
    #[param(minimum = 2, maximum = 4)]
    pub players: Option<u8>,
    /// Rated games an account needs in the pool to be listed: 10 (the provisional bound,
    /// the default) to 10,000.
    #[param(minimum = 10, maximum = 10000)]
    pub min_games: Option<i32>,
    /// Places to skip: 0 to 10,000 (`next_offset` of the previous page).
    #[param(minimum = 0, maximum = 10000)]
    pub offset: Option<i64>,
    /// 1 to 100, default 50.
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<i64>,
}

/// The leaderboard of one rating pool (a variant family and a player count), highest rating
/// first. Provisional ratings (fewer than 10 rated games) and deleted accounts are left out.
#[utoipa::path(get, path = "/v1/leaderboard", tag = "ratings", params(LeaderboardQuery),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "A page of the leaderboard", body = Leaderboard),
        (status = 400, description = "`invalid_query`, `invalid_leaderboard`, `invalid_limit`"),
        (status = 401, description = "`unauthorized`"),
    ))]
pub async fn get_leaderboard(
    state: web::Data<AppState>,
    _user: CurrentUser,
    query: web::Query<LeaderboardQuery>,
) -> Result<HttpResponse, ServiceError> {
    let q = query.into_inner();
    let query = BoardQuery {
        family: q.family,
        players: q.players,
        min_games: q.min_games,
        offset: q.offset,
        limit: q.limit,
    };
    let board = state
        .db(move |s| leaderboard::leaderboard(s, &query))
        .await?;
    Ok(HttpResponse::Ok().json(board))
}

/// An account's public stats: finished games, wins, points per round and Rackos called, its
/// ratings (marked provisional below 10 rated games) and their last 50 changes.
#[utoipa::path(get, path = "/v1/accounts/{username}/stats", tag = "ratings",
    params(("username" = String, Path, description = "The account's username (case does not matter)")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The stats", body = AccountStats),
        (status = 401, description = "`unauthorized`"),
        (status = 404, description = "`player_not_found`"),
    ))]
pub async fn account_stats(
    state: web::Data<AppState>,
    _user: CurrentUser,
    username: web::Path<String>,
) -> Result<HttpResponse, ServiceError> {
    let username = username.into_inner();
    let stats = state.db(move |s| leaderboard::stats(s, &username)).await?;
    Ok(HttpResponse::Ok().json(stats))
}
