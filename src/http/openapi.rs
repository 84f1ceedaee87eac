//! The OpenAPI document, built from the handlers' `#[utoipa::path]` annotations with no
//! database, served at `/openapi.json`, browsable offline at `/docs/`, and committed as
//! `openapi/openapi.json` (a test keeps the two equal).
//!
//! To document a new handler, add its path to `paths(...)` below; schemas referenced by it are
//! collected automatically, and every 4XX/5XX answer gets the `Problem` body.

use std::sync::LazyLock;

use actix_web::{web, HttpResponse};
use utoipa::{
    openapi::{
        schema::AdditionalProperties,
        security::{HttpAuthScheme, HttpBuilder, SecurityScheme},
        Content, PathItem, Ref, RefOr, Response, Schema,
    },
    Modify, OpenApi,
};
use utoipa_swagger_ui::{Config, SwaggerUi};

use crate::{error::Code, http, http::problem::Problem, service};

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
        http::accounts::register,
        http::accounts::login,
        http::accounts::create_guest,
        http::accounts::me,
        http::accounts::revoke_tokens,
        http::accounts::upgrade,
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
        http::lobby::my_games,
        http::games::get_game,
        http::games::post_action,
        http::games::list_events,
    ),
    components(schemas(
        Problem,
        Code,
        http::helpers::GameCursor,
        http::helpers::EventCursor,
        http::lobby::ListStatus,
        service::lists::MyGames
    )),
    modifiers(&Platform),
    tags(
        (name = "accounts", description = "Accounts, guests and tokens"),
        (name = "audit", description = "Replay, export and verification of games; admin audit queries"),
        (name = "lobby", description = "Creating, joining and leaving games; the lobby and the inbox"),
        (name = "ops", description = "Health, readiness and metrics"),
        (name = "play", description = "A game as the caller sees it, actions and the event log"),
    )
)]
struct ApiDoc;

/// The document served and committed.
pub fn openapi() -> utoipa::openapi::OpenApi {
    ApiDoc::openapi()
}

/// The pretty JSON form of [`openapi`] with a trailing newline (what `racko openapi` prints).
pub fn openapi_json() -> String {
    let mut text = openapi()
        .to_pretty_json()
        .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    text.push('\n');
    text
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    // Our own resource (not SwaggerUi's) so that a wrong method answers 405 like elsewhere.
    cfg.service(web::resource("/openapi.json").route(web::get().to(spec)))
        .service(SwaggerUi::new("/docs/{_:.*}").config(Config::from("/openapi.json")))
        .service(web::resource("/docs").route(web::get().to(docs_redirect)));
}

/// Built once: the same bytes as `racko openapi` and the committed file.
static SPEC: LazyLock<String> = LazyLock::new(openapi_json);

async fn spec() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/json")
        .body(SPEC.as_str())
}

async fn docs_redirect() -> HttpResponse {
    HttpResponse::PermanentRedirect()
        .insert_header(("Location", "/docs/"))
        .finish()
}

const PROBLEM_JSON: &str = "application/problem+json";

/// Tagged enums whose every variant refuses unknown fields (serde `deny_unknown_fields`);
/// utoipa does not say so for an enum's variants, so [`Platform`] does.
const CLOSED_ONE_OFS: &[&str] = &["Action"];

/// Integer components whose Rust type is narrower than utoipa says (it gives `u8` and `u16`
/// only `minimum: 0`): a larger value is refused by the JSON parser (422 `invalid_body`).
const INTEGER_MAXIMA: &[(&str, u64)] = &[("u8", u8::MAX as u64), ("Slot", u16::MAX as u64)];

/// Adds the bearer scheme and the Problem body on every error answer of every operation,
/// closes the variants of [`CLOSED_ONE_OFS`] and bounds the [`INTEGER_MAXIMA`].
struct Platform;

impl Modify for Platform {
    fn modify(&self, api: &mut utoipa::openapi::OpenApi) {
        let components = api.components.get_or_insert_with(Default::default);
        for (name, maximum) in INTEGER_MAXIMA {
            if let Some(RefOr::T(Schema::Object(object))) = components.schemas.get_mut(*name) {
                object.maximum = Some(utoipa::Number::UInt(*maximum as usize));
            }
        }
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
                for (range, description) in [
                    ("4XX", "Client error (problem+json)"),
                    ("5XX", "Server error (problem+json)"),
                ] {
                    responses
                        .entry(range.to_string())
                        .or_insert_with(|| RefOr::T(problem_response(description)));
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
    fn narrow_integers_are_bounded() {
        let json = serde_json::to_value(openapi()).expect("json");
        let schemas = &json["components"]["schemas"];
        assert_eq!(schemas["u8"]["maximum"], 255);
        assert_eq!(schemas["Slot"]["maximum"], 65535);
    }

    #[test]
    fn action_variants_refuse_unknown_fields() {
        let json = serde_json::to_value(openapi()).expect("json");
        let variants = json["components"]["schemas"]["Action"]["oneOf"]
            .as_array()
            .expect("Action is a oneOf");
        assert!(!variants.is_empty());
        for variant in variants {
            assert_eq!(variant["additionalProperties"], false, "{variant}");
        }
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
