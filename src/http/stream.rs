//! Notification endpoints: Server-Sent Events of a game's log and of the caller's
//! feed, and the feed as a (long-polled) page. The long-poll of a game's log is `wait` on
//! `GET /v1/games/{id}/events` (`http::games`).

use actix_web::{web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::IntoParams;
use uuid::Uuid;

use super::helpers::{caller, session};
use crate::{
    auth::CurrentUser,
    error::{Code, ServiceError},
    http::AppState,
    notify::{slots::Slot, sse, Topic},
    service::{self, feed::FeedPage, stream_chat::Resume},
};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/v1/games/{id}/stream").route(web::get().to(game_stream)))
        .service(web::resource("/v1/me/stream").route(web::get().to(my_stream)))
        .service(web::resource("/v1/me/feed").route(web::get().to(my_feed)));
}

#[derive(Debug, Deserialize, Serialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct StreamQuery {
    /// Resume after this seq (default 0: from the start). A `Last-Event-ID` header wins.
    #[param(minimum = 0)]
    pub after: Option<i64>,
}

/// The `Last-Event-ID` header, declared for the API document; read by `sse::resume_from`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Header)]
pub struct LastEventIdHeader {
    /// The `id` of the last event received: the stream resumes after it, with no gap and no
    /// duplicate (what a reconnecting `EventSource` sends).
    #[param(rename = "Last-Event-ID", nullable = false, pattern = "^[0-9]{1,18}$")]
    pub last_event_id: Option<String>,
}

/// A place among the bounded open streams and long-polls, or 429 `too_many_requests`.
pub fn slot(state: &AppState, user: &CurrentUser, req: &HttpRequest) -> Result<Slot, ServiceError> {
    let address = super::throttle::client_address(req, state);
    state.streams.take(user.id, address)
}

/// A long-poll holds its connection like a stream: a place among the bounded ones while it
/// may wait (`wait` above 0); a plain read holds none.
pub fn long_poll_slot(
    state: &AppState,
    user: &CurrentUser,
    req: &HttpRequest,
    wait: Option<u64>,
) -> Result<Option<Slot>, ServiceError> {
    match wait {
        Some(wait) if wait > 0 => Ok(Some(slot(state, user, req)?)),
        _ => Ok(None),
    }
}

/// The stream's settings; its socket is bounded for a stream (`http::socket`).
pub(crate) fn settings(state: &AppState, req: &HttpRequest) -> sse::Settings {
    let drop_after = state.config.stream_limits.drop_after;
    sse::Settings {
        heartbeat: state.config.stream_heartbeat,
        peer: super::socket::bound_for_stream(req, drop_after),
        ..sse::Settings::default()
    }
}

#[derive(Debug, Deserialize, Serialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct GameStreamQuery {
    /// Resume after this seq of the event log (default 0: from the start). A
    /// `Last-Event-ID` header wins.
    #[param(minimum = 0)]
    pub after: Option<i64>,
    /// Carry the game's table talk too (default false): each message as an `event: chat`
    /// frame, and every frame's id as `<event seq>.<chat seq>`.
    pub chat: Option<bool>,
    /// With `chat`: resume the chat after this seq (default 0). A `Last-Event-ID` wins.
    #[param(minimum = 0)]
    pub chat_after: Option<i64>,
}

/// The `Last-Event-ID` of a game's stream, declared for the API document.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Header)]
pub struct GameLastEventIdHeader {
    /// The `id` of the last event received: the stream resumes after it, with no gap and no
    /// duplicate (what a reconnecting `EventSource` sends). `<seq>`, or `<seq>.<chat seq>` on
    /// a stream with `chat`.
    #[param(
        rename = "Last-Event-ID",
        nullable = false,
        pattern = "^[0-9]{1,18}([.][0-9]{1,18})?$"
    )]
    pub last_event_id: Option<String>,
}

/// Every new event of the game as the caller may see it (R8: the projection of
/// `GET /v1/games/{id}/events`), as Server-Sent Events; with `chat=true`, its table talk too
/// (`GET /v1/games/{id}/chat`), each message after the events read with it.
///
/// Each event is `id: <seq>` and `data: <an EventEntry as JSON>`; a comment line
/// (`: heartbeat`) comes every 15 s while nothing happens. Reconnect with `Last-Event-ID` (or
/// `?after=`) to resume with no gap and no duplicate. With `chat`, every id is
/// `<seq>.<chat seq>` and a message is `event: chat` with `data: <a ChatEntry as JSON>`. A
/// client that takes no bytes for RACKO_STREAM_DROP_AFTER_SECS (60 s) is disconnected, with at
/// most a few frames (32 KiB of socket buffer) queued for it, and resumes the same way. When
/// the token is revoked (signed out everywhere, the account deleted) the stream sends
/// `event: revoked` with a problem's `code` and ends within a second.
#[utoipa::path(get, path = "/v1/games/{id}/stream", tag = "notifications",
    params(("id" = Uuid, Path, description = "The game"), GameStreamQuery, GameLastEventIdHeader),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "An endless stream of `id: <seq>` / `data: <EventEntry JSON>` frames (with `chat`: also `event: chat` frames of `ChatEntry` JSON)",
            content_type = "text/event-stream", body = String),
        (status = 400, description = "`invalid_after`"),
        (status = 401, description = "`unauthorized`"),
        (status = 404, description = "`game_not_found`"),
        (status = 429, description = "`too_many_requests`: this account or address holds as many streams and long-polls as allowed (RACKO_STREAMS_PER_ACCOUNT, RACKO_STREAMS_PER_ADDRESS), or the server as many as it can",
            headers(("Retry-After" = u64, description = "Seconds to wait before trying again"))),
    ))]
pub async fn game_stream(
    state: web::Data<AppState>,
    user: CurrentUser,
    id: web::Path<Uuid>,
    query: web::Query<GameStreamQuery>,
    req: HttpRequest,
) -> Result<HttpResponse, ServiceError> {
    let id = id.into_inner();
    let (caller, q) = (caller(&user), query.into_inner());
    let (after, read) = if q.chat.unwrap_or(false) {
        let at = resume_with_chat(&req, &q)?;
        let read = service::stream_chat::game_and_chat_reader(&state.service, caller, id, at.chat);
        (at.events, read)
    } else {
        let after = sse::resume_from(&req, q.after)?;
        (
            after,
            service::stream::game_reader(&state.service, caller, id),
        )
    };
    let held = (Topic::Game(id), session(&user), slot(&state, &user, &req)?);
    let on = (state.service.store(), &**state.service.hub());
    sse::open(on, held, after, read, settings(&state, &req)).await
}

/// Where a stream with chat resumes: `Last-Event-ID` (`<seq>.<chat seq>`) wins over `after`
/// and `chat_after`; 400 `invalid_after` for anything else.
fn resume_with_chat(req: &HttpRequest, q: &GameStreamQuery) -> Result<Resume, ServiceError> {
    let bad = || {
        ServiceError::new(
            Code::InvalidAfter,
            "Last-Event-ID must be <seq>.<chat seq>, and after and chat_after 0 or more",
        )
    };
    if let Some(value) = req.headers().get("Last-Event-ID") {
        let text = value.to_str().map_err(|_| bad())?.trim();
        return Resume::parse(text).ok_or_else(bad);
    }
    let at = Resume {
        events: q.after.unwrap_or(0),
        chat: q.chat_after.unwrap_or(0),
    };
    if at.events < 0 || at.chat < 0 {
        return Err(bad());
    }
    Ok(at)
}

/// The caller's account feed as Server-Sent Events: your turn, a game started, someone joined
/// or left, a game finished or was cancelled; each names the game and its version.
///
/// Each item is `id: <seq>` (the account's own sequence) and `data: <a FeedEntry as JSON>`;
/// heartbeats, resuming and the end on a revoked token as on a game's stream.
#[utoipa::path(get, path = "/v1/me/stream", tag = "notifications",
    params(StreamQuery, LastEventIdHeader),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "An endless stream of `id: <seq>` / `data: <FeedEntry JSON>` frames",
            content_type = "text/event-stream", body = String),
        (status = 400, description = "`invalid_after`"),
        (status = 401, description = "`unauthorized`"),
        (status = 429, description = "`too_many_requests`: this account or address holds as many streams and long-polls as allowed (RACKO_STREAMS_PER_ACCOUNT, RACKO_STREAMS_PER_ADDRESS), or the server as many as it can",
            headers(("Retry-After" = u64, description = "Seconds to wait before trying again"))),
    ))]
pub async fn my_stream(
    state: web::Data<AppState>,
    user: CurrentUser,
    query: web::Query<StreamQuery>,
    req: HttpRequest,
) -> Result<HttpResponse, ServiceError> {
    let after = sse::resume_from(&req, query.after)?;
    let read = service::stream::feed_reader(&state.service, caller(&user));
    let slot = slot(&state, &user, &req)?;
    sse::open(
        (state.service.store(), state.service.hub()),
        (Topic::Account(user.id), session(&user), slot),
        after,
        read,
        settings(&state, &req),
    )
    .await
}

#[derive(Debug, Deserialize, Serialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct FeedQuery {
    /// Items with a seq above this (default 0: from the start).
    #[param(minimum = 0)]
    pub after: Option<i64>,
    /// 1 to 500, default 100.
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
    /// Long-poll: when there is no item yet, wait up to this many seconds for one (0 to 60,
    /// default 0).
    #[param(minimum = 0, maximum = 60)]
    pub wait: Option<u64>,
}

/// The caller's account feed as a page (the items of `GET /v1/me/stream`); with `wait`, a
/// long-poll, which answers 401 `unauthorized` as soon as the token is revoked.
#[utoipa::path(get, path = "/v1/me/feed", tag = "notifications",
    params(FeedQuery),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "A page of feed items", body = FeedPage),
        (status = 400, description = "`invalid_query`, `invalid_after`, `invalid_limit`, `invalid_wait`"),
        (status = 401, description = "`unauthorized`"),
        (status = 429, description = "`too_many_requests`: this account or address holds as many streams and long-polls as allowed (RACKO_STREAMS_PER_ACCOUNT, RACKO_STREAMS_PER_ADDRESS), or the server as many as it can",
            headers(("Retry-After" = u64, description = "Seconds to wait before trying again"))),
    ))]
pub async fn my_feed(
    state: web::Data<AppState>,
    user: CurrentUser,
    query: web::Query<FeedQuery>,
    req: HttpRequest,
) -> Result<HttpResponse, ServiceError> {
    let q = query.into_inner();
    let _slot = long_poll_slot(&state, &user, &req, q.wait)?;
    let page = service::stream::feed_page(
        &state.service,
        (caller(&user), session(&user)),
        q.after,
        q.limit,
        q.wait,
    )
    .await?;
    Ok(HttpResponse::Ok().json(page))
}
