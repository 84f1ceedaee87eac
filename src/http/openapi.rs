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

use crate::{app::AppState, error::Code, http, http::problem::Problem, service};

mod contract;

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
        (name = "lobby", description = "Creating, joining and leaving games; the lobby and the inbox"),
        (name = "accounts", description = "Accounts, guests and tokens"),
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
        for item in api.paths.paths.values_mut() {
            for op in operations(item) {
                let responses = &mut op.responses.responses;
                for (status, response) in responses.iter_mut() {
                    if let (true, RefOr::T(r)) = (is_error(status), response) {
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

/// Gives every variant of the [`TAGGED_UNIONS`] its own component and each union its
/// discriminator.
fn name_variants(components: &mut Components) {
    // union name -> its variants as (tag, component name), for unions nested in later ones
    let mut done: Vec<(&str, Vec<(String, String)>)> = Vec::new();
    for (union, property, suffix) in TAGGED_UNIONS {
        let Some(RefOr::T(Schema::OneOf(mut one_of))) = components.schemas.remove(*union) else {
            continue;
        };
        let mut variants = Vec::new();
        let mut items = Vec::new();
        for item in std::mem::take(&mut one_of.items) {
            match item {
                RefOr::T(Schema::Object(object)) => match single_tag(&object, property) {
                    Some(tag) => {
                        let name = format!("{}{suffix}", pascal_case(&tag));
                        components
                            .schemas
                            .insert(name.clone(), RefOr::T(Schema::Object(object)));
                        items.push(RefOr::Ref(Ref::from_schema_name(&name)));
                        variants.push((tag, name));
                    }
                    None => items.push(RefOr::T(Schema::Object(object))),
                },
                RefOr::Ref(reference) => {
                    let nested = done.iter().find(|(name, _)| {
                        reference.ref_location == format!("#/components/schemas/{name}")
                    });
                    match nested {
                        Some((_, nested)) => {
                            for (tag, name) in nested {
                                items.push(RefOr::Ref(Ref::from_schema_name(name)));
                                variants.push((tag.clone(), name.clone()));
                            }
                        }
                        None => items.push(RefOr::Ref(reference)),
                    }
                }
                other => items.push(other),
            }
        }
        if variants.len() == items.len() {
            one_of.discriminator = Some(Discriminator::with_mapping(
                *property,
                variants
                    .iter()
                    .map(|(tag, name)| (tag.clone(), format!("#/components/schemas/{name}"))),
            ));
        }
        one_of.items = items;
        components
            .schemas
            .insert(union.to_string(), RefOr::T(Schema::OneOf(one_of)));
        done.push((union, variants));
    }
    // A union now only spread into another one (the rules' `Event`) is dropped: nothing refers
    // to it, and validators warn about unused components.
    let text = serde_json::to_string(&*components).unwrap_or_default();
    for (union, _, _) in TAGGED_UNIONS {
        if !text.contains(&format!("\"#/components/schemas/{union}\"")) {
            components.schemas.remove(*union);
        }
    }
}

/// The one value of `object.property` when it is a string enum of one value (a serde tag).
fn single_tag(object: &utoipa::openapi::schema::Object, property: &str) -> Option<String> {
    match object.properties.get(property)? {
        RefOr::T(Schema::Object(tag)) => match tag.enum_values.as_deref()? {
            [serde_json::Value::String(value)] => Some(value.clone()),
            _ => None,
        },
        _ => None,
    }
}

/// `cards_swapped` -> `CardsSwapped`.
fn pascal_case(snake: &str) -> String {
    snake
        .split('_')
        .map(|word| {
            let mut chars = word.chars();
            chars
                .next()
                .map(|first| first.to_uppercase().chain(chars).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}

/// What validators and generators otherwise warn about, said their way:
/// - a server entry (the document's own origin);
/// - every operation states its security: the user bearer when utoipa has it, the optional
///   metrics token on `/metrics`, and none (`[]`) on the public ones;
/// - an optional request body whose schema is `null` or an object is just the object (the body
///   stays optional: `required` is unset);
/// - a property that is a `oneOf` of one reference (utoipa's way of giving a default to a
///   referenced schema) is the reference itself;
/// - a property's `default` is said in its description (see [`with_default`]).
fn for_generators(api: &mut utoipa::openapi::OpenApi) {
    if api.servers.is_none() {
        let mut server = Server::new("/");
        server.description = Some("The server that serves this document".to_string());
        api.servers = Some(vec![server]);
    }
    for (path, item) in api.paths.paths.iter_mut() {
        for op in operations(item) {
            if op.security.is_none() {
                op.security = Some(if path == METRICS_PATH {
                    vec![
                        SecurityRequirement::default(),
                        SecurityRequirement::new("metrics", Vec::<String>::new()),
                    ]
                } else {
                    Vec::new()
                });
            }
            if let Some(body) = op.request_body.as_mut() {
                unwrap_nullable_body(body);
            }
        }
    }
    let Some(components) = api.components.as_mut() else {
        return;
    };
    for schema in components.schemas.values_mut() {
        if let RefOr::T(Schema::Object(object)) = schema {
            for property in object.properties.values_mut() {
                match property {
                    RefOr::T(Schema::OneOf(one_of)) => {
                        if let [RefOr::Ref(only)] = one_of.items.as_slice() {
                            let mut only = only.clone();
                            if only.description.is_empty() {
                                only.description = one_of.description.clone().unwrap_or_default();
                            }
                            if let Some(default) = one_of.default.take() {
                                only.description = with_default(&only.description, &default);
                            }
                            *property = RefOr::Ref(only);
                        } else if let Some(default) = one_of.default.take() {
                            let text = one_of.description.clone().unwrap_or_default();
                            one_of.description = Some(with_default(&text, &default));
                        }
                    }
                    RefOr::T(Schema::Object(field)) => {
                        if let Some(default) = field.default.take() {
                            let text = field.description.clone().unwrap_or_default();
                            field.description = Some(with_default(&text, &default));
                        }
                    }
                    _ => {}
                }
            }
        }
    }
}

/// `text` with the server's default said in words. A `default` keyword would make
/// openapi-typescript (by default) type the field as always present, also in request bodies
/// (`{options: {players: 2}}` would not type-check); the field stays optional.
fn with_default(text: &str, default: &serde_json::Value) -> String {
    let sentence = format!("Default: `{default}`.");
    match text.trim_end() {
        "" => sentence,
        text if text.to_lowercase().contains("default") => text.to_string(),
        text if text.ends_with('.') => format!("{text} {sentence}"),
        text => format!("{text}. {sentence}"),
    }
}

fn unwrap_nullable_body(body: &mut RequestBody) {
    if matches!(body.required, Some(Required::True)) {
        return;
    }
    for content in body.content.values_mut() {
        if let Some(RefOr::T(Schema::OneOf(one_of))) = &content.schema {
            let is_null = |item: &RefOr<Schema>| {
                matches!(item, RefOr::T(Schema::Object(o))
                    if o.schema_type == utoipa::openapi::schema::SchemaType::Type(
                        utoipa::openapi::schema::Type::Null))
            };
            if let [a, b] = one_of.items.as_slice() {
                let other = match (is_null(a), is_null(b)) {
                    (true, false) => Some(b.clone()),
                    (false, true) => Some(a.clone()),
                    _ => None,
                };
                if let Some(other) = other {
                    content.schema = Some(other);
                }
            }
        }
    }
}

fn operations(item: &mut PathItem) -> impl Iterator<Item = &mut utoipa::openapi::path::Operation> {
    [
        &mut item.get,
        &mut item.put,
        &mut item.post,
        &mut item.delete,
        &mut item.options,
        &mut item.head,
        &mut item.patch,
        &mut item.trace,
    ]
    .into_iter()
    .filter_map(Option::as_mut)
}

fn is_error(status: &str) -> bool {
    status.starts_with('4') || status.starts_with('5')
}

fn problem_content() -> Content {
    Content::new(Some(Ref::from_schema_name("Problem")))
}

fn problem_response(description: &str) -> Response {
    let mut r = Response::new(description);
    r.content
        .insert(PROBLEM_JSON.to_string(), problem_content());
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_operation_documents_problem_errors() {
        let api = openapi();
        assert!(!api.paths.paths.is_empty());
        let json = serde_json::to_value(&api).expect("json");
        for (path, item) in json["paths"].as_object().expect("paths") {
            for (method, op) in item.as_object().expect("item") {
                for range in ["4XX", "5XX"] {
                    let schema = &op["responses"][range]["content"][PROBLEM_JSON]["schema"]["$ref"];
                    assert_eq!(
                        schema, "#/components/schemas/Problem",
                        "{method} {path} {range}"
                    );
                }
            }
        }
        assert!(json["components"]["securitySchemes"]["bearer"].is_object());
    }

    #[test]
    fn seats_and_slots_are_bounded() {
        let json = serde_json::to_value(openapi()).expect("json");
        let schemas = &json["components"]["schemas"];
        assert!(
            schemas.get("u8").is_none(),
            "no schema named after a Rust type"
        );
        assert_eq!(schemas["Seat"]["maximum"], 3);
        assert_eq!(schemas["Slot"]["minimum"], 5);
        assert_eq!(schemas["Slot"]["maximum"], 60);
        assert_eq!(schemas["Slot"]["multipleOf"], 5);
    }

    #[test]
    fn action_variants_refuse_unknown_fields() {
        let json = serde_json::to_value(openapi()).expect("json");
        let schemas = &json["components"]["schemas"];
        let variants = schemas["Action"]["oneOf"]
            .as_array()
            .expect("Action is a oneOf");
        assert!(!variants.is_empty());
        for variant in variants {
            let name = variant["$ref"].as_str().expect("a named variant");
            let name = name.trim_start_matches("#/components/schemas/");
            assert_eq!(schemas[name]["additionalProperties"], false, "{name}");
        }
    }

    /// Every tagged union is a `oneOf` of named variants with a discriminator that maps every
    /// tag to the variant whose tag property has that one value.
    #[test]
    fn tagged_unions_have_named_variants_and_a_discriminator() {
        let json = serde_json::to_value(openapi()).expect("json");
        let schemas = &json["components"]["schemas"];
        for (union, property, _) in TAGGED_UNIONS {
            if schemas[union].is_null() {
                continue; // spread into another union
            }
            let items = schemas[union]["oneOf"].as_array().expect("a oneOf");
            let discriminator = &schemas[union]["discriminator"];
            assert_eq!(discriminator["propertyName"], *property, "{union}");
            let mapping = discriminator["mapping"].as_object().expect("a mapping");
            assert_eq!(mapping.len(), items.len(), "{union}");
            for (tag, target) in mapping {
                let target = target.as_str().expect("a reference");
                assert!(
                    items.iter().any(|item| item["$ref"] == target),
                    "{union}: {target} is not a variant"
                );
                let name = target.trim_start_matches("#/components/schemas/");
                let variant = &schemas[name];
                assert_eq!(
                    variant["properties"][property]["enum"],
                    serde_json::json!([tag])
                );
                assert!(
                    variant["required"]
                        .as_array()
                        .is_some_and(|r| r.iter().any(|p| p == property)),
                    "{name} requires its tag"
                );
            }
        }
        assert!(schemas["DrawAction"].is_object());
        assert!(schemas["JokerCard"].is_object());
        assert!(schemas["CardsSwappedEvent"].is_object());
        assert!(schemas["GameCreatedEvent"].is_object());
        // LogEvent: the lobby facts and every rules event, side by side
        let log = &schemas["LogEvent"]["discriminator"]["mapping"];
        for tag in [
            "game_created",
            "game_started",
            "round_started",
            "drew",
            "game_ended",
        ] {
            assert!(log[tag].is_string(), "LogEvent lacks {tag}");
        }
    }

    /// No union anywhere in the document still has inline tagged variants: a new tagged enum
    /// belongs in [`TAGGED_UNIONS`], or generators number its variants again.
    #[test]
    fn no_unnamed_tagged_variants_are_left() {
        fn walk(value: &serde_json::Value, at: &str) {
            match value {
                serde_json::Value::Object(map) => {
                    if let Some(items) = map.get("oneOf").and_then(|v| v.as_array()) {
                        for item in items {
                            let tagged = item["properties"].as_object().is_some_and(|props| {
                                props
                                    .values()
                                    .any(|p| p["enum"].as_array().is_some_and(|e| e.len() == 1))
                            });
                            assert!(!tagged, "{at}: an unnamed tagged variant {item}");
                        }
                    }
                    for (key, v) in map {
                        walk(v, &format!("{at}/{key}"));
                    }
                }
                serde_json::Value::Array(items) => items.iter().for_each(|v| walk(v, at)),
                _ => {}
            }
        }
        walk(&serde_json::to_value(openapi()).expect("json"), "#");
    }

    /// The awaiting phase names no action (the server deals the next round by itself).
    #[test]
    fn awaiting_round_names_no_action() {
        let json = serde_json::to_value(openapi()).expect("json");
        let text = json["components"]["schemas"]["AwaitingRoundPhase"]["description"]
            .as_str()
            .expect("described")
            .to_string();
        assert!(!text.contains("start_round"), "{text}");
    }

    /// Generators want every operation's security stated and an optional body that is just
    /// optional (not `null` or an object).
    #[test]
    fn public_operations_and_optional_bodies_are_explicit() {
        let json = serde_json::to_value(openapi()).expect("json");
        for (path, item) in json["paths"].as_object().expect("paths") {
            for (method, op) in item.as_object().expect("item") {
                assert!(op["security"].is_array(), "{method} {path}");
            }
        }
        let guests = &json["paths"]["/v1/guests"]["post"];
        assert_eq!(guests["security"], serde_json::json!([]));
        let body = &guests["requestBody"];
        assert!(body["required"].is_null() || body["required"] == false);
        assert_eq!(
            body["content"]["application/json"]["schema"]["$ref"],
            "#/components/schemas/GuestRequest"
        );
        let options = &json["components"]["schemas"]["Options"];
        assert!(options["required"].is_null(), "every option has a default");
        for (name, field) in options["properties"].as_object().expect("properties") {
            assert!(field.get("default").is_none(), "{name}");
            let text = field["description"].as_str().unwrap_or_default();
            assert!(text.to_lowercase().contains("default"), "{name}: {text}");
        }
    }

    #[test]
    fn pascal_case_of_tags() {
        assert_eq!(pascal_case("cards_swapped"), "CardsSwapped");
        assert_eq!(pascal_case("draw"), "Draw");
    }

    /// The codes a response description names (in backticks) are codes the server has, and
    /// `Problem.code` is documented as the enum of them all.
    #[test]
    fn codes_named_in_error_responses_exist() {
        let json = serde_json::to_value(openapi()).expect("json");
        let known: std::collections::HashSet<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
        let mut named = 0;
        for (path, item) in json["paths"].as_object().expect("paths") {
            for (method, op) in item.as_object().expect("item") {
                let responses = op["responses"].as_object().expect("responses");
                for (status, response) in responses {
                    if !(status.starts_with('4') || status.starts_with('5')) {
                        continue;
                    }
                    let description = response["description"].as_str().unwrap_or_default();
                    for code in description.split('`').skip(1).step_by(2) {
                        assert!(
                            known.contains(code),
                            "{method} {path} {status} names `{code}`, which is not a Code"
                        );
                        named += 1;
                    }
                }
            }
        }
        assert!(named > 50, "only {named} codes named");
        let schemas = &json["components"]["schemas"];
        assert_eq!(
            schemas["Problem"]["properties"]["code"]["$ref"],
            "#/components/schemas/Code"
        );
        let listed = schemas["Code"]["enum"].as_array().expect("Code is an enum");
        assert_eq!(listed.len(), Code::ALL.len());
        for (listed, code) in listed.iter().zip(Code::ALL) {
            assert_eq!(listed, code.as_str(), "the wire name");
            assert_eq!(
                serde_json::to_value(code).expect("json"),
                *listed,
                "serde agrees"
            );
        }
    }

    /// Every `$ref` in the document names a schema it defines: generators refuse dangling ones.
    #[test]
    fn every_reference_resolves() {
        let json = serde_json::to_value(openapi()).expect("json");
        let schemas = json["components"]["schemas"].as_object().expect("schemas");
        let mut refs = Vec::new();
        collect_refs(&json, &mut refs);
        assert!(refs.len() > 20, "only {} references", refs.len());
        for r in refs {
            let name = r.strip_prefix("#/components/schemas/").unwrap_or(&r);
            assert!(schemas.contains_key(name), "{r} is not defined");
        }
    }

    fn collect_refs(value: &serde_json::Value, out: &mut Vec<String>) {
        match value {
            serde_json::Value::Object(map) => {
                for (key, v) in map {
                    match (key.as_str(), v.as_str()) {
                        ("$ref", Some(r)) => out.push(r.to_string()),
                        _ => collect_refs(v, out),
                    }
                }
            }
            serde_json::Value::Array(items) => items.iter().for_each(|v| collect_refs(v, out)),
            _ => {}
        }
    }
}
