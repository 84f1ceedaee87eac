//! Extractor configuration: every way a request can fail to parse answers with a problem+json
//! body and a stable code, instead of actix's plain-text defaults.

use actix_web::{
    dev::Payload,
    error::{JsonPayloadError, PathError, QueryPayloadError},
    mime, web, FromRequest, HttpMessage, HttpRequest,
};
use futures_util::future::LocalBoxFuture;
use serde::de::DeserializeOwned;

use crate::error::{Code, ServiceError};

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

pub fn json_error(e: JsonPayloadError) -> ServiceError {
    match e {
        JsonPayloadError::OverflowKnownLength { limit, .. }
        | JsonPayloadError::Overflow { limit } => too_large(limit),
        JsonPayloadError::ContentType => ServiceError::new(
            Code::UnsupportedMediaType,
            "the body must be JSON (Content-Type: application/json)",
        ),
        JsonPayloadError::Deserialize(e) => serde_error(&e),
        JsonPayloadError::Payload(e) => {
            ServiceError::new(Code::BadRequest, format!("cannot read the body: {e}"))
        }
        other => ServiceError::new(Code::BadRequest, other.to_string()),
    }
}

fn too_large(limit: usize) -> ServiceError {
    ServiceError::new(
        Code::PayloadTooLarge,
        format!("the body is larger than {limit} bytes"),
    )
}

/// Broken JSON is 400 `invalid_json`; well-formed JSON of the wrong shape (wrong types,
/// missing or unknown fields) is 422 `invalid_body`.
fn serde_error(e: &serde_json::Error) -> ServiceError {
    use serde_json::error::Category;
    match e.classify() {
        Category::Data => ServiceError::new(Code::InvalidBody, e.to_string()),
        Category::Syntax | Category::Eof | Category::Io => ServiceError::new(
            Code::InvalidJson,
            format!("the body is not valid JSON: {e}"),
        ),
    }
}

fn path_error(e: PathError) -> ServiceError {
    let PathError::Deserialize(e) = e else {
        return ServiceError::new(Code::InvalidPath, "invalid path parameter");
    };
    ServiceError::new(Code::InvalidPath, format!("invalid path parameter: {e}"))
}

fn query_error(e: QueryPayloadError) -> ServiceError {
    let QueryPayloadError::Deserialize(e) = e else {
        return ServiceError::new(Code::InvalidQuery, "invalid query string");
    };
    ServiceError::new(Code::InvalidQuery, format!("invalid query string: {e}"))
}

/// For an optional JSON body (e.g. `POST /v1/guests`): an empty body (or `null`) gives
/// `T::default()`, anything else must be JSON and parse like `web::Json` would.
pub fn optional_json<T: DeserializeOwned + Default>(
    req: &HttpRequest,
    body: &[u8],
) -> Result<T, ServiceError> {
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
    match serde_json::from_slice::<Unique>(body).map_err(|e| serde_error(&e))? {
        Unique(serde_json::Value::Null) => Ok(T::default()),
        Unique(value) => from_object(value),
    }
}

/// A JSON value whose objects name each key once. RFC 8259 leaves duplicates to the reader
/// and serde_json keeps the last; a body with two `version`s or two `action`s is refused
/// instead, so that no proxy or client library reads it otherwise than the server.
struct Unique(serde_json::Value);

impl<'de> serde::Deserialize<'de> for Unique {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Unique, D::Error> {
        d.deserialize_any(UniqueVisitor).map(Unique)
    }
}

struct UniqueVisitor;

impl<'de> serde::de::Visitor<'de> for UniqueVisitor {
    type Value = serde_json::Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(serde_json::Value::Null, Into::into))
    }
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(serde_json::Value::Null)
    }
    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(serde_json::Value::Null)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::new();
        while let Some(Unique(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(items.into())
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut object = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                return Err(serde::de::Error::custom(format!(
                    "duplicate key `{key}`: each key may appear once in an object"
                )));
            }
            let Unique(value) = map.next_value()?;
            object.insert(key, value);
        }
        Ok(object.into())
    }
}

fn from_object<T: DeserializeOwned>(value: serde_json::Value) -> Result<T, ServiceError> {
    if !value.is_object() {
        return Err(ServiceError::new(
            Code::InvalidBody,
            "the body must be a JSON object",
        ));
    }
    serde_json::from_value(value).map_err(|e| serde_error(&e))
}

/// Like `web::Json<T>` (same limits and errors), but the body must be a JSON object: serde
/// would otherwise also take a struct from an array of its fields.
#[derive(Debug)]
pub struct Json<T>(pub T);

impl<T> Json<T> {
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T: DeserializeOwned + 'static> FromRequest for Json<T> {
    type Error = actix_web::Error;
    type Future = LocalBoxFuture<'static, Result<Json<T>, actix_web::Error>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let value = web::Json::<Unique>::from_request(req, payload);
        Box::pin(async move {
            let Unique(value) = value.await?.into_inner();
            Ok(Json(from_object(value)?))
        })
    }
}

#[cfg(test)]
mod tests {
    use actix_web::{http::StatusCode, test, App};
    use serde::Deserialize;

    use super::*;

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Page {
        #[allow(dead_code)]
        limit: u8,
    }

    async fn code_of(uri: &str) -> (StatusCode, String, serde_json::Value) {
        let app = test::init_service(
            App::new()
                .configure(|c| configure(c, 1024))
                .route(
                    "/items/{id}",
                    web::get().to(|id: web::Path<uuid::Uuid>| async move { id.to_string() }),
                )
                .route("/list", web::get().to(|_: web::Query<Page>| async { "ok" })),
        )
        .await;
        let res = test::call_service(&app, test::TestRequest::get().uri(uri).to_request()).await;
        let status = res.status();
        let content_type = res
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string();
        let body: serde_json::Value = test::read_body_json(res).await;
        (status, content_type, body)
    }

    #[actix_web::test]
    async fn bad_path_parameters_are_invalid_path() {
        let (status, content_type, body) = code_of("/items/not-a-uuid").await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(content_type, "application/problem+json");
        assert_eq!(body["code"], "invalid_path");
    }

    #[actix_web::test]
    async fn bad_queries_are_invalid_query() {
        for uri in [
            "/list?limit=x",
            "/list",
            "/list?limit=1&other=2",
            "/list?limit=999",
        ] {
            let (status, content_type, body) = code_of(uri).await;
            assert_eq!(status, StatusCode::BAD_REQUEST, "{uri}");
            assert_eq!(content_type, "application/problem+json");
            assert_eq!(body["code"], "invalid_query", "{uri}");
        }
    }
}
