//! The refresh grace window: a refresh whose answer is lost in transit does not cost the
//! session. The token the last rotation spent, sent again within 30 s of that rotation, gets a
//! fresh pair (on any process); the pair that rotation issued is spent unseen; that token
//! after the window, or any older token, still ends the session (RFC 9700 §4.14.2).

use std::time::Duration;

use reqwest::{Client, StatusCode};
use serde_json::{json, Value};

use crate::common::app::TEST_PASSWORD;
use crate::common::db::{enabled, TestBackend, TestDb};
use crate::common::process::ServeProcess;

async fn post(client: &Client, url: &str, body: Value) -> (StatusCode, Value) {
    let res = client.post(url).json(&body).send().await.expect("answered");
    let status = res.status();
    (status, res.json().await.expect("JSON"))
}

async fn refresh(client: &Client, base: &str, token: &Value) -> (StatusCode, Value) {
    post(
        client,
        &format!("{base}/v1/sessions/refresh"),
        json!({ "refresh_token": token }),
    )
    .await
}

async fn me(client: &Client, base: &str, token: &Value) -> StatusCode {
    client
        .get(format!("{base}/v1/accounts/me"))
        .bearer_auth(token.as_str().expect("a token"))
        .send()
        .await
        .expect("answered")
        .status()
}

/// Two `racko serve` processes on one PostgreSQL database, in test mode (to move the clock
/// past the window without sleeping through it).
#[actix_web::test]
async fn a_lost_refresh_answer_is_retried_on_another_process_within_the_window_only() {
    if !enabled(TestBackend::Postgres) {
        return;
    }
    let db = TestDb::new(TestBackend::Postgres);
    let url = db.url.clone();
    let test_mode = [("RACKO_TEST_MODE", "1")];
    let (a, b) = tokio::task::spawn_blocking(move || {
        (
            ServeProcess::start(&url, &test_mode),
            ServeProcess::start(&url, &test_mode),
        )
    })
    .await
    .expect("both servers start");
    let client = Client::new();
    let (status, first) = post(
        &client,
        &format!("{}/v1/accounts", a.url),
        json!({ "username": "alice", "password": TEST_PASSWORD }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{first}");

    // Rotated on A; the answer is "lost". The same token on B within the window: a new pair.
    let (status, lost) = refresh(&client, &a.url, &first["refresh_token"]).await;
    assert_eq!(status, StatusCode::OK, "{lost}");
    let (status, retried) = refresh(&client, &b.url, &first["refresh_token"]).await;
    assert_eq!(status, StatusCode::OK, "the retry is answered: {retried}");
    assert_eq!(
        retried["session_id"], first["session_id"],
        "the same session"
    );
    assert_ne!(retried["refresh_token"], lost["refresh_token"]);
    for base in [&a.url, &b.url] {
        assert_eq!(me(&client, base, &retried["token"]).await, StatusCode::OK);
    }
    // The retried pair rotates on as usual.
    let (status, next) = refresh(&client, &a.url, &retried["refresh_token"]).await;
    assert_eq!(status, StatusCode::OK, "{next}");
    // The first token is two rotations old now: reuse, and the session ends everywhere.
    let (status, problem) = refresh(&client, &b.url, &first["refresh_token"]).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(problem["code"], "refresh_token_reused");
    // The other process learns of the ended session from its announcement.
    tokio::time::sleep(Duration::from_millis(500)).await;
    for base in [&a.url, &b.url] {
        assert_eq!(
            me(&client, base, &next["token"]).await,
            StatusCode::UNAUTHORIZED
        );
    }

    // A second session: the pair a rotation issued and lost, presented later, is reuse too.
    let (status, second) = post(
        &client,
        &format!("{}/v1/sessions", b.url),
        json!({ "username": "alice", "password": TEST_PASSWORD }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{second}");
    let (_, lost) = refresh(&client, &b.url, &second["refresh_token"]).await;
    let (status, retried) = refresh(&client, &a.url, &second["refresh_token"]).await;
    assert_eq!(status, StatusCode::OK, "{retried}");
    let (status, problem) = refresh(&client, &a.url, &lost["refresh_token"]).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "the unseen pair is spent");
    assert_eq!(problem["code"], "refresh_token_reused");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        me(&client, &b.url, &retried["token"]).await,
        StatusCode::UNAUTHORIZED
    );

    // A third: past the window, the token spent last is reuse on the other process.
    let (_, third) = post(
        &client,
        &format!("{}/v1/sessions", a.url),
        json!({ "username": "alice", "password": TEST_PASSWORD }),
    )
    .await;
    let (status, rotated) = refresh(&client, &a.url, &third["refresh_token"]).await;
    assert_eq!(status, StatusCode::OK, "{rotated}");
    let (status, clock) = post(
        &client,
        &format!("{}/v1/test/clock", a.url),
        json!({ "seconds": 31 }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{clock}");
    // B takes the clock up on its sweeper's next look, within a second.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let (status, problem) = refresh(&client, &b.url, &third["refresh_token"]).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{problem}");
    assert_eq!(problem["code"], "refresh_token_reused");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        me(&client, &a.url, &rotated["token"]).await,
        StatusCode::UNAUTHORIZED
    );
}
