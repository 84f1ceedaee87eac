//! Health, readiness and metrics.

use reqwest::{header, StatusCode};
use serde_json::json;

use crate::common::app::{json_body, TestApp};

both_stores!(
    healthz_and_readyz_answer_ok,
    metrics_count_requests_by_route_pattern,
);

async fn healthz_and_readyz_answer_ok(app: TestApp) {
    for path in ["/healthz", "/readyz"] {
        let body = json_body(app.get(path, None).await, StatusCode::OK).await;
        assert_eq!(body, json!({ "status": "ok" }), "{path}");
    }
}

async fn metrics_count_requests_by_route_pattern(app: TestApp) {
    app.get("/healthz", None).await;
    app.get("/no/such/route", None).await;
    let (token, _) = app.guest().await;
    app.get("/v1/accounts/me", Some(&token)).await;

    let res = app.get("/metrics", None).await;
    assert_eq!(res.status(), StatusCode::OK);
    let content_type = res.headers()[header::CONTENT_TYPE]
        .to_str()
        .expect("ascii")
        .to_string();
    assert!(content_type.starts_with("text/plain"), "{content_type}");
    let text = res.text().await.expect("body");
    for line in [
        r#"racko_http_requests_total{method="GET",route="/healthz",status="200"} 1"#,
        r#"racko_http_requests_total{method="GET",route="unmatched",status="404"} 1"#,
        r#"racko_http_requests_total{method="POST",route="/v1/guests",status="201"} 1"#,
        r#"racko_http_requests_total{method="GET",route="/v1/accounts/me",status="200"} 1"#,
        "racko_actions_applied_total 0",
        "racko_version_conflicts_total 0",
    ] {
        assert!(text.contains(line), "missing {line} in:\n{text}");
    }
    assert!(text.contains("racko_http_request_duration_seconds_bucket"));
}
