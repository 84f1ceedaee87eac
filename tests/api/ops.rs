//! Health, readiness and metrics.

use reqwest::{header, StatusCode};
use serde_json::json;
use uuid::Uuid;

use crate::common::app::{assert_problem, json_body, Scrape, TestApp};
use crate::tables::{players, post_action, post_with, small_game, view};

both_stores!(
    healthz_and_readyz_answer_ok,
    metrics_count_requests_by_route_pattern,
    metrics_count_applied_actions_and_version_conflicts,
    metrics_show_streams_pool_webhook_backlog_and_sweeper_lag,
);

const APPLIED: &str = "racko_actions_applied_total";
const CONFLICTS: &str = "racko_version_conflicts_total";

async fn healthz_and_readyz_answer_ok(app: TestApp) {
    for path in ["/healthz", "/readyz"] {
        let body = json_body(app.get(path, None).await, StatusCode::OK).await;
        assert_eq!(body, json!({ "status": "ok" }), "{path}");
    }
}

async fn metrics_count_requests_by_route_pattern(app: TestApp) {
    let before = app.scrape().await;
    assert_eq!(before.counter(APPLIED), 0.0, "a new server");
    assert_eq!(before.counter(CONFLICTS), 0.0, "a new server");

    app.get("/healthz", None).await;
    app.get("/no/such/route", None).await;
    let (token, _) = app.guest().await;
    app.get("/v1/accounts/me", Some(&token)).await;
    let unknown = Uuid::new_v4();
    for _ in 0..2 {
        let res = app.get(&format!("/v1/games/{unknown}"), Some(&token)).await;
        assert_eq!(res.status(), StatusCode::NOT_FOUND);
    }

    let res = app.get("/metrics", None).await;
    assert_eq!(res.status(), StatusCode::OK);
    let content_type = res.headers()[header::CONTENT_TYPE]
        .to_str()
        .expect("ascii")
        .to_string();
    assert!(content_type.starts_with("text/plain"), "{content_type}");
    let after = Scrape(res.text().await.expect("body"));
    for (series, rise) in [
        (
            r#"racko_http_requests_total{method="GET",route="/healthz",status="200"}"#,
            1.0,
        ),
        (
            r#"racko_http_requests_total{method="GET",route="unmatched",status="404"}"#,
            1.0,
        ),
        (
            r#"racko_http_requests_total{method="POST",route="/v1/guests",status="201"}"#,
            1.0,
        ),
        (
            r#"racko_http_requests_total{method="GET",route="/v1/accounts/me",status="200"}"#,
            1.0,
        ),
        (
            r#"racko_http_requests_total{method="GET",route="/v1/games/{id}",status="404"}"#,
            2.0,
        ),
        // The read before this one.
        (
            r#"racko_http_requests_total{method="GET",route="/metrics",status="200"}"#,
            1.0,
        ),
    ] {
        assert_eq!(
            after.rise(&before, series),
            rise,
            "{series} in:\n{}",
            after.0
        );
    }
    assert!(
        !after.0.contains(&unknown.to_string()),
        "a label holds a raw path:\n{}",
        after.0
    );
    let bucket = r#"racko_http_request_duration_seconds_count{method="GET",route="/healthz"}"#;
    assert_eq!(after.rise(&before, bucket), 1.0, "{}", after.0);
    // Nothing was played.
    assert_eq!(after.rise(&before, APPLIED), 0.0);
    assert_eq!(after.rise(&before, CONFLICTS), 0.0);
}

/// Each stored action counts once; a write refused for a stale version counts as a conflict;
/// a retried action (answered from its record) and a refused one count as neither.
async fn metrics_count_applied_actions_and_version_conflicts(app: TestApp) {
    let table = players(&app, &["ann", "bob"]).await;
    let (ann, bob) = (&table[0], &table[1]);
    let id = small_game(&app, &table).await;
    let path = format!("/v1/games/{id}/actions");
    let start = app.scrape().await;
    let rose = async |since: &Scrape| {
        let now = app.scrape().await;
        (now.rise(since, APPLIED), now.rise(since, CONFLICTS))
    };

    // Bob draws: one action applied.
    let version = view(&app, bob, &id).await["version"].clone();
    let draw = json!({ "version": version, "action": { "type": "draw" } });
    let key = [("idempotency-key", "draw-1")];
    let res = post_with(&app, &path, bob.token(), &key, &draw).await;
    json_body(res, StatusCode::OK).await;
    assert_eq!(rose(&start).await, (1.0, 0.0), "bob's draw");

    // Its retry is answered from the record, not applied again.
    let before = app.scrape().await;
    let res = post_with(&app, &path, bob.token(), &key, &draw).await;
    json_body(res, StatusCode::OK).await;
    assert_eq!(rose(&before).await, (0.0, 0.0), "a retry");

    // The same draw at the old version without a key: a version conflict.
    let before = app.scrape().await;
    let res = post_action(&app, bob, &id, &draw).await;
    assert_problem(res, StatusCode::CONFLICT, "stale_version").await;
    assert_eq!(rose(&before).await, (0.0, 1.0), "a stale version");

    // A refused action at the current version: neither.
    let version = view(&app, bob, &id).await["version"].clone();
    let before = app.scrape().await;
    let ann_draws = json!({ "version": version, "action": { "type": "draw" } });
    let res = post_action(&app, ann, &id, &ann_draws).await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "not_your_turn").await;
    assert_eq!(rose(&before).await, (0.0, 0.0), "a refused action");

    // Bob places the card: a second action.
    let place = json!({ "version": version, "action": { "type": "place_drawn", "slot": 5 } });
    json_body(post_action(&app, bob, &id, &place).await, StatusCode::OK).await;
    assert_eq!(rose(&start).await, (2.0, 1.0), "since the start");
}

async fn metrics_show_streams_pool_webhook_backlog_and_sweeper_lag(app: TestApp) {
    // A receiver that refuses connections: the delivery stays pending, retried later.
    let app =
        crate::common::app::spawn_app_with(app.backend, |c| c.webhooks_allow_private = true).await;
    let table = players(&app, &["ann", "bob"]).await;
    let hook = json!({ "url": "http://127.0.0.1:9/hook" });
    let res = app
        .post_json("/v1/me/webhooks", table[0].token(), &hook)
        .await;
    assert_eq!(res.status(), StatusCode::CREATED);
    let stream = crate::sse::Stream::open(&app, "/v1/me/stream", table[0].token(), None).await;
    // Bob joining tells ann, also through her webhook.
    let game =
        crate::tables::create(&app, &table[0], &json!({ "options": { "players": 2 } })).await;
    let id = game["id"].as_str().expect("id").to_string();
    crate::tables::join(&app, &table[1], &id).await;

    let scrape = app.scrape().await;
    assert!(
        scrape.get("racko_streams_open") >= Some(1.0),
        "{}",
        scrape.0
    );
    let max = scrape.get(r#"racko_db_pool_connections{state="max"}"#);
    assert!(max >= Some(1.0), "{}", scrape.0);
    assert!(scrape.get(r#"racko_db_pool_connections{state="busy"}"#) <= max);
    assert!(
        scrape.get(r#"racko_webhook_deliveries{status="pending"}"#) >= Some(1.0),
        "{}",
        scrape.0
    );
    assert_eq!(
        scrape.get(r#"racko_webhook_deliveries{status="failed"}"#),
        Some(0.0)
    );
    assert!(scrape.get("racko_webhook_oldest_pending_seconds") >= Some(0.0));
    assert!(scrape.get("racko_sweeper_overdue_games") >= Some(0.0));
    assert!(scrape.get("racko_sweeper_lag_seconds") >= Some(0.0));
    drop(stream);
}
