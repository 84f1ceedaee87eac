//! Open streams and long-polls are bounded per account, per address and in all: past a limit
//! a new one gets 429 `too_many_requests` with `Retry-After`, other clients' requests still
//! answer at once, and a stream the client closed gives its place back. SIGTERM ends open
//! streams at once.

use std::time::{Duration, Instant};

use reqwest::StatusCode;

use crate::common::app::{assert_problem, spawn_app_with, TestApp, TEST_PASSWORD};
use crate::common::db::{enabled, TestBackend, TestDb};
use crate::common::process::ServeProcess;
use crate::sse::Stream;

async fn app_with_limits(backend: TestBackend) -> Option<TestApp> {
    if !enabled(backend) {
        eprintln!("skipped: {backend:?} is not in RACKO_TEST_BACKENDS");
        return None;
    }
    let app = spawn_app_with(backend, |config| {
        config.stream_limits = racko::config::StreamLimits {
            per_account: 3,
            per_address: 5,
            total: 100,
            drop_after: Duration::from_secs(60),
        };
        config.stream_heartbeat = Duration::from_millis(200);
    })
    .await;
    Some(app)
}

async fn streams_past_the_limits_are_refused_and_others_go_on(backend: TestBackend) {
    let Some(app) = app_with_limits(backend).await else {
        return;
    };
    let (ann, _) = app.guest().await;
    let (bob, _) = app.guest().await;
    let mut open = Vec::new();
    for _ in 0..3 {
        open.push(Stream::open(&app, "/v1/me/stream", Some(&ann), None).await);
    }
    // The account's fourth: a stream and a long-poll alike.
    let res = app.get("/v1/me/stream", Some(&ann)).await;
    let retry = res.headers().get("retry-after").cloned();
    assert_problem(res, StatusCode::TOO_MANY_REQUESTS, "too_many_requests").await;
    assert_eq!(
        retry.and_then(|v| v.to_str().ok().map(str::to_string)),
        Some("5".to_string())
    );
    let res = app.get("/v1/me/feed?wait=5", Some(&ann)).await;
    assert_problem(res, StatusCode::TOO_MANY_REQUESTS, "too_many_requests").await;
    // A plain read holds no place.
    assert_eq!(
        app.get("/v1/me/feed", Some(&ann)).await.status(),
        StatusCode::OK
    );

    // The address's limit: bob's third stream from the same address is its sixth.
    open.push(Stream::open(&app, "/v1/me/stream", Some(&bob), None).await);
    open.push(Stream::open(&app, "/v1/me/stream", Some(&bob), None).await);
    let res = app.get("/v1/me/stream", Some(&bob)).await;
    assert_problem(res, StatusCode::TOO_MANY_REQUESTS, "too_many_requests").await;

    // Everyone else's ordinary requests still answer at once.
    let started = Instant::now();
    assert_eq!(app.get("/healthz", None).await.status(), StatusCode::OK);
    assert!(
        started.elapsed() < Duration::from_millis(100),
        "{:?}",
        started.elapsed()
    );

    // A stream the client closed gives its place back (noticed at its next heartbeat).
    drop(open.remove(0));
    let started = Instant::now();
    loop {
        let res = app.get("/v1/me/stream", Some(&ann)).await;
        if res.status() == StatusCode::OK {
            break;
        }
        assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS);
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "the place never came back"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[actix_web::test]
async fn streams_past_the_limits_are_refused_and_others_go_on_postgres() {
    streams_past_the_limits_are_refused_and_others_go_on(TestBackend::Postgres).await;
}

#[actix_web::test]
async fn streams_past_the_limits_are_refused_and_others_go_on_sqlite() {
    streams_past_the_limits_are_refused_and_others_go_on(TestBackend::Sqlite).await;
}

/// SIGTERM ends open streams at once (their clients resume from the log) instead of waiting
/// out the 30 s shutdown timeout for them.
#[actix_web::test]
async fn sigterm_ends_open_streams_at_once() {
    if !enabled(TestBackend::Sqlite) {
        eprintln!("skipped: Sqlite is not in RACKO_TEST_BACKENDS");
        return;
    }
    let db = TestDb::new(TestBackend::Sqlite);
    let server = ServeProcess::start(&db.url, &[]);
    let client = reqwest::Client::new();
    let registered: serde_json::Value = client
        .post(format!("{}/v1/accounts", server.url))
        .json(&serde_json::json!({ "username": "ann", "password": TEST_PASSWORD }))
        .send()
        .await
        .expect("registered")
        .json()
        .await
        .expect("json");
    let token = registered["token"].as_str().expect("a token").to_string();
    let mut stream = Stream::open_at(&server.url, "/v1/me/stream", Some(&token), None).await;
    let took = tokio::task::spawn_blocking(move || server.terminate())
        .await
        .expect("joined");
    assert!(
        took < Duration::from_secs(5),
        "the server took {took:?} to stop"
    );
    assert!(
        stream.rest(Duration::from_secs(1)).await.is_some(),
        "the stream ended"
    );
}
