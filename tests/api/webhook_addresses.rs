//! Where webhook deliveries may go. A name is resolved once per connection, by the server's
//! own resolver seam (the one production uses, given a scripted lookup here), and the
//! connection goes only to the checked answer: a name that rebinds to loopback after its
//! registration reaches nothing. The delivery log shows a coarse reason only. Production
//! refuses to start with `RACKO_WEBHOOKS_ALLOW_PRIVATE`.

use std::net::IpAddr;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use racko::config::{HostLookup, WebhookLookup};
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::common::app::{json_body, spawn_app_with, TestApp};
use crate::common::db::{enabled, TestBackend};
use crate::receiver::{Mode, Receiver};
use crate::tables::{create, join, players, Player};

const PATIENCE: Duration = Duration::from_secs(20);

/// A resolver on a script: one answer per lookup, the last one again once it is used up.
#[derive(Debug)]
struct Scripted(Mutex<(Vec<IpAddr>, usize)>);

impl Scripted {
    fn new(answers: &[&str]) -> Arc<Scripted> {
        let answers = answers
            .iter()
            .map(|a| a.parse().expect("an address"))
            .collect();
        Arc::new(Scripted(Mutex::new((answers, 0))))
    }

    fn lookups(&self) -> usize {
        self.0.lock().expect("script").1
    }
}

impl HostLookup for Scripted {
    fn lookup(&self, _host: &str) -> std::io::Result<Vec<IpAddr>> {
        let mut script = self.0.lock().expect("script");
        let (answers, used) = &mut *script;
        let answer = answers.get(*used).or(answers.last()).copied();
        *used += 1;
        Ok(answer.into_iter().collect())
    }
}

async fn app(
    backend: TestBackend,
    allow_private: bool,
    lookup: Option<Arc<Scripted>>,
) -> Option<TestApp> {
    if !enabled(backend) {
        eprintln!("skipped: {backend:?} is not in RACKO_TEST_BACKENDS");
        return None;
    }
    Some(
        spawn_app_with(backend, |c| {
            c.webhooks_allow_private = allow_private;
            if let Some(lookup) = lookup {
                c.webhook_lookup = WebhookLookup(lookup);
            }
            c.webhook_poll = Duration::from_millis(50);
            c.webhook_retry_base = Duration::from_millis(100);
            c.webhook_timeout = Duration::from_secs(1);
        })
        .await,
    )
}

/// Registers `url` for `who`; the endpoint id.
async fn register(app: &TestApp, who: &Player, url: &str) -> String {
    let res = app
        .post_json("/v1/me/webhooks", who.token(), &json!({ "url": url }))
        .await;
    json_body(res, StatusCode::CREATED).await["webhook"]["id"]
        .as_str()
        .expect("id")
        .to_string()
}

/// A two-player game of the table's first two: feed items (and deliveries) for the first.
async fn a_game(app: &TestApp, table: &[Player]) {
    let created = create(app, &table[0], &json!({ "options": { "players": 2 } })).await;
    join(app, &table[1], created["id"].as_str().expect("id")).await;
}

async fn read_log(app: &TestApp, who: &Player, endpoint: &str) -> Vec<Value> {
    let path = format!("/v1/me/webhooks/{endpoint}/deliveries");
    let log = json_body(app.get(&path, who.token()).await, StatusCode::OK).await;
    log["deliveries"].as_array().expect("deliveries").clone()
}

/// Waits until every delivery of the endpoint's log satisfies `done` (at least one).
async fn wait_log(
    app: &TestApp,
    who: &Player,
    endpoint: &str,
    done: impl Fn(&Value) -> bool,
) -> Vec<Value> {
    let deadline = std::time::Instant::now() + PATIENCE;
    loop {
        let log = read_log(app, who, endpoint).await;
        if !log.is_empty() && log.iter().all(&done) {
            return log;
        }
        assert!(std::time::Instant::now() < deadline, "{log:#?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The port of `receiver.url` (`http://127.0.0.1:PORT/hook`).
fn port(receiver: &Receiver) -> u16 {
    let rest = receiver.url.trim_start_matches("http://127.0.0.1:");
    rest.split('/')
        .next()
        .and_then(|p| p.parse().ok())
        .expect("a port")
}

#[actix_web::test]
async fn a_name_rebinding_to_loopback_reaches_nothing_postgres() {
    a_name_rebinding_to_loopback_reaches_nothing(TestBackend::Postgres).await
}

#[actix_web::test]
async fn a_name_rebinding_to_loopback_reaches_nothing_sqlite() {
    a_name_rebinding_to_loopback_reaches_nothing(TestBackend::Sqlite).await
}

async fn a_name_rebinding_to_loopback_reaches_nothing(backend: TestBackend) {
    // Public at the registration's lookup, loopback at every later one.
    let script = Scripted::new(&["93.184.216.34", "127.0.0.1"]);
    let Some(app) = app(backend, false, Some(script.clone())).await else {
        return;
    };
    let receiver = Receiver::start(Mode::Ok);
    let table = players(&app, &["ann", "bob"]).await;
    // `localhost`: a client resolving the name on its own would reach the receiver.
    let url = format!("http://localhost:{}/hook", port(&receiver));
    let endpoint = register(&app, &table[0], &url).await;
    assert_eq!(script.lookups(), 1, "the registration looked the name up");
    a_game(&app, &table).await;

    let log = wait_log(&app, &table[0], &endpoint, |d| {
        d["attempts"].as_i64().is_some_and(|n| n >= 3)
    })
    .await;
    for d in &log {
        assert_eq!(d["last_error"], "refused address", "{d}");
        assert_eq!(d["last_status"], Value::Null, "{d}");
        let shown = d.to_string();
        assert!(!shown.contains("127.0.0.1"), "no resolver details: {shown}");
    }
    assert!(receiver.received().is_empty(), "{:#?}", receiver.received());
    // One lookup per attempt (and a few attempts under way): the check is the connection's
    // own resolution, not one before it.
    let attempts: i64 = read_log(&app, &table[0], &endpoint)
        .await
        .iter()
        .filter_map(|d| d["attempts"].as_i64())
        .sum();
    let lookups = script.lookups() as i64 - 1;
    let in_flight = 2 * log.len() as i64;
    assert!(
        (attempts..=attempts + in_flight).contains(&lookups),
        "{lookups} lookups for {attempts} attempts"
    );
}

#[actix_web::test]
async fn a_delivery_connects_to_the_checked_answer_postgres() {
    a_delivery_connects_to_the_checked_answer(TestBackend::Postgres).await
}

#[actix_web::test]
async fn a_delivery_connects_to_the_checked_answer_sqlite() {
    a_delivery_connects_to_the_checked_answer(TestBackend::Sqlite).await
}

/// A name no other resolver knows (`.invalid` never resolves), answered by the server's
/// resolver seam: a delivery arrives only if the connection used that answer.
async fn a_delivery_connects_to_the_checked_answer(backend: TestBackend) {
    let script = Scripted::new(&["127.0.0.1"]);
    let Some(app) = app(backend, true, Some(script.clone())).await else {
        return;
    };
    let receiver = Receiver::start(Mode::Ok);
    let table = players(&app, &["ann", "bob"]).await;
    let url = format!("http://hooks.racko.invalid:{}/hook", port(&receiver));
    let endpoint = register(&app, &table[0], &url).await;
    a_game(&app, &table).await;
    let log = wait_log(&app, &table[0], &endpoint, |d| d["status"] == "delivered").await;
    assert_eq!(receiver.received().len(), log.len());
    assert!(script.lookups() >= 2, "registration and delivery");
}

#[actix_web::test]
async fn the_delivery_log_shows_coarse_reasons_postgres() {
    the_delivery_log_shows_coarse_reasons(TestBackend::Postgres).await
}

#[actix_web::test]
async fn the_delivery_log_shows_coarse_reasons_sqlite() {
    the_delivery_log_shows_coarse_reasons(TestBackend::Sqlite).await
}

async fn the_delivery_log_shows_coarse_reasons(backend: TestBackend) {
    let Some(app) = app(backend, true, None).await else {
        return;
    };
    let table = players(&app, &["ann", "bob"]).await;
    let failing = Receiver::start(Mode::AlwaysFail);
    let hanging = Receiver::start(Mode::Hang);
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
        listener.local_addr().expect("address").port()
    };
    let cases = [
        (failing.url.clone(), "HTTP 500"),
        (hanging.url.clone(), "timeout"),
        (
            format!("http://127.0.0.1:{closed}/hook"),
            "connection refused",
        ),
    ];
    let mut endpoints = Vec::new();
    for (url, _) in &cases {
        endpoints.push(register(&app, &table[0], url).await);
    }
    a_game(&app, &table).await;
    for ((_, reason), endpoint) in cases.iter().zip(&endpoints) {
        let log = wait_log(&app, &table[0], endpoint, |d| {
            d["attempts"].as_i64().is_some_and(|n| n >= 1)
        })
        .await;
        for d in &log {
            assert_eq!(d["last_error"], *reason, "{d}");
        }
    }
    hanging.set_mode(Mode::Ok);
}

#[test]
fn production_refuses_to_start_with_private_webhooks() {
    let out = Command::new(env!("CARGO_BIN_EXE_racko"))
        .arg("serve")
        .env("RACKO_ENV", "production")
        .env(
            "RACKO_JWT_SECRET",
            "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        )
        .env("RACKO_WEBHOOKS_ALLOW_PRIVATE", "1")
        .env("RACKO_BIND", "127.0.0.1:0")
        .env("DATABASE_URL", "sqlite:///nonexistent/never-opened.sqlite3")
        .env_remove("RACKO_TEST_MODE")
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains("RACKO_WEBHOOKS_ALLOW_PRIVATE cannot be used in production"),
        "{stderr}"
    );
}
