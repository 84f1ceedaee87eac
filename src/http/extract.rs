//! Extractor configuration: every way a request can fail to parse answers with a problem+json
//! body and a stable code, instead of actix's plain-text defaults.

use actix_web::{
    error::{JsonPayloadError, PathError, QueryPayloadError},
    http::StatusCode,
    mime, web, HttpMessage, HttpRequest,
};
use serde::de::DeserializeOwned;

use crate::error::ApiError;

/// Registers the JSON, path, query and payload configs for the whole app.
pub fn configure(cfg: &mut web::ServiceConfig, max_body_bytes: usize) {
    cfg.app_data(
        web::JsonConfig::default()
            .limit(max_body_bytes)
            .error_handler(|e, _req| json_error(e).into()),
    )
    .app_data(web::PayloadConfig::new(max_body_bytes))
    .app_data(web::PathConfig::default().error_handler(|e, _req| path_error(e).into()))
    .app_data(web::QueryConfig::default().error_handler(|e, _req| query_error(e).into()));
}

pub fn json_error(e: JsonPayloadError) -> ApiError {
    match e {
        JsonPayloadError::OverflowKnownLength { limit, .. }
        | JsonPayloadError::Overflow { limit } => too_large(limit),
        JsonPayloadError::ContentType => ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            "the body must be JSON (Content-Type: application/json)",
        ),
        JsonPayloadError::Deserialize(e) => serde_error(&e),
        JsonPayloadError::Payload(e) => {
            ApiError::bad_request("invalid_body", format!("cannot read the body: {e}"))
        }
        other => ApiError::bad_request("invalid_body", other.to_string()),
    }
}

fn too_large(limit: usize) -> ApiError {
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        "payload_too_large",
        format!("the body is larger than {limit} bytes"),
    )
}

/// Broken JSON is 400 `invalid_json`; well-formed JSON of the wrong shape (wrong types,
/// missing or unknown fields) is 422 `invalid_body`.
fn serde_error(e: &serde_json::Error) -> ApiError {
    use serde_json::error::Category;
    match e.classify() {
        Category::Data => ApiError::unprocessable("invalid_body", e.to_string()),
        Category::Syntax | Category::Eof | Category::Io => {
            ApiError::bad_request("invalid_json", format!("the body is not valid JSON: {e}"))
        }
    }
}

fn path_error(e: PathError) -> ApiError {
    let PathError::Deserialize(e) = e else {
        return ApiError::bad_request("invalid_path", "invalid path parameter");
    };
    ApiError::bad_request("invalid_path", format!("invalid path parameter: {e}"))
}

fn query_error(e: QueryPayloadError) -> ApiError {
    let QueryPayloadError::Deserialize(e) = e else {
        return ApiError::bad_request("invalid_query", "invalid query string");
    };
    ApiError::bad_request("invalid_query", format!("invalid query string: {e}"))
}

/// For an optional JSON body (e.g. `POST /v1/guests`): an empty body gives `T::default()`,
/// anything else must be JSON and parse like `web::Json` would.
pub fn optional_json<T: DeserializeOwned + Default>(
    req: &HttpRequest,
    body: &[u8],
) -> Result<T, ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(T::default());
    }
    let is_json = req
        .mime_type()
        .ok()
        .flatten()
        .is_some_and(|m| m.subtype() == mime::JSON || m.suffix() == Some(mime::JSON));
    if !is_json {
        return Err(json_error(JsonPayloadError::ContentType));
    }
    serde_json::from_slice(body).map_err(|e| serde_error(&e))
}
