//! The one middleware around every request: a request id (`X-Request-Id`, taken from the
//! client when sane, else generated, always echoed), one log line per request (method, path,
//! route, status, latency, request and account ids; never bodies or headers; a success's at
//! debug level), HTTP metrics, and a last guard that turns any error answer that is not yet
//! problem+json (actix's own 404/405/413…) into one.

use std::{panic::AssertUnwindSafe, time::Instant};

use actix_web::{
    body::{BoxBody, MessageBody},
    dev::{ServiceRequest, ServiceResponse},
    http::header::{self, HeaderName, HeaderValue},
    middleware::Next,
    web, Error, HttpMessage, ResponseError,
};
use futures_util::FutureExt;
use tracing::Instrument;
use uuid::Uuid;

use super::problem::fallback_response;
use crate::{
    error::{Code, ServiceError},
    http::AppState,
};

pub const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The account a request is signed in as, for its log line: the `CurrentUser` extractor puts
/// it in the request's extensions.
pub struct SignedInAs(pub Uuid);

pub async fn observe(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, Error> {
    let started = Instant::now();
    let request_id = incoming_request_id(&req).unwrap_or_else(|| Uuid::new_v4().to_string());
    let (method, path) = (req.method().clone(), req.path().to_owned());
    // What is logged while the request is handled gets this context at debug level: made for
    // every request, the span cost about 2 % of the actions a second. The request's own line
    // (below) carries the same fields at any level.
    let span = tracing::debug_span!(
        "request",
        request_id = %request_id,
        method = %method,
        path = ?path,
        // Filled in by the `CurrentUser` extractor when the request is signed in.
        account = tracing::field::Empty,
    );
    // Not a clone of the request: actix needs it unshared for routing.
    let metrics = req
        .app_data::<web::Data<AppState>>()
        .map(|s| s.metrics.clone());

    // A panicking handler answers a 500 problem instead of a dropped connection.
    let result = AssertUnwindSafe(next.call(req).instrument(span.clone()))
        .catch_unwind()
        .await
        .unwrap_or_else(|_| {
            span.in_scope(|| tracing::error!(request_id = %request_id, "handler panicked"));
            Err(ServiceError::internal("handler panicked").into())
        });
    let (status, route, account, result) = match result {
        Ok(res) => {
            let mut res = as_problem(res.map_into_boxed_body());
            if let Ok(v) = HeaderValue::from_str(&request_id) {
                res.headers_mut().insert(REQUEST_ID, v);
            }
            let route = res.request().match_pattern();
            let account = res.request().extensions().get::<SignedInAs>().map(|a| a.0);
            (res.status(), route, account, Ok(res))
        }
        // No inner service answers Err today; should one, it still becomes a problem.
        Err(e) => {
            let status = e.as_response_error().status_code();
            (
                status,
                None,
                None,
                Err(actix_web::error::InternalError::from_response(
                    "error answer",
                    fallback_response(status),
                )
                .into()),
            )
        }
    };
    let route = route.unwrap_or_else(|| "unmatched".to_string());
    let latency = started.elapsed();
    if let Some(m) = metrics {
        m.http_request(method_label(&method), &route, status.as_u16(), latency);
    }
    // A success at debug level: at thousands of answers a second its line cost about 5 % of
    // the actions a second, and /metrics counts every answer by route, status and latency.
    // `RUST_LOG=info,racko::http::observe=debug` logs every request.
    let ms = latency.as_secs_f64() * 1000.0;
    macro_rules! request_line {
        ($level:ident) => {
            tracing::$level!(
                status = status.as_u16(),
                route = %route,
                latency_ms = ms,
                request_id = %request_id,
                method = %method,
                path = ?path,
                account = %account.map_or_else(|| "-".to_string(), |id| id.to_string()),
                "request"
            )
        };
    }
    span.in_scope(|| {
        if status.is_server_error() {
            request_line!(warn);
        } else if status.is_client_error() {
            request_line!(info);
        } else {
            request_line!(debug);
        }
    });
    result
}

/// The method as a metrics label: a client may send any method name, and each new label
/// value would be a new time series, so unknown methods share one.
fn method_label(method: &actix_web::http::Method) -> &'static str {
    use actix_web::http::Method;
    match *method {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::HEAD => "HEAD",
        Method::OPTIONS => "OPTIONS",
        _ => "other",
    }
}

/// A client's id is kept when it is short and plain (so it cannot forge log lines).
fn incoming_request_id(req: &ServiceRequest) -> Option<String> {
    let v = req.headers().get(REQUEST_ID)?.to_str().ok()?;
    let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':');
    (!v.is_empty() && v.len() <= 64 && v.chars().all(plain)).then(|| v.to_string())
}

fn is_problem(res: &ServiceResponse<BoxBody>) -> bool {
    res.headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/problem+json"))
}

/// Rewrites a non-problem error answer into a problem+json one, keeping its headers (`Allow`).
fn as_problem(res: ServiceResponse<BoxBody>) -> ServiceResponse<BoxBody> {
    let status = res.status();
    if !(status.is_client_error() || status.is_server_error()) || is_problem(&res) {
        return res;
    }
    if status.is_server_error() {
        tracing::error!(status = status.as_u16(), "non-problem server error answer");
    }
    let (req, old) = res.into_parts();
    let mut new = fallback_response(status);
    for (name, value) in old.headers() {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            new.headers_mut().append(name.clone(), value.clone());
        }
    }
    ServiceResponse::new(req, new)
}

/// The app's default service: a problem instead of actix's empty 404.
pub async fn not_found() -> actix_web::HttpResponse {
    ServiceError::new(Code::NotFound, "no route matches this path").error_response()
}

#[cfg(test)]
mod tests {
    use actix_web::http::StatusCode;
    use actix_web::{middleware::from_fn, test, App, HttpResponse};

    use super::*;

    async fn boom() -> HttpResponse {
        panic!("boom")
    }

    async fn plain_400() -> HttpResponse {
        HttpResponse::BadRequest().body("plain text")
    }

    async fn call(uri: &str) -> (StatusCode, String, Option<String>, serde_json::Value) {
        let app = test::init_service(
            App::new()
                .wrap(from_fn(observe))
                .route("/boom", web::get().to(boom))
                .route("/plain", web::get().to(plain_400))
                .default_service(web::to(not_found)),
        )
        .await;
        let res = test::call_service(&app, test::TestRequest::get().uri(uri).to_request()).await;
        let header = |name| {
            res.headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        let (content_type, request_id) = (header(header::CONTENT_TYPE), header(REQUEST_ID));
        let status = res.status();
        let body = test::read_body_json(res).await;
        (status, content_type.unwrap_or_default(), request_id, body)
    }

    #[actix_web::test]
    async fn a_panic_answers_a_500_problem() {
        let app = test::init_service(
            App::new()
                .wrap(from_fn(observe))
                .route("/boom", web::get().to(boom)),
        )
        .await;
        let req = test::TestRequest::get().uri("/boom").to_request();
        // The server turns this error into its response (the request went with the panic).
        let Err(e) = test::try_call_service(&app, req).await else {
            panic!("a panic must not answer normally");
        };
        let res = e.error_response();
        assert_eq!(res.status(), StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(
            res.headers()
                .get(header::CONTENT_TYPE)
                .map(|v| v.as_bytes()),
            Some(&b"application/problem+json"[..])
        );
    }

    /// Collects what the subscriber writes.
    #[derive(Clone, Default)]
    struct Captured(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

    impl std::io::Write for Captured {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if let Ok(mut out) = self.0.lock() {
                out.extend_from_slice(buf);
            }
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// What this thread logs up to `level` from now on, until the guard is dropped.
    fn capture(level: tracing::Level) -> (Captured, tracing::subscriber::DefaultGuard) {
        let captured = Captured::default();
        let writer = captured.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(level)
            .with_writer(move || writer.clone())
            .finish();
        let guard = tracing::subscriber::set_default(subscriber);
        // Another test of this process may have met the middleware's callsites first, with no
        // subscriber anywhere, and cached "never" for them: have them ask again.
        tracing::callsite::rebuild_interest_cache();
        (captured, guard)
    }

    #[actix_web::test]
    async fn the_log_line_has_no_header_or_body() {
        let (captured, _guard) = capture(tracing::Level::DEBUG);
        let app = test::init_service(
            App::new()
                .wrap(from_fn(observe))
                .route("/plain", web::post().to(plain_400)),
        )
        .await;
        let req = test::TestRequest::post()
            .uri("/plain?q=1")
            .insert_header((header::AUTHORIZATION, "Bearer sekrit-token"))
            .set_payload("password=hunter2")
            .to_request();
        test::call_service(&app, req).await;

        let log = String::from_utf8(captured.0.lock().map(|v| v.clone()).unwrap_or_default())
            .unwrap_or_default();
        assert!(log.contains("/plain") && log.contains("400"), "{log}");
        for secret in ["sekrit", "hunter2", "q=1"] {
            assert!(!log.contains(secret), "{secret} leaked into: {log}");
        }
    }

    async fn ok() -> HttpResponse {
        HttpResponse::Ok().finish()
    }

    /// At the default level (info) a failed request has its line, a successful one none.
    #[actix_web::test]
    async fn a_success_is_logged_at_debug_a_failure_at_info() {
        let (captured, _guard) = capture(tracing::Level::INFO);
        let app = test::init_service(
            App::new()
                .wrap(from_fn(observe))
                .route("/ok", web::get().to(ok))
                .route("/plain", web::get().to(plain_400)),
        )
        .await;
        let log = || {
            String::from_utf8(captured.0.lock().map(|v| v.clone()).unwrap_or_default())
                .unwrap_or_default()
        };
        test::call_service(&app, test::TestRequest::get().uri("/ok").to_request()).await;
        assert!(!log().contains("/ok"), "{}", log());
        test::call_service(&app, test::TestRequest::get().uri("/plain").to_request()).await;
        assert!(
            log().contains("/plain") && log().contains("400"),
            "{}",
            log()
        );
    }

    #[actix_web::test]
    async fn plain_errors_become_problems_with_a_request_id() {
        let (status, content_type, request_id, body) = call("/plain").await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(content_type, "application/problem+json");
        assert_eq!(body["code"], "bad_request");
        assert!(request_id.is_some_and(|id| Uuid::parse_str(&id).is_ok()));
        let (status, _, _, body) = call("/nowhere").await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        assert_eq!(body["code"], "not_found");
    }
}
