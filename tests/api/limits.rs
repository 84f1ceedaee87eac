//! Protections around the accounts: the per-address limit on the credential routes, the
//! metrics token, and the admin role read from the store.

use chrono::Utc;
use racko::config::Secret;
use reqwest::{header, StatusCode};
use serde_json::json;

use crate::common::app::{
    assert_problem, json_body, spawn_app_with, TestApp, TEST_JWT_SECRET, TEST_PASSWORD,
};

both_stores!(
    credential_routes_share_a_limit_per_address,
    behind_a_proxy_the_address_is_the_last_forwarded_one,
    metrics_need_the_token_when_one_is_set,
    the_admin_role_comes_from_the_store_not_the_token,
);

async fn limited(app: &TestApp, burst: u32, behind_proxy: bool) -> TestApp {
    spawn_app_with(app.backend, |config| {
        config.auth_burst = burst;
        config.auth_per_minute = 1;
        config.behind_proxy = behind_proxy;
    })
    .await
}

async fn credential_routes_share_a_limit_per_address(app: TestApp) {
    let app = limited(&app, 3, false).await;
    let (token, _) = app.register("alice").await;
    let wrong = json!({ "username": "alice", "password": "not her password" });
    for _ in 0..2 {
        let res = app.post_json("/v1/sessions", None, &wrong).await;
        assert_problem(res, StatusCode::UNAUTHORIZED, "invalid_credentials").await;
    }
    // The burst of 3 is used up (a register and two failed sign-ins): even the right password
    // waits now, and so do the other credential routes.
    let right = json!({ "username": "alice", "password": TEST_PASSWORD });
    let res = app.post_json("/v1/sessions", None, &right).await;
    let retry_after: u64 = res.headers()[header::RETRY_AFTER]
        .to_str()
        .expect("ascii")
        .parse()
        .expect("seconds");
    assert!((1..=60).contains(&retry_after), "{retry_after}");
    let body = assert_problem(res, StatusCode::TOO_MANY_REQUESTS, "rate_limited").await;
    assert!(body["detail"]
        .as_str()
        .unwrap_or_default()
        .contains("try again"));
    let res = app.post_json("/v1/guests", None, &json!({})).await;
    assert_problem(res, StatusCode::TOO_MANY_REQUESTS, "rate_limited").await;
    let res = app.post_json("/v1/accounts", None, &right).await;
    assert_problem(res, StatusCode::TOO_MANY_REQUESTS, "rate_limited").await;

    // Play and the other routes are not limited.
    let me = json_body(
        app.get("/v1/accounts/me", Some(&token)).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(me["username"], "alice");
    assert_eq!(app.get("/healthz", None).await.status(), StatusCode::OK);

    // The limited answers are counted like any other.
    let metrics = app.get("/metrics", None).await.text().await.expect("body");
    let line = r#"racko_http_requests_total{method="POST",route="/v1/sessions",status="429"} 1"#;
    assert!(metrics.contains(line), "missing {line} in:\n{metrics}");
}

async fn behind_a_proxy_the_address_is_the_last_forwarded_one(app: TestApp) {
    let guest = |app: &TestApp, forwarded: &'static str| {
        app.request(reqwest::Method::POST, "/v1/guests", None)
            .header("x-forwarded-for", forwarded)
            .json(&json!({}))
            .send()
    };
    let proxied = limited(&app, 1, true).await;
    let first = guest(&proxied, "203.0.113.9, 198.51.100.1")
        .await
        .expect("send");
    assert_eq!(first.status(), StatusCode::CREATED);
    // A forged first entry does not make a new client: the proxy's entry is the same.
    let forged = guest(&proxied, "203.0.113.10, 198.51.100.1")
        .await
        .expect("send");
    assert_problem(forged, StatusCode::TOO_MANY_REQUESTS, "rate_limited").await;
    let other = guest(&proxied, "198.51.100.2").await.expect("send");
    assert_eq!(other.status(), StatusCode::CREATED);

    // Not behind a proxy, the header is the client's word and is ignored.
    let direct = limited(&app, 1, false).await;
    let first = guest(&direct, "198.51.100.3").await.expect("send");
    assert_eq!(first.status(), StatusCode::CREATED);
    let second = guest(&direct, "198.51.100.4").await.expect("send");
    assert_problem(second, StatusCode::TOO_MANY_REQUESTS, "rate_limited").await;
}

async fn metrics_need_the_token_when_one_is_set(app: TestApp) {
    const TOKEN: &str = "scrape-me-0123456789";
    let app = spawn_app_with(app.backend, |config| {
        config.metrics_token = Some(Secret::new(TOKEN));
    })
    .await;
    let res = app.get("/metrics", None).await;
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
    let res = app.get("/metrics", Some("scrape-me-0123456788")).await;
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
    // A player's token is not the metrics token.
    let (player, _) = app.guest().await;
    let res = app.get("/metrics", Some(&player)).await;
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
    let res = app
        .request(reqwest::Method::GET, "/metrics", None)
        .header(header::AUTHORIZATION, format!("bearer {TOKEN}"))
        .send()
        .await
        .expect("send");
    assert_eq!(
        res.status(),
        StatusCode::OK,
        "the scheme is case-insensitive"
    );
    let res = app.get("/metrics", Some(TOKEN)).await;
    assert_eq!(res.status(), StatusCode::OK);
    assert!(res
        .text()
        .await
        .expect("body")
        .contains("racko_http_requests_total"));
}

async fn the_admin_role_comes_from_the_store_not_the_token(app: TestApp) {
    let (_, id) = app.register("mallory").await;
    // A rightly signed token that says admin, for an account the store has as a player (as a
    // token issued before a demotion would).
    let now = Utc::now().timestamp();
    let claims = json!({
        "sub": id, "username": "mallory", "role": "admin", "guest": false,
        "iss": "racko", "iat": now, "exp": now + 3600,
    });
    let key = jsonwebtoken::EncodingKey::from_secret(TEST_JWT_SECRET.as_bytes()).expect("key");
    let token =
        jsonwebtoken::encode(&jsonwebtoken::Header::default(), &claims, &key).expect("sign");
    for path in ["/v1/admin/events", "/v1/admin/players/mallory/games"] {
        let res = app.get(path, Some(&token)).await;
        assert_problem(res, StatusCode::FORBIDDEN, "admin_only").await;
    }
}
