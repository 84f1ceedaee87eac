//! CORS for browser clients on other origins (`RACKO_CORS_ORIGINS`). With no origin
//! configured this middleware passes everything through untouched. With some:
//! - a preflight (`OPTIONS` with `Access-Control-Request-Method`) from an allowed origin is
//!   answered here, 204 with the allowed methods and headers;
//! - any other request from an allowed origin gets `Access-Control-Allow-Origin` and
//!   `Access-Control-Expose-Headers` on its answer;
//! - a request from any other origin is served as if CORS did not exist (no CORS headers, so
//!   a browser refuses it; a non-browser client is unaffected).
//!
//! Tokens travel in `Authorization`, not cookies, so credentials are never allowed.

use actix_web::{
    body::{BoxBody, MessageBody},
    dev::{ServiceRequest, ServiceResponse},
    http::{
        header::{self, HeaderMap, HeaderValue},
        Method,
    },
    middleware::Next,
    web, Error, HttpResponse,
};

use crate::http::AppState;

pub const ALLOW_METHODS: &str = "GET, POST, DELETE";
pub const ALLOW_HEADERS: &str =
    "authorization, content-type, idempotency-key, if-match, if-none-match, x-request-id";
pub const EXPOSE_HEADERS: &str = "ETag, Retry-After, Location, X-Request-Id, Idempotent-Replayed";
/// How long a browser may keep a preflight's answer (it caps this itself, Chromium at 2 h).
const MAX_AGE_SECS: &str = "600";

pub async fn cors(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, Error> {
    let origins = req
        .app_data::<web::Data<AppState>>()
        .map(|s| s.config.clone());
    let Some(config) = origins.filter(|c| !c.cors_origins.is_empty()) else {
        return Ok(next.call(req).await?.map_into_boxed_body());
    };
    let allowed = req
        .headers()
        .get(header::ORIGIN)
        .and_then(|v| v.to_str().ok())
        .filter(|o| config.cors_origins.iter().any(|a| a == o))
        .and_then(|o| HeaderValue::from_str(o).ok());
    let preflight = req.method() == Method::OPTIONS
        && req
            .headers()
            .contains_key(header::ACCESS_CONTROL_REQUEST_METHOD);

    if let (Some(origin), true) = (&allowed, preflight) {
        let mut res = HttpResponse::NoContent().finish();
        let headers = res.headers_mut();
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin.clone());
        headers.insert(
            header::ACCESS_CONTROL_ALLOW_METHODS,
            HeaderValue::from_static(ALLOW_METHODS),
        );
        headers.insert(
            header::ACCESS_CONTROL_ALLOW_HEADERS,
            HeaderValue::from_static(ALLOW_HEADERS),
        );
        headers.insert(
            header::ACCESS_CONTROL_MAX_AGE,
            HeaderValue::from_static(MAX_AGE_SECS),
        );
        vary(
            headers,
            "Origin, Access-Control-Request-Method, Access-Control-Request-Headers",
        );
        return Ok(req.into_response(res));
    }

    let mut res = next.call(req).await?.map_into_boxed_body();
    let headers = res.headers_mut();
    // The answer depends on `Origin` whenever CORS is on, allowed or not.
    vary(headers, "Origin");
    if let Some(origin) = allowed {
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
        headers.insert(
            header::ACCESS_CONTROL_EXPOSE_HEADERS,
            HeaderValue::from_static(EXPOSE_HEADERS),
        );
    }
    Ok(res)
}

fn vary(headers: &mut HeaderMap, names: &'static str) {
    headers.append(header::VARY, HeaderValue::from_static(names));
}
