//! Lobby endpoints: create, join (by id or invite code), leave, the open lobby and the
//! caller's games (the play-by-mail inbox).

use actix_web::{http::StatusCode, web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use super::extract::Json;
use super::helpers::{
    caller, conditional, idempotency_key, reply, with_etag, GameCursor, IdempotencyKeyHeader,
    IfNoneMatchHeader,
};
use crate::{
    auth::CurrentUser,
    error::ServiceError,
    http::AppState,
    service::{
        self,
        invitations::Invitations,
        lists::{GamePage, MyGames, MySort},
        lobby::{CreateGame, JoinByCode},
        GameView,
    },
    store::GameStatus,
};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/v1/games")
            .route(web::get().to(list_games))
            .route(web::post().to(create_game)),
    )
    .service(web::resource("/v1/games/{id}/join").route(web::post().to(join_game)))
    .service(web::resource("/v1/games/{id}/leave").route(web::post().to(leave_game)))
    .service(web::resource("/v1/games/{id}/rematch").route(web::post().to(rematch_game)))
    .service(web::resource("/v1/games/{id}/invitations").route(web::post().to(invite_players)))
    .service(web::resource("/v1/me/games").route(web::get().to(my_games)));
}

/// Registered by `games::configure` ahead of `/v1/games/{id}` (see there).
pub fn configure_join_by_code(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/v1/games/join").route(web::post().to(join_by_code)));
}

/// Create a game; the caller takes seat 0.
///
/// Beyond each field's own bounds, the options are checked together (`invalid_options`):
/// `partner` needs 4 players, and a deck's `max_number` is at least 12 per rack and a start
/// card. Computer seats are 1 to `players` - 1, each named once (`invalid_computer_seat`).
#[utoipa::path(post, path = "/v1/games", tag = "lobby", request_body = CreateGame,
    params(IdempotencyKeyHeader),
    security(("bearer" = [])),
    responses(
        (status = 201, description = "Created; the caller sits at seat 0", body = GameView),
        (status = 400, description = "`invalid_json`, `invalid_idempotency_key`"),
        (status = 401, description = "`unauthorized`"),
        (status = 403, description = "`test_mode_disabled`; `rated_needs_account`: a guest asked for a rated game"),
        (status = 404, description = "`player_not_found`: an invited username no account has"),
        (status = 422, description = "`invalid_options`, `invalid_stacked_deck`, `invalid_computer_seat`, `rated_with_computer`, `invalid_body`, `idempotency_key_reused`"),
    ))]
pub async fn create_game(
    state: web::Data<AppState>,
    user: CurrentUser,
    req: HttpRequest,
    body: Json<CreateGame>,
) -> Result<HttpResponse, ServiceError> {
    let (caller, body) = (caller(&user), body.into_inner());
    let key = idempotency_key(&req, "/v1/games", &body)?;
    let test_mode = state.config.test_mode;
    let created = state
        .db(move |store| service::lobby::create(store, &caller, test_mode, &body, key.as_ref()))
        .await?;
    Ok(reply(created, StatusCode::CREATED, |g: &GameView| {
        g.version
    }))
}

/// Join a game by its id; the join that takes the last seat starts the game (round 1 is dealt).
#[utoipa::path(post, path = "/v1/games/{id}/join", tag = "lobby",
    params(
        ("id" = Uuid, Path, description = "The game"),
        IdempotencyKeyHeader,
    ),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Seated", body = GameView),
        (status = 400, description = "`invalid_idempotency_key`"),
        (status = 401, description = "`unauthorized`"),
        (status = 403, description = "`rated_needs_account`: a guest asked for a seat at a rated table"),
        (status = 404, description = "`game_not_found`"),
        (status = 409, description = "`already_joined`, `game_started`, `game_full`, `game_cancelled`, `seat_taken` (another joined the same seat at that moment)"),
        (status = 422, description = "`idempotency_key_reused`"),
    ))]
pub async fn join_game(
    state: web::Data<AppState>,
    user: CurrentUser,
    req: HttpRequest,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ServiceError> {
    let (caller, id) = (caller(&user), id.into_inner());
    let key = idempotency_key(&req, &format!("/v1/games/{id}/join"), &())?;
    let joined = state
        .db(move |store| service::lobby::join(store, &caller, id, key.as_ref()))
        .await?;
    Ok(reply(joined, StatusCode::OK, |g: &GameView| g.version))
}

/// Join a game by the invite code a player passed on (case does not matter).
#[utoipa::path(post, path = "/v1/games/join", tag = "lobby", request_body = JoinByCode,
    params(IdempotencyKeyHeader),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Seated", body = GameView),
        (status = 400, description = "`invalid_idempotency_key`"),
        (status = 401, description = "`unauthorized`"),
        (status = 403, description = "`rated_needs_account`: a guest asked for a seat at a rated table"),
        (status = 404, description = "`game_not_found`"),
        (status = 409, description = "`already_joined`, `game_started`, `game_full`, `game_cancelled`, `seat_taken` (another joined the same seat at that moment)"),
        (status = 422, description = "`invalid_body`, `idempotency_key_reused`"),
    ))]
pub async fn join_by_code(
    state: web::Data<AppState>,
    user: CurrentUser,
    req: HttpRequest,
    body: Json<JoinByCode>,
) -> Result<HttpResponse, ServiceError> {
    let (caller, body) = (caller(&user), body.into_inner());
    let key = idempotency_key(&req, "/v1/games/join", &body)?;
    let joined = state
        .db(move |store| {
            service::lobby::join_by_code(store, &caller, &body.invite_code, key.as_ref())
        })
        .await?;
    Ok(reply(joined, StatusCode::OK, |g: &GameView| g.version))
}

/// Leave a game before it starts. The creator leaving cancels the game.
#[utoipa::path(post, path = "/v1/games/{id}/leave", tag = "lobby",
    params(
        ("id" = Uuid, Path, description = "The game"),
        IdempotencyKeyHeader,
    ),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Left (status `cancelled` when the creator left)", body = GameView),
        (status = 400, description = "`invalid_idempotency_key`"),
        (status = 401, description = "`unauthorized`"),
        (status = 403, description = "`not_a_player`"),
        (status = 404, description = "`game_not_found`"),
        (status = 409, description = "`game_started`, `game_cancelled`"),
        (status = 422, description = "`idempotency_key_reused`"),
    ))]
pub async fn leave_game(
    state: web::Data<AppState>,
    user: CurrentUser,
    req: HttpRequest,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ServiceError> {
    let (caller, id) = (caller(&user), id.into_inner());
    let key = idempotency_key(&req, &format!("/v1/games/{id}/leave"), &())?;
    let left = state
        .db(move |store| service::lobby::leave(store, &caller, id, key.as_ref()))
        .await?;
    Ok(reply(left, StatusCode::OK, |g: &GameView| g.version))
}

/// Invite more accounts to an open game (its creator only). Invited accounts see the game
/// and may join it by id or invite code, whatever its visibility; a private game takes no
/// one else. Inviting is idempotent: accounts already invited or seated are left as they are.
#[utoipa::path(post, path = "/v1/games/{id}/invitations", tag = "lobby", request_body = Invitations,
    params(("id" = Uuid, Path, description = "The game")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The game with its invitations", body = GameView),
        (status = 400, description = "`invalid_json`"),
        (status = 401, description = "`unauthorized`"),
        (status = 403, description = "`not_the_creator`, `not_a_player`"),
        (status = 404, description = "`game_not_found`, `player_not_found`"),
        (status = 409, description = "`game_started`, `game_cancelled`, `too_many_invitations`"),
        (status = 422, description = "`invalid_body`"),
    ))]
pub async fn invite_players(
    state: web::Data<AppState>,
    user: CurrentUser,
    id: web::Path<Uuid>,
    body: Json<Invitations>,
) -> Result<HttpResponse, ServiceError> {
    let (caller, id, body) = (caller(&user), id.into_inner(), body.into_inner());
    let view = state
        .db(move |store| service::invitations::invite(store, &caller, id, &body))
        .await?;
    Ok(with_etag(HttpResponse::Ok(), view.version).json(view))
}

/// Ask for a rematch of a finished game: the same options and players. The first player to
/// ask creates it and takes seat 0 (201); computer seats are seated at once, at their old seat
/// numbers. Every later ask (the same player or another) answers that same game and seats the
/// asker in it if he is not yet (200): the others join with this call, `POST
/// /v1/games/{new}/join` or the invite code. The finished game's view shows the link
/// (`rematch`).
#[utoipa::path(post, path = "/v1/games/{id}/rematch", tag = "lobby",
    params(
        ("id" = Uuid, Path, description = "The finished game"),
        IdempotencyKeyHeader,
    ),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The rematch, with the caller seated (joined now or before)", body = GameView),
        (status = 201, description = "The rematch, created now; the caller sits at seat 0", body = GameView),
        (status = 400, description = "`invalid_idempotency_key`"),
        (status = 401, description = "`unauthorized`"),
        (status = 403, description = "`not_a_player`: only a player of the finished game asks"),
        (status = 404, description = "`game_not_found`"),
        (status = 409, description = "`game_not_finished`; joining the rematch: `game_started`, `game_full`, `game_cancelled`"),
        (status = 422, description = "`idempotency_key_reused`"),
    ))]
pub async fn rematch_game(
    state: web::Data<AppState>,
    user: CurrentUser,
    req: HttpRequest,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ServiceError> {
    let (caller, id) = (caller(&user), id.into_inner());
    let key = idempotency_key(&req, &format!("/v1/games/{id}/rematch"), &())?;
    let test_mode = state.config.test_mode;
    let rematched = state
        .db(move |store| service::rematch::rematch(store, &caller, test_mode, id, key.as_ref()))
        .await?;
    let status = if rematched.created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok(reply(rematched.reply, status, |g: &GameView| g.version))
}

/// Which games the lobby lists.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ListStatus {
    /// Waiting for players (the lobby).
    #[default]
    Open,
    /// Being played (to watch).
    Active,
    Finished,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// Default `open`.
    pub status: Option<ListStatus>,
    /// `next_cursor` of the previous page.
    pub cursor: Option<GameCursor>,
    /// 1 to 100, default 20.
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<i64>,
}

/// Games by status, the latest change first: by default the open lobby.
///
/// Active games list the latest started first: their moves do not reorder them.
#[utoipa::path(get, path = "/v1/games", tag = "lobby", params(ListQuery, IfNoneMatchHeader),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "A page of games", body = GamePage,
            headers(("ETag" = String, description = "A hash of this page as the caller sees it"))),
        (status = 304, description = "Not modified: `If-None-Match` names this page's `ETag`. No body.",
            headers(("ETag" = String, description = "A hash of this page as the caller sees it"))),
        (status = 400, description = "`invalid_query`, `invalid_limit`, `invalid_cursor`"),
        (status = 401, description = "`unauthorized`"),
    ))]
pub async fn list_games(
    state: web::Data<AppState>,
    user: CurrentUser,
    query: web::Query<ListQuery>,
    req: HttpRequest,
) -> Result<HttpResponse, ServiceError> {
    let (caller, query) = (caller(&user), query.into_inner());
    let status = match query.status.unwrap_or_default() {
        ListStatus::Open => GameStatus::Open,
        ListStatus::Active => GameStatus::Active,
        ListStatus::Finished => GameStatus::Finished,
    };
    let page: GamePage = state
        .db(move |store| {
            service::lists::list(
                store,
                &caller,
                status,
                query.cursor.map(|c| c.0),
                query.limit,
            )
        })
        .await?;
    conditional(&req, None, &page)
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct MyGamesQuery {
    /// Default `all`; `my_turn` is the inbox of games waiting for the caller; `invited` the
    /// open games that invite the caller, not joined yet.
    pub filter: Option<MyGames>,
    /// `activity` (default): the latest change first. `deadline`: with `filter=my_turn`, the
    /// nearest turn deadline first (R10.1), games without a turn time last.
    pub sort: Option<MySort>,
    /// `next_cursor` of the previous page.
    pub cursor: Option<GameCursor>,
    /// 1 to 100, default 20.
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<i64>,
}

/// The caller's games: `my_turn` (waiting for the caller), `open`, `active`, `finished`,
/// `cancelled`, `all`; and `invited`: open games that invite the caller, not joined yet.
#[utoipa::path(get, path = "/v1/me/games", tag = "lobby", params(MyGamesQuery, IfNoneMatchHeader),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "A page of the caller's games", body = GamePage,
            headers(("ETag" = String, description = "A hash of this page as the caller sees it"))),
        (status = 304, description = "Not modified: `If-None-Match` names this page's `ETag`. No body.",
            headers(("ETag" = String, description = "A hash of this page as the caller sees it"))),
        (status = 400, description = "`invalid_query`, `invalid_limit`, `invalid_cursor`"),
        (status = 401, description = "`unauthorized`"),
    ))]
pub async fn my_games(
    state: web::Data<AppState>,
    user: CurrentUser,
    query: web::Query<MyGamesQuery>,
    req: HttpRequest,
) -> Result<HttpResponse, ServiceError> {
    let (caller, query) = (caller(&user), query.into_inner());
    let filter = query.filter.unwrap_or(MyGames::All);
    let page: GamePage = state
        .db(move |store| {
            service::lists::list_mine(
                store,
                &caller,
                filter,
                query.sort.unwrap_or_default(),
                query.cursor.map(|c| c.0),
                query.limit,
            )
        })
        .await?;
    conditional(&req, None, &page)
}
