//! The API document: committed == generated, and served.

use reqwest::{header, StatusCode};

use serde_json::json;

use crate::common::app::{assert_problem, json_body, TestApp};

const COMMITTED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/openapi/openapi.json");

#[test]
fn committed_spec_matches_the_code() {
    let generated = racko::http::openapi::openapi_json();
    let committed = std::fs::read_to_string(COMMITTED).unwrap_or_default();
    assert!(
        committed == generated,
        "openapi/openapi.json is out of date with the code. Regenerate it with\n\
         \n    cargo run -- openapi > openapi/openapi.json\n\nand commit the result."
    );
}

both_stores!(
    openapi_json_is_served,
    a_public_server_serves_the_public_document,
    docs_serve_swagger_ui_offline,
    every_documented_operation_is_routed,
);

/// A test server is in test mode: its document has the test-only parts.
async fn openapi_json_is_served(app: TestApp) {
    let served = json_body(app.get("/openapi.json", None).await, StatusCode::OK).await;
    let generated = serde_json::to_value(racko::http::openapi::openapi_for(true)).expect("json");
    assert_eq!(served, generated);
    assert!(served["paths"]["/v1/test/clock"].is_object());
    assert!(served["components"]["schemas"]["StackedDeck"].is_object());
    assert!(served["components"]["schemas"]["CreateGame"]["properties"]["stacked"].is_object());
    let res = app.post_json("/openapi.json", None, &json!({})).await;
    assert_problem(res, StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed").await;
}

/// Not in test mode: the committed document, without the test clock or stacked decks.
async fn a_public_server_serves_the_public_document(app: TestApp) {
    let public = crate::common::app::spawn_app_with(app.backend, |c| c.test_mode = false).await;
    let served = json_body(public.get("/openapi.json", None).await, StatusCode::OK).await;
    let committed: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(COMMITTED).unwrap_or_default())
            .expect("the committed document is JSON");
    assert_eq!(served, committed);
    assert!(served["paths"].get("/v1/test/clock").is_none());
    for name in ["ClockAdvance", "ClockNow", "StackedDeck"] {
        assert!(
            served["components"]["schemas"].get(name).is_none(),
            "{name}"
        );
    }
    let create = &served["components"]["schemas"]["CreateGame"]["properties"];
    assert!(create.get("stacked").is_none());
}

async fn docs_serve_swagger_ui_offline(app: TestApp) {
    let res = app.get("/docs", None).await;
    assert_eq!(res.status(), StatusCode::PERMANENT_REDIRECT);
    assert_eq!(res.headers()[header::LOCATION], "/docs/");

    let res = app.get("/docs/", None).await;
    assert_eq!(res.status(), StatusCode::OK);
    let content_type = res.headers()[header::CONTENT_TYPE]
        .to_str()
        .expect("ascii")
        .to_string();
    assert!(content_type.starts_with("text/html"), "{content_type}");
    let html = res.text().await.expect("body");
    assert!(html.contains("swagger-ui"), "{html}");
    // Its scripts come from this server, not a CDN.
    assert!(!html.contains("https://"), "{html}");
    let res = app.get("/docs/swagger-ui-bundle.js", None).await;
    assert_eq!(res.status(), StatusCode::OK);
}

/// Every path and method of the document reaches a handler: a request without a token gets
/// the handler's own answer (401 or a success), never the router's 404 or 405.
async fn every_documented_operation_is_routed(app: TestApp) {
    let spec = serde_json::to_value(racko::http::openapi::openapi()).expect("json");
    let paths = spec["paths"].as_object().expect("paths");
    let mut operations = 0;
    for (path, item) in paths {
        // Any well-formed value for a path parameter: ids are uuids, names are words.
        let concrete = path
            .replace("{id}", "00000000-0000-4000-8000-000000000001")
            .replace("{player}", "nobody")
            .replace("{username}", "nobody")
            .replace("{seq}", "1");
        assert!(!concrete.contains('{'), "untested path parameter in {path}");
        for method in item.as_object().expect("path item").keys() {
            let method = reqwest::Method::from_bytes(method.to_uppercase().as_bytes())
                .expect("an HTTP method");
            let res = app
                .request(method.clone(), &concrete, None)
                .header(header::CONTENT_TYPE, "application/json")
                .body("{}")
                .send()
                .await
                .expect("request");
            let status = res.status();
            assert_ne!(status, StatusCode::METHOD_NOT_ALLOWED, "{method} {path}");
            if status == StatusCode::NOT_FOUND {
                let body: serde_json::Value = res.json().await.expect("problem body");
                assert_ne!(body["code"], "not_found", "{method} {path} is not routed");
            }
            operations += 1;
        }
    }
    assert!(operations >= 20, "only {operations} operations documented");
}
