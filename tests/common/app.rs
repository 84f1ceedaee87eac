//! `spawn_app`: the real `Application` on 127.0.0.1:0 over a fresh database, in test mode with
//! a fixed token secret, and a reqwest client with helpers. `both_stores!` runs a test against
//! each backend listed in `RACKO_TEST_BACKENDS`.

use std::future::Future;
use std::time::Duration;

use actix_web::dev::ServerHandle;
use racko::{
    app::Application,
    config::{Config, Secret},
    store::Waits,
};
use reqwest::{Method, RequestBuilder, Response, StatusCode};
use serde_json::{json, Value};
use uuid::Uuid;

use super::db::{enabled, TestBackend, TestDb};

/// The token secret of every test server (to forge tokens on purpose).
pub const TEST_JWT_SECRET: &str = "racko-test-secret-0123456789abcdef-0123456789";
/// The password `register` uses.
pub const TEST_PASSWORD: &str = "correct horse battery";

pub struct TestApp {
    /// `http://127.0.0.1:PORT`
    pub address: String,
    pub port: u16,
    pub client: reqwest::Client,
    pub backend: TestBackend,
    pub db: TestDb,
    handle: ServerHandle,
}

impl Drop for TestApp {
    fn drop(&mut self) {
        // Sends the stop command now; the database is dropped right after.
        drop(self.handle.stop(false));
    }
}

/// Starts the server on a fresh database of `backend`.
pub async fn spawn_app(backend: TestBackend) -> TestApp {
    spawn_app_with(backend, |_| {}).await
}

/// As `spawn_app`, after `customize` has changed the configuration.
pub async fn spawn_app_with(backend: TestBackend, customize: impl FnOnce(&mut Config)) -> TestApp {
    spawn_app_on(TestDb::new(backend), customize).await
}

/// As `spawn_app_with`, on the database `db`.
pub async fn spawn_app_on(db: TestDb, customize: impl FnOnce(&mut Config)) -> TestApp {
    let backend = db.backend;
    let mut config = Config {
        database_url: Some(db.url.clone()),
        bind: "127.0.0.1:0".to_string(),
        jwt_secret: Some(Secret::new(TEST_JWT_SECRET)),
        test_mode: true,
        pool_size: 4,
        workers: Some(2),
        // Tests create many accounts from one address; `api::limits` tests the limit itself.
        auth_per_minute: 0,
        // Generous waits: on a loaded 2-core CI machine a burst of writers can queue for
        // seconds. `api::faults` tests the short waits themselves.
        db_waits: Waits {
            lock: Duration::from_secs(10),
            statement: Duration::from_secs(30),
            connect: Duration::from_secs(10),
        },
        // Idle streams show a heartbeat within a test's patience.
        stream_heartbeat: Duration::from_millis(500),
        // Tests open many streams from one address; `api::stream_limits` tests the limits.
        stream_limits: racko::config::StreamLimits {
            per_account: 1000,
            per_address: 10_000,
            total: 10_000,
            drop_after: Duration::from_secs(60),
        },
        ..Config::defaults()
    };
    customize(&mut config);
    let app = Application::build(config)
        .await
        .expect("the test application builds");
    let port = app.port();
    let handle = app.handle();
    actix_web::rt::spawn(app.run_until_stopped());
    TestApp {
        address: format!("http://127.0.0.1:{port}"),
        port,
        client: reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("client"),
        backend,
        db,
        handle,
    }
}

/// Runs `test` on a new app of `backend`, or skips (with a note) when the backend is not listed
/// in `RACKO_TEST_BACKENDS`; fails when it is listed and cannot be reached (`db::enabled`).
pub async fn run_on<F, Fut>(backend: TestBackend, test: F)
where
    F: FnOnce(TestApp) -> Fut,
    Fut: Future<Output = ()>,
{
    if !enabled(backend) {
        eprintln!("skipped: {backend:?} is not in RACKO_TEST_BACKENDS");
        return;
    }
    test(spawn_app(backend).await).await;
}

/// Makes `mod name` with the tests `postgres` and `sqlite`, each on its own fresh database,
/// for each test given in one of two forms:
/// - `both_stores! { async fn name(app: TestApp) { … } … }`; attributes (e.g. `#[ignore]`)
///   are passed on to both tests;
/// - `both_stores!(name, other);` for `async fn name(app: TestApp)` defined beside it (which
///   rustfmt formats, unlike a macro's body).
#[macro_export]
macro_rules! both_stores {
    ($($name:ident),+ $(,)?) => {$(
        mod $name {
            #[actix_web::test]
            async fn postgres() {
                $crate::common::app::run_on($crate::common::db::TestBackend::Postgres, super::$name)
                    .await
            }

            #[actix_web::test]
            async fn sqlite() {
                $crate::common::app::run_on($crate::common::db::TestBackend::Sqlite, super::$name)
                    .await
            }
        }
    )+};
    ($($(#[$meta:meta])* async fn $name:ident($app:ident : $ty:ty) $body:block)*) => {$(
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            async fn run($app: $ty) $body

            $(#[$meta])*
            #[actix_web::test]
            async fn postgres() {
                $crate::common::app::run_on($crate::common::db::TestBackend::Postgres, run).await
            }

            $(#[$meta])*
            #[actix_web::test]
            async fn sqlite() {
                $crate::common::app::run_on($crate::common::db::TestBackend::Sqlite, run).await
            }
        }
    )*};
}

impl TestApp {
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.address, path)
    }

    /// A request with an optional bearer token.
    pub fn request(&self, method: Method, path: &str, token: Option<&str>) -> RequestBuilder {
        let builder = self.client.request(method, self.url(path));
        match token {
            Some(t) => builder.bearer_auth(t),
            None => builder,
        }
    }

    pub async fn get(&self, path: &str, token: Option<&str>) -> Response {
        self.request(Method::GET, path, token)
            .send()
            .await
            .expect("request sent")
    }

    pub async fn post_json(&self, path: &str, token: Option<&str>, body: &Value) -> Response {
        self.request(Method::POST, path, token)
            .json(body)
            .send()
            .await
            .expect("request sent")
    }

    /// Registers `username` (password [`TEST_PASSWORD`]); returns its token and id.
    pub async fn register(&self, username: &str) -> (String, Uuid) {
        let res = self
            .post_json(
                "/v1/accounts",
                None,
                &json!({ "username": username, "password": TEST_PASSWORD }),
            )
            .await;
        token_and_id(res, StatusCode::CREATED).await
    }

    /// One read of `/metrics` (served without a token, as configured by `spawn_app`).
    pub async fn scrape(&self) -> Scrape {
        let res = self.get("/metrics", None).await;
        let status = res.status();
        let text = res.text().await.expect("body");
        assert_eq!(status, StatusCode::OK, "/metrics: {text}");
        Scrape(text)
    }

    /// A new guest; returns its token and id.
    pub async fn guest(&self) -> (String, Uuid) {
        let res = self.post_json("/v1/guests", None, &json!({})).await;
        token_and_id(res, StatusCode::CREATED).await
    }
}

/// The text of one `/metrics` read.
pub struct Scrape(pub String);

impl Scrape {
    /// The value of `series`, written as in the text: the name and, if it has any, the labels,
    /// e.g. `racko_actions_applied_total` or
    /// `racko_http_requests_total{method="GET",route="/healthz",status="200"}`. None when the
    /// series is not there (a labelled counter appears with its first increment).
    pub fn get(&self, series: &str) -> Option<f64> {
        self.0.lines().find_map(|line| {
            let value = line.strip_prefix(series)?.strip_prefix(' ')?;
            Some(
                value
                    .trim()
                    .parse()
                    .unwrap_or_else(|e| panic!("{series}: {value:?} is no number ({e})")),
            )
        })
    }

    /// The value of a counter that must be there.
    #[track_caller]
    pub fn counter(&self, series: &str) -> f64 {
        self.get(series)
            .unwrap_or_else(|| panic!("no {series} in:\n{}", self.0))
    }

    /// How much `series` rose from `before` to this read (absent from `before`: from 0). Panics
    /// when it is not in this read, so a renamed series cannot pass as one that did not rise.
    #[track_caller]
    pub fn rise(&self, before: &Scrape, series: &str) -> f64 {
        let now = self.counter(series);
        now - before.get(series).unwrap_or(0.0)
    }
}

async fn token_and_id(res: Response, expected: StatusCode) -> (String, Uuid) {
    let body = json_body(res, expected).await;
    let token = body["token"].as_str().expect("token").to_string();
    let id = body["account"]["id"]
        .as_str()
        .and_then(|s| s.parse().ok())
        .expect("account id");
    (token, id)
}

/// Asserts the status and returns the JSON body.
pub async fn json_body(res: Response, expected: StatusCode) -> Value {
    let status = res.status();
    let text = res.text().await.expect("body");
    assert_eq!(status, expected, "unexpected status; body: {text}");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// Asserts a problem+json answer with this status and code; returns the body.
pub async fn assert_problem(res: Response, status: StatusCode, code: &str) -> Value {
    let content_type = res
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let body = json_body(res, status).await;
    assert_eq!(
        content_type, "application/problem+json",
        "content type; body: {body}"
    );
    assert_eq!(body["code"], code, "problem code; body: {body}");
    assert_eq!(
        body["status"],
        status.as_u16(),
        "problem status; body: {body}"
    );
    assert_eq!(body["type"], format!("/docs/errors#{code}"));
    body
}
