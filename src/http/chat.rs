//! Table talk: a game's chat, written by its players and read by whoever sees the game, as a
//! page, a long-poll or a stream; reports of messages, and the admins' list of them.

use actix_web::{web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::IntoParams;
use uuid::Uuid;

use super::extract::Json;
use super::helpers::{caller, session};
use super::stream::{slot, LastEventIdHeader, StreamQuery};
use crate::{
    auth::CurrentUser,
    error::ServiceError,
    http::AppState,
    notify::{sse, Topic},
    service::{
        self,
        chat::{self, ChatEntry, ChatPage, ChatPost, ChatReportPage, ChatReportRequest},
    },
};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/v1/games/{id}/chat")
            .route(web::post().to(post_chat))
            .route(web::get().to(read_chat)),
    )
    .service(web::resource("/v1/games/{id}/chat/stream").route(web::get().to(chat_stream)))
    .service(web::resource("/v1/games/{id}/chat/{seq}/report").route(web::post().to(report_chat)))
    .service(web::resource("/v1/admin/chat-reports").route(web::get().to(chat_reports)));
}

/// Say a word to the table. Seated players only; stored apart from the game's event log
/// (which stays the rules' record). At most 10 messages a minute per account over all games.
#[utoipa::path(post, path = "/v1/games/{id}/chat", tag = "play", request_body = ChatPost,
    params(("id" = Uuid, Path, description = "The game")),
    security(("bearer" = [])),
    responses(
        (status = 201, description = "The message as stored", body = ChatEntry),
        (status = 400, description = "`invalid_json`"),
        (status = 401, description = "`unauthorized`"),
        (status = 403, description = "`not_a_player`: the caller watches this game but has no seat"),
        (status = 404, description = "`game_not_found`"),
        (status = 409, description = "`game_cancelled`"),
        (status = 422, description = "`invalid_body`, `invalid_chat_message`"),
        (status = 429, description = "`rate_limited`: 10 messages a minute",
            headers(("Retry-After" = u64, description = "Seconds until the next message is allowed"))),
    ))]
pub async fn post_chat(
    state: web::Data<AppState>,
    user: CurrentUser,
    id: web::Path<Uuid>,
    body: Json<ChatPost>,
) -> Result<HttpResponse, ServiceError> {
    let (caller, id, body) = (caller(&user), id.into_inner(), body.into_inner());
    let entry = state.db(move |s| chat::post(s, &caller, id, &body)).await?;
    Ok(HttpResponse::Created().json(entry))
}

#[derive(Debug, Deserialize, Serialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ChatQuery {
    /// Messages with a seq above this (default 0: from the start).
    #[param(minimum = 0)]
    pub after: Option<i64>,
    /// 1 to 500, default 100.
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
    /// Long-poll: when there is no message yet, wait up to this many seconds for one (0 to
    /// 60, default 0).
    #[param(minimum = 0, maximum = 60)]
    pub wait: Option<u64>,
}

/// The game's chat, oldest first: whoever may see the game reads it (players, invited
/// accounts, spectators). Messages of an account the caller blocks, or that blocks the
/// caller, are left out. With `wait`, a long-poll.
#[utoipa::path(get, path = "/v1/games/{id}/chat", tag = "play",
    params(("id" = Uuid, Path, description = "The game"), ChatQuery),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "A page of messages", body = ChatPage),
        (status = 400, description = "`invalid_query`, `invalid_after`, `invalid_limit`, `invalid_wait`"),
        (status = 401, description = "`unauthorized`"),
        (status = 404, description = "`game_not_found`"),
        (status = 429, description = "`too_many_requests`: this account or address holds as many streams and long-polls as allowed",
            headers(("Retry-After" = u64, description = "Seconds to wait before trying again"))),
    ))]
pub async fn read_chat(
    state: web::Data<AppState>,
    user: CurrentUser,
    id: web::Path<Uuid>,
    query: web::Query<ChatQuery>,
    req: HttpRequest,
) -> Result<HttpResponse, ServiceError> {
    let q = query.into_inner();
    let _slot = super::stream::long_poll_slot(&state, &user, &req, q.wait)?;
    let page = service::stream::chat_page(
        &state.service,
        (caller(&user), session(&user)),
        id.into_inner(),
        q.after,
        q.limit,
        q.wait,
    )
    .await?;
    Ok(HttpResponse::Ok().json(page))
}

/// The game's chat as Server-Sent Events: each message is `id: <seq>` and
/// `data: <a ChatEntry as JSON>`; heartbeats, resuming with `Last-Event-ID` and the end on a
/// revoked token as on the game's stream. A message left out for a block moves the id on
/// with a frame that has no data.
#[utoipa::path(get, path = "/v1/games/{id}/chat/stream", tag = "notifications",
    params(("id" = Uuid, Path, description = "The game"), StreamQuery, LastEventIdHeader),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "An endless stream of `id: <seq>` / `data: <ChatEntry JSON>` frames",
            content_type = "text/event-stream", body = String),
        (status = 400, description = "`invalid_after`"),
        (status = 401, description = "`unauthorized`"),
        (status = 404, description = "`game_not_found`"),
        (status = 429, description = "`too_many_requests`: this account or address holds as many streams and long-polls as allowed",
            headers(("Retry-After" = u64, description = "Seconds to wait before trying again"))),
    ))]
pub async fn chat_stream(
    state: web::Data<AppState>,
    user: CurrentUser,
    id: web::Path<Uuid>,
    query: web::Query<StreamQuery>,
    req: HttpRequest,
) -> Result<HttpResponse, ServiceError> {
    let after = sse::resume_from(&req, query.after)?;
    let id = id.into_inner();
    let read = service::stream::chat_reader(&state.service, caller(&user), id);
    let held = (Topic::Chat(id), session(&user), slot(&state, &user, &req)?);
    let on = (state.service.store(), &**state.service.hub());
    sse::open(on, held, after, read, super::stream::settings(&state, &req)).await
}

/// Report a message of the game's chat to the admins; any reader may, once per message
/// (a second report of the same message changes nothing and answers 200).
#[utoipa::path(post, path = "/v1/games/{id}/chat/{seq}/report", tag = "play",
    request_body = ChatReportRequest,
    params(("id" = Uuid, Path, description = "The game"),
        ("seq" = i64, Path, minimum = 1, description = "The message")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Reported already"),
        (status = 201, description = "Reported"),
        (status = 400, description = "`invalid_json`, `invalid_path`"),
        (status = 401, description = "`unauthorized`"),
        (status = 404, description = "`game_not_found`, `chat_message_not_found`"),
        (status = 422, description = "`invalid_body`, `invalid_report_reason`"),
    ))]
pub async fn report_chat(
    state: web::Data<AppState>,
    user: CurrentUser,
    path: web::Path<(Uuid, i64)>,
    body: Json<ChatReportRequest>,
) -> Result<HttpResponse, ServiceError> {
    let (caller, at, body) = (caller(&user), path.into_inner(), body.into_inner());
    let new = state
        .db(move |s| chat::report(s, &caller, at, &body))
        .await?;
    Ok(if new {
        HttpResponse::Created().finish()
    } else {
        HttpResponse::Ok().finish()
    })
}

#[derive(Debug, Deserialize, Serialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ChatReportsQuery {
    /// 1 to 500, default 100.
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
    /// `next_cursor` of the previous page.
    pub cursor: Option<String>,
}

/// Reports of chat messages, oldest first. Admins only.
#[utoipa::path(get, path = "/v1/admin/chat-reports", tag = "audit", params(ChatReportsQuery),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "A page of reports", body = ChatReportPage),
        (status = 400, description = "`invalid_query`, `invalid_limit`, `invalid_cursor`"),
        (status = 401, description = "`unauthorized`"),
        (status = 403, description = "`admin_only`"),
    ))]
pub async fn chat_reports(
    state: web::Data<AppState>,
    user: CurrentUser,
    query: web::Query<ChatReportsQuery>,
) -> Result<HttpResponse, ServiceError> {
    super::audit::require_admin(&user)?;
    let q = query.into_inner();
    let page = state
        .db(move |s| chat::reports(s, q.cursor.as_deref(), q.limit))
        .await?;
    Ok(HttpResponse::Ok().json(page))
}
