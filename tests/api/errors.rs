//! Every way a request can go wrong answers problem+json with its status and stable code.

use reqwest::{header, Method, StatusCode};
use serde_json::json;

use crate::common::app::{assert_problem, TestApp, TEST_PASSWORD};

async fn post_raw(
    app: &TestApp,
    path: &str,
    content_type: Option<&str>,
    body: Vec<u8>,
) -> reqwest::Response {
    let mut req = app.request(Method::POST, path, None).body(body);
    if let Some(ct) = content_type {
        req = req.header(header::CONTENT_TYPE, ct);
    }
    req.send().await.expect("sent")
}

both_stores!(
    malformed_json_is_400,
    wrong_shapes_are_422,
    wrong_content_type_is_415,
    oversized_body_is_413,
    unknown_route_is_404,
    wrong_method_is_405,
    request_ids_are_kept_or_made,
    bad_path_and_query_parameters_are_400,
    nul_characters_are_never_a_server_error,
    duplicate_keys_are_refused,
    problem_types_resolve_to_their_catalogue_entry,
);

async fn duplicate_keys_are_refused(app: TestApp) {
    let bodies = [
        r#"{"username": "alice", "username": "mallory", "password": "correct horse battery"}"#,
        r#"{"username": "alice", "password": "correct horse battery", "password": "x"}"#,
    ];
    for body in bodies {
        let res = post_raw(&app, "/v1/accounts", Some("application/json"), body.into()).await;
        let problem = assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "invalid_body").await;
        let detail = problem["detail"].as_str().unwrap_or_default();
        assert!(detail.contains("duplicate key"), "{detail}");
    }
    // Nested objects too: an action with two types, on an optional body as well.
    let (token, _) = app.guest().await;
    let created = app
        .post_json(
            "/v1/games",
            Some(&token),
            &json!({ "options": { "players": 2 } }),
        )
        .await;
    let game: serde_json::Value = created.json().await.expect("a game");
    let id = game["id"].as_str().expect("id");
    let body = r#"{"version": 1, "action": {"type": "draw", "type": "discard_drawn"}}"#;
    let res = app
        .request(
            Method::POST,
            &format!("/v1/games/{id}/actions"),
            Some(&token),
        )
        .header(header::CONTENT_TYPE, "application/json")
        .body(body)
        .send()
        .await
        .expect("sent");
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "invalid_body").await;
    let res = post_raw(
        &app,
        "/v1/guests",
        Some("application/json"),
        br#"{"a": 1, "a": 2}"#.to_vec(),
    )
    .await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "invalid_body").await;
}

async fn malformed_json_is_400(app: TestApp) {
    for body in [
        &b"{not json"[..],
        b"",
        b"{\"username\": \"al",
        b"{\"username\": \"\xff\xfe\"}",
    ] {
        let res = post_raw(
            &app,
            "/v1/accounts",
            Some("application/json"),
            body.to_vec(),
        )
        .await;
        assert_problem(res, StatusCode::BAD_REQUEST, "invalid_json").await;
    }
}

async fn wrong_shapes_are_422(app: TestApp) {
    for body in [
        json!({ "username": 5, "password": TEST_PASSWORD }),
        json!({ "username": "alice" }),
        json!({ "username": "alice", "password": TEST_PASSWORD, "admin": true }),
        json!(["alice", TEST_PASSWORD]),
        json!(null),
    ] {
        let res = app.post_json("/v1/accounts", None, &body).await;
        assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "invalid_body").await;
    }
}

async fn wrong_content_type_is_415(app: TestApp) {
    let body = json!({ "username": "alice", "password": TEST_PASSWORD })
        .to_string()
        .into_bytes();
    for ct in [
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
        None,
    ] {
        let res = post_raw(&app, "/v1/accounts", ct, body.clone()).await;
        assert_problem(
            res,
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
        )
        .await;
        let res = post_raw(&app, "/v1/guests", ct, b"{}".to_vec()).await;
        assert_problem(
            res,
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
        )
        .await;
    }
}

async fn oversized_body_is_413(app: TestApp) {
    let big = format!(
        r#"{{"username": "alice", "password": "{}"}}"#,
        "x".repeat(100 * 1024)
    );
    for path in ["/v1/accounts", "/v1/sessions", "/v1/guests"] {
        let res = post_raw(
            &app,
            path,
            Some("application/json"),
            big.clone().into_bytes(),
        )
        .await;
        assert_problem(res, StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large").await;
    }
}

async fn unknown_route_is_404(app: TestApp) {
    for path in [
        "/nope",
        "/v1",
        "/v1/accounts/me/nope",
        "/%FF%FE",
        "/v1/accounts/%00",
    ] {
        assert_problem(
            app.get(path, None).await,
            StatusCode::NOT_FOUND,
            "not_found",
        )
        .await;
    }
}

async fn wrong_method_is_405(app: TestApp) {
    for (method, path, allowed) in [
        (Method::DELETE, "/v1/accounts", "POST"),
        (Method::GET, "/v1/sessions", "POST"),
        (Method::POST, "/healthz", "GET"),
        (Method::PUT, "/v1/accounts/me", "GET"),
    ] {
        let res = app.request(method, path, None).send().await.expect("sent");
        let allow = res
            .headers()
            .get(header::ALLOW)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string();
        assert_problem(res, StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed").await;
        assert!(allow.contains(allowed), "{path}: Allow = {allow:?}");
    }
}

async fn request_ids_are_kept_or_made(app: TestApp) {
    let res = app
        .request(Method::GET, "/healthz", None)
        .header("x-request-id", "abc-123")
        .send()
        .await
        .expect("sent");
    assert_eq!(res.headers()["x-request-id"], "abc-123");
    // A made-up id replaces one that could forge log lines.
    let res = app
        .request(Method::GET, "/nope", None)
        .header("x-request-id", "a b\tc")
        .send()
        .await
        .expect("sent");
    let id = res.headers()["x-request-id"]
        .to_str()
        .expect("ascii")
        .to_string();
    assert!(uuid::Uuid::parse_str(&id).is_ok(), "{id}");
}

async fn bad_path_and_query_parameters_are_400(app: TestApp) {
    let (token, _) = app.guest().await;
    let token = Some(token.as_str());
    for path in [
        "/v1/games/not-a-uuid",
        "/v1/games/123/events",
        "/v1/games/%FF",
    ] {
        let res = app.get(path, token).await;
        assert_problem(res, StatusCode::BAD_REQUEST, "invalid_path").await;
    }
    let res = app
        .post_json("/v1/games/nope/actions", token, &json!({}))
        .await;
    assert_problem(res, StatusCode::BAD_REQUEST, "invalid_path").await;

    let id = uuid::Uuid::new_v4();
    for query in ["after=x", "limit=1.5", "after=99999999999999999999"] {
        let res = app
            .get(&format!("/v1/games/{id}/events?{query}"), token)
            .await;
        assert_problem(res, StatusCode::BAD_REQUEST, "invalid_query").await;
    }
}

/// PostgreSQL refuses a NUL character in a text; that is the client's fault, never a 500.
async fn nul_characters_are_never_a_server_error(app: TestApp) {
    let login = json!({ "username": "a\u{0}b", "password": TEST_PASSWORD });
    let res = app.post_json("/v1/sessions", None, &login).await;
    let status = res.status();
    assert!(
        status == StatusCode::UNAUTHORIZED || status == StatusCode::BAD_REQUEST,
        "status {status}"
    );
    let (token, _) = app.register("nul_tester").await;
    let join = json!({ "invite_code": "A\u{0}B" });
    let res = app.post_json("/v1/games/join", Some(&token), &join).await;
    assert!(res.status().is_client_error(), "status {}", res.status());
    let body: serde_json::Value = res.json().await.expect("problem body");
    assert!(body["code"].is_string(), "{body}");
}

/// A problem's `type`, resolved against the request's URL as RFC 9457 says, is a page the
/// server serves with a section for the code; as Markdown it is `docs/errors.md`.
async fn problem_types_resolve_to_their_catalogue_entry(app: TestApp) {
    let asked = reqwest::Url::parse(&app.url("/v1/no-such-thing")).expect("url");
    let res = app.get(asked.path(), None).await;
    let body = assert_problem(res, StatusCode::NOT_FOUND, "not_found").await;
    let kind = body["type"].as_str().expect("type is a string");
    let link = asked.join(kind).expect("type is a URI reference");
    assert_eq!(link.fragment(), Some("not_found"));
    let page = app.client.get(link.clone()).send().await.expect("sent");
    assert_eq!(page.status(), StatusCode::OK);
    let content_type = page.headers()[header::CONTENT_TYPE]
        .to_str()
        .expect("ascii");
    assert!(content_type.starts_with("text/html"), "{content_type}");
    let html = page.text().await.expect("body");
    assert!(html.contains("<section id=\"not_found\">"), "{html}");
    let md = app
        .client
        .get(link)
        .header(header::ACCEPT, "text/markdown")
        .send()
        .await
        .expect("sent");
    assert_eq!(md.status(), StatusCode::OK);
    let committed = include_str!("../../docs/errors.md");
    assert_eq!(md.text().await.expect("body"), committed);
}
