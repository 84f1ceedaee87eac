//! Friends and blocks of the caller's account, by username.

use actix_web::{http::StatusCode, web, HttpResponse};

use super::extract::Json;
use super::helpers::caller;
use crate::{
    auth::CurrentUser,
    error::ServiceError,
    http::AppState,
    service::friends::{self, Blocks, FriendRequestAnswer, Friends, Friendship, Person, Username},
};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/v1/me/friends")
            .route(web::get().to(list_friends))
            .route(web::post().to(request_friend)),
    )
    .service(
        web::resource("/v1/me/friends/requests/{username}/accept")
            .route(web::post().to(accept_friend)),
    )
    .service(
        web::resource("/v1/me/friends/requests/{username}")
            .route(web::delete().to(drop_friend_request)),
    )
    .service(web::resource("/v1/me/friends/{username}").route(web::delete().to(remove_friend)))
    .service(
        web::resource("/v1/me/blocks")
            .route(web::get().to(list_blocks))
            .route(web::post().to(block_account)),
    )
    .service(web::resource("/v1/me/blocks/{username}").route(web::delete().to(unblock_account)));
}

/// The caller's friends, and the friend requests waiting either way.
#[utoipa::path(get, path = "/v1/me/friends", tag = "friends",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Friends (at most 200), requests received (at most 100) and sent (at most 50), each by username", body = Friends),
        (status = 401, description = "`unauthorized`"),
    ))]
pub async fn list_friends(
    state: web::Data<AppState>,
    user: CurrentUser,
) -> Result<HttpResponse, ServiceError> {
    let caller = caller(&user);
    let list = state.db(move |s| friends::list(s, &caller)).await?;
    Ok(HttpResponse::Ok().json(list))
}

/// Ask an account to be friends.
///
/// The request waits for the other's answer (201, `requested`); when the other had asked the
/// caller already, this accepts theirs (200, `friends`). Friends may watch each other's games
/// whose `spectators` is `friends`. Nobody asks an account it blocks or that blocks it.
#[utoipa::path(post, path = "/v1/me/friends", tag = "friends", request_body = Username,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "They had asked: now friends", body = FriendRequestAnswer),
        (status = 201, description = "Requested; it waits for their answer", body = FriendRequestAnswer),
        (status = 400, description = "`invalid_json`"),
        (status = 401, description = "`unauthorized`"),
        (status = 403, description = "`blocked`: one of the two blocks the other"),
        (status = 404, description = "`player_not_found`"),
        (status = 409, description = "`already_friends`, `friend_request_exists`, `too_many_friends` (200), `too_many_friend_requests` (50 sent, 100 received)"),
        (status = 422, description = "`invalid_body`, `own_account`"),
    ))]
pub async fn request_friend(
    state: web::Data<AppState>,
    user: CurrentUser,
    body: Json<Username>,
) -> Result<HttpResponse, ServiceError> {
    let (caller, name) = (caller(&user), body.into_inner().username);
    let answer = state
        .db(move |s| friends::request(s, &caller, &name))
        .await?;
    let status = match answer.status {
        Friendship::Requested => StatusCode::CREATED,
        Friendship::Friends => StatusCode::OK,
    };
    Ok(HttpResponse::build(status).json(answer))
}

/// Accept a friend request.
#[utoipa::path(post, path = "/v1/me/friends/requests/{username}/accept", tag = "friends",
    security(("bearer" = [])),
    params(("username" = String, Path, max_length = 64, description = "Who asked")),
    responses(
        (status = 204, description = "Now friends"),
        (status = 401, description = "`unauthorized`"),
        (status = 404, description = "`player_not_found`, `friend_request_not_found`"),
        (status = 409, description = "`too_many_friends`"),
        (status = 422, description = "`own_account`"),
    ))]
pub async fn accept_friend(
    state: web::Data<AppState>,
    user: CurrentUser,
    username: web::Path<String>,
) -> Result<HttpResponse, ServiceError> {
    let (caller, name) = (caller(&user), username.into_inner());
    state
        .db(move |s| friends::accept(s, &caller, &name))
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Decline a friend request, or withdraw one the caller sent.
#[utoipa::path(delete, path = "/v1/me/friends/requests/{username}", tag = "friends",
    security(("bearer" = [])),
    params(("username" = String, Path, max_length = 64, description = "The other account")),
    responses(
        (status = 204, description = "The request is gone"),
        (status = 401, description = "`unauthorized`"),
        (status = 404, description = "`player_not_found`, `friend_request_not_found`"),
        (status = 422, description = "`own_account`"),
    ))]
pub async fn drop_friend_request(
    state: web::Data<AppState>,
    user: CurrentUser,
    username: web::Path<String>,
) -> Result<HttpResponse, ServiceError> {
    let (caller, name) = (caller(&user), username.into_inner());
    state
        .db(move |s| friends::drop_request(s, &caller, &name))
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// End a friendship.
#[utoipa::path(delete, path = "/v1/me/friends/{username}", tag = "friends",
    security(("bearer" = [])),
    params(("username" = String, Path, max_length = 64, description = "The friend")),
    responses(
        (status = 204, description = "No longer friends"),
        (status = 401, description = "`unauthorized`"),
        (status = 404, description = "`player_not_found`, `friend_not_found`"),
        (status = 422, description = "`own_account`"),
    ))]
pub async fn remove_friend(
    state: web::Data<AppState>,
    user: CurrentUser,
    username: web::Path<String>,
) -> Result<HttpResponse, ServiceError> {
    let (caller, name) = (caller(&user), username.into_inner());
    state
        .db(move |s| friends::remove(s, &caller, &name))
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// The accounts the caller blocks.
#[utoipa::path(get, path = "/v1/me/blocks", tag = "friends",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Blocked accounts (at most 500), by username", body = Blocks),
        (status = 401, description = "`unauthorized`"),
    ))]
pub async fn list_blocks(
    state: web::Data<AppState>,
    user: CurrentUser,
) -> Result<HttpResponse, ServiceError> {
    let caller = caller(&user);
    let list = state.db(move |s| friends::blocks(s, &caller)).await?;
    Ok(HttpResponse::Ok().json(list))
}

/// Block an account.
///
/// From then on neither may ask the other to be friends or invite the other, nor take a seat
/// at a table where the other sits (the game answers as one that does not exist); a
/// friendship or request between the two ends now, so neither watches the other's games as
/// a friend. Blocking again changes nothing.
#[utoipa::path(post, path = "/v1/me/blocks", tag = "friends", request_body = Username,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Blocked", body = Person),
        (status = 400, description = "`invalid_json`"),
        (status = 401, description = "`unauthorized`"),
        (status = 404, description = "`player_not_found`"),
        (status = 409, description = "`too_many_blocks` (500)"),
        (status = 422, description = "`invalid_body`, `own_account`"),
    ))]
pub async fn block_account(
    state: web::Data<AppState>,
    user: CurrentUser,
    body: Json<Username>,
) -> Result<HttpResponse, ServiceError> {
    let (caller, name) = (caller(&user), body.into_inner().username);
    let blocked = state.db(move |s| friends::block(s, &caller, &name)).await?;
    Ok(HttpResponse::Ok().json(blocked))
}

/// Lift a block.
#[utoipa::path(delete, path = "/v1/me/blocks/{username}", tag = "friends",
    security(("bearer" = [])),
    params(("username" = String, Path, max_length = 64, description = "The blocked account")),
    responses(
        (status = 204, description = "No longer blocked"),
        (status = 401, description = "`unauthorized`"),
        (status = 404, description = "`player_not_found`, `block_not_found`"),
        (status = 422, description = "`own_account`"),
    ))]
pub async fn unblock_account(
    state: web::Data<AppState>,
    user: CurrentUser,
    username: web::Path<String>,
) -> Result<HttpResponse, ServiceError> {
    let (caller, name) = (caller(&user), username.into_inner());
    state
        .db(move |s| friends::unblock(s, &caller, &name))
        .await?;
    Ok(HttpResponse::NoContent().finish())
}
