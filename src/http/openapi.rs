//! The OpenAPI document, built from the handlers' `#[utoipa::path]` annotations with no
//! database, served at `/openapi.json`, browsable offline at `/docs/`, and committed as
//! `openapi/openapi.json` (a test keeps the two equal).
//!
//! The public document leaves the test-only parts out (the test clock, stacked decks); a server
//! in test mode serves them too (`racko openapi --test-mode` prints that one).
//!
//! To document a new handler, add its path to `paths(...)` below; schemas referenced by it are
//! collected automatically, and every 4XX/5XX answer gets the `Problem` body.

use std::sync::LazyLock;

use actix_web::{web, HttpResponse};
use utoipa::{
    openapi::{
        request_body::RequestBody,
        schema::{AdditionalProperties, Discriminator},
        security::{HttpAuthScheme, HttpBuilder, SecurityRequirement, SecurityScheme},
        Components, Content, PathItem, Ref, RefOr, Required, Response, Schema, Server,
    },
    Modify, OpenApi,
};
use utoipa_swagger_ui::{Config, SwaggerUi};

use crate::{error::Code, http, http::problem::Problem, http::AppState, service};

mod contract;
mod shape;

use shape::{
    action_refusals, for_generators, is_error, name_variants, operations, problem_content,
    problem_response, ACTION_REFUSALS,
};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Racko",
        description = "Asynchronous, turn-by-turn Racko. Errors are RFC 9457 problem+json \
                       bodies with a stable `code`."
    ),
    paths(
        http::ops::healthz,
        http::ops::readyz,
        http::ops::metrics,
        http::errors::error_catalogue,
        http::accounts::register,
        http::accounts::login,
        http::accounts::create_guest,
        http::accounts::me,
        http::accounts::delete_me,
        http::accounts::revoke_tokens,
        http::accounts::upgrade,
        http::sessions::refresh,
        http::sessions::list_sessions,
        http::sessions::adopt_token,
        http::sessions::end_session,
        http::audit::replay_game,
        http::audit::export_game,
        http::audit::verify_game,
        http::audit::admin_events,
        http::audit::admin_history,
        http::lobby::create_game,
        http::lobby::list_games,
        http::lobby::join_game,
        http::lobby::join_by_code,
        http::lobby::leave_game,
        http::lobby::rematch_game,
        http::lobby::invite_players,
        http::seeks::create_seek,
        http::seeks::list_seeks,
        http::seeks::get_seek,
        http::seeks::cancel_seek,
        http::chat::post_chat,
        http::chat::read_chat,
        http::chat::chat_stream,
        http::chat::report_chat,
        http::chat::chat_reports,
        http::ratings::get_leaderboard,
        http::ratings::account_stats,
        http::vacation::get_vacation,
        http::vacation::take_vacation,
        http::vacation::end_vacation,
        http::invitations::withdraw_invitation,
        http::friends::list_friends,
        http::friends::request_friend,
        http::friends::accept_friend,
        http::friends::drop_friend_request,
        http::friends::remove_friend,
        http::friends::list_blocks,
        http::friends::block_account,
        http::friends::unblock_account,
        http::lobby::my_games,
        http::games::get_game,
        http::games::post_action,
        http::games::list_events,
        http::stream::game_stream,
        http::stream::my_stream,
        http::stream::my_feed,
        http::webhooks::create_webhook,
        http::webhooks::list_webhooks,
        http::webhooks::delete_webhook,
        http::webhooks::rotate_webhook,
        http::webhooks::webhook_deliveries,
        http::devices::register_device,
        http::devices::list_devices,
        http::devices::delete_device,
        http::devices::device_deliveries,
        http::devices::web_push_key,
        http::games::get_hint,
        http::games::post_resign,
        http::clock::advance_clock,
        spec,
    ),
    components(schemas(
        Problem,
        Code,
        http::helpers::GameCursor,
        http::helpers::EventCursor,
        http::lobby::ListStatus,
        service::lists::MyGames,
        service::lists::MySort
    )),
    modifiers(&Platform),
    // In the order a client meets them: playing first, the main use.
    tags(
        (name = "play", description = "A game as the caller sees it, actions and the event log"),
        (name = "lobby", description = "Creating, joining and leaving games; the lobby and the inbox; seeking an opponent"),
        (name = "accounts", description = "Accounts, guests and tokens"),
        (name = "ratings", description = "Ratings of rated games: the leaderboard and each account's stats"),
        (name = "friends", description = "Friends (with acceptance) and blocks, by username"),
        (name = "notifications", description = "Server-Sent Events of a game's log and of the account feed; the feed as a long-polled page; webhooks; push devices"),
        (name = "audit", description = "Replay, export and verification of games; admin audit queries"),
        (name = "ops", description = "Health, readiness and metrics"),
    )
)]
pub(crate) struct ApiDoc;

/// The public document: served by a server not in test mode, and committed.
pub fn openapi() -> utoipa::openapi::OpenApi {
    openapi_for(false)
}

/// The document a server serves: `test_mode` adds the test-only parts.
pub fn openapi_for(test_mode: bool) -> utoipa::openapi::OpenApi {
    contract::finish(ApiDoc::openapi(), test_mode)
}

/// The pretty JSON form of [`openapi`] with a trailing newline (what `racko openapi` prints).
pub fn openapi_json() -> String {
    openapi_json_for(false)
}

/// The pretty JSON form of [`openapi_for`] with a trailing newline.
pub fn openapi_json_for(test_mode: bool) -> String {
    let mut text = openapi_for(test_mode)
        .to_pretty_json()
        .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    text.push('\n');
    text
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    // Our own resource (not SwaggerUi's) so that a wrong method answers 405 like elsewhere.
    cfg.service(web::resource("/openapi.json").route(web::get().to(spec)))
        // Before Swagger UI, which answers every other path under /docs.
        .service(web::resource("/docs/errors").route(web::get().to(super::errors::error_catalogue)))
        .service(SwaggerUi::new("/docs/{_:.*}").config(Config::from("/openapi.json")))
        .service(web::resource("/docs").route(web::get().to(docs_redirect)));
}

/// Built once: the same bytes as `racko openapi` and the committed file.
static SPEC: LazyLock<String> = LazyLock::new(openapi_json);
/// Built once, by a server in test mode only.
static TEST_SPEC: LazyLock<String> = LazyLock::new(|| openapi_json_for(true));

/// This document (with the test-only parts on a server in test mode).
#[utoipa::path(get, path = "/openapi.json", tag = "ops", responses(
    (status = 200, description = "The OpenAPI 3.1 document", content_type = "application/json"),
))]
async fn spec(state: web::Data<AppState>) -> HttpResponse {
    let body = if state.config.test_mode {
        TEST_SPEC.as_str()
    } else {
        SPEC.as_str()
    };
    HttpResponse::Ok()
        .content_type("application/json")
        .body(body)
}

/// The API browser (Swagger UI, served offline under `/docs/`); a page for people, so not in
/// the document (a redirect has no 2xx answer, which the document's lint requires).
async fn docs_redirect() -> HttpResponse {
    HttpResponse::PermanentRedirect()
        .insert_header(("Location", "/docs/"))
        .finish()
}

const PROBLEM_JSON: &str = "application/problem+json";

/// The client errors any operation may answer, besides those it names: what the HTTP layer
/// refuses before a handler runs, and a change waiting too long for a game or a key.
const ANY_CLIENT_ERROR: &str = "Client error (problem+json). Any operation may also answer \
    `bad_request`, `client_error`, `invalid_path`, `invalid_query`, `invalid_value` (a value \
    the database refuses), `not_found` (no such route), `payload_too_large`, \
    `unsupported_media_type`, `not_acceptable`, `method_not_allowed`, `request_timeout`, \
    `length_required`, `uri_too_long`, `headers_too_large`; a change `game_busy` (a game \
    another change holds) and, with an Idempotency-Key header, `idempotency_key_taken`.";
/// The server errors any operation may answer.
const ANY_SERVER_ERROR: &str = "Server error (problem+json): `store_unavailable`, `busy`, \
    `unavailable`, `internal`, `server_error`.";

/// Tagged enums whose every variant refuses unknown fields (serde `deny_unknown_fields`);
/// utoipa does not say so for an enum's variants, so [`Platform`] does.
const CLOSED_ONE_OFS: &[&str] = &["Action"];

/// Tagged enums (serde `tag`) and the property that holds their tag. Each variant becomes a
/// component of its own, named after its tag and the union (`draw` of `Action` is `DrawAction`),
/// and the union gets a `discriminator`, so that generated clients have one named type per
/// variant. A variant that is a reference to another union listed before it (the rules' `Event`
/// inside `LogEvent`) is replaced by that union's variants, so the discriminator sees them all.
/// The wire format does not change: only where the schemas are written does.
const TAGGED_UNIONS: &[(&str, &str, &str)] = &[
    // (union, tag property, suffix of the variants' names)
    ("Action", "type", "Action"),
    ("Card", "kind", "Card"),
    ("Event", "type", "Event"),
    ("LogEvent", "type", "Event"),
    ("Phase", "type", "Phase"),
    ("RoundEnd", "type", "RoundEnd"),
    ("Viewer", "type", "Viewer"),
];

/// The operation whose bearer token is the server's metrics token, not a user's.
const METRICS_PATH: &str = "/metrics";

/// Adds the bearer scheme and the Problem body on every error answer of every operation,
/// closes the variants of [`CLOSED_ONE_OFS`], names the variants
/// of the [`TAGGED_UNIONS`], and smooths what generators warn about (see [`for_generators`]).
struct Platform;

impl Modify for Platform {
    fn modify(&self, api: &mut utoipa::openapi::OpenApi) {
        let components = api.components.get_or_insert_with(Default::default);
        for name in CLOSED_ONE_OFS {
            if let Some(RefOr::T(Schema::OneOf(one_of))) = components.schemas.get_mut(*name) {
                for variant in &mut one_of.items {
                    if let RefOr::T(Schema::Object(object)) = variant {
                        object.additional_properties =
                            Some(Box::new(AdditionalProperties::FreeForm(false)));
                    }
                }
            }
        }
        name_variants(components);
        components.add_security_scheme(
            "metrics",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
        );
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("JWT")
                    .build(),
            ),
        );
        let refusals = action_refusals();
        for item in api.paths.paths.values_mut() {
            for op in operations(item) {
                let responses = &mut op.responses.responses;
                for (status, response) in responses.iter_mut() {
                    if let (true, RefOr::T(r)) = (is_error(status), response) {
                        if r.description.contains(ACTION_REFUSALS) {
                            r.description = r.description.replace(ACTION_REFUSALS, &refusals);
                        }
                        r.content
                            .entry(PROBLEM_JSON.to_string())
                            .or_insert_with(problem_content);
                    }
                }
                for (range, description) in [("4XX", ANY_CLIENT_ERROR), ("5XX", ANY_SERVER_ERROR)] {
                    responses
                        .entry(range.to_string())
                        .or_insert_with(|| RefOr::T(problem_response(description)));
                }
            }
        }
        for_generators(api);
    }
}

#[cfg(test)]
mod tests;
