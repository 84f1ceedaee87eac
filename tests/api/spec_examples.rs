//! The document's request examples are requests the server accepts: each one, sent as it is
//! to its route by a fresh signed-in account (with the game it needs), gets a 2xx.

use std::time::{Duration, Instant};

use diesel::connection::SimpleConnection;
use diesel::{Connection, PgConnection, SqliteConnection};
use reqwest::{Method, StatusCode};
use serde_json::Value;

use crate::common::app::{spawn_app_with, TestApp};
use crate::common::db::TestBackend;

both_stores!(every_request_example_is_accepted);

/// This machine has no DNS: every webhook host is taken to be loopback (private addresses
/// are allowed on these servers), so example hosts such as `example.com` register.
#[derive(Debug)]
pub struct LoopbackLookup;

impl racko::config::HostLookup for LoopbackLookup {
    fn lookup(&self, _host: &str) -> std::io::Result<Vec<std::net::IpAddr>> {
        Ok(vec![std::net::Ipv4Addr::LOCALHOST.into()])
    }
}

/// A server that registers webhooks of any host (see [`LoopbackLookup`]).
pub async fn app_taking_any_webhook_host(backend: TestBackend) -> TestApp {
    spawn_app_with(backend, |c| {
        c.webhooks_allow_private = true;
        c.webhook_lookup = racko::config::WebhookLookup(std::sync::Arc::new(LoopbackLookup));
    })
    .await
}

/// The public document's request bodies, as (method, path, example).
pub fn request_examples() -> Vec<(String, String, Value)> {
    let doc = serde_json::to_value(racko::http::openapi::openapi()).expect("json");
    let schemas = &doc["components"]["schemas"];
    let mut out = Vec::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for (method, op) in item.as_object().expect("item") {
            let Some(body) = op.get("requestBody") else {
                continue;
            };
            let content = &body["content"]["application/json"];
            let named = content["schema"]["$ref"].as_str().unwrap_or_default();
            let schema = &schemas[named.trim_start_matches("#/components/schemas/")];
            let example = match &content["example"] {
                Value::Null => schema["example"].clone(),
                example => example.clone(),
            };
            assert!(!example.is_null(), "{method} {path} has no example");
            out.push((method.to_uppercase(), path.clone(), example));
        }
    }
    out
}

async fn send(
    app: &TestApp,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: &Value,
) -> (StatusCode, Value) {
    send_at(app, method, path, token, body, None).await
}

/// As `send`, with `If-Match: version` when there is one.
async fn send_at(
    app: &TestApp,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: &Value,
    version: Option<i64>,
) -> (StatusCode, Value) {
    let method = Method::from_bytes(method.as_bytes()).expect("a method");
    let mut req = app.request(method, path, token);
    if let Some(version) = version {
        req = req.header("If-Match", format!("\"{version}\""));
    }
    let res = req.json(body).send().await.expect("request");
    let status = res.status();
    let text = res.text().await.unwrap_or_default();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

/// A game against a basic computer at seat 1, once it is `token`'s turn: its id and version.
async fn game_on_my_turn(app: &TestApp, token: &str) -> (String, i64) {
    let body = serde_json::json!({"computer": [{"seat": 1, "level": "basic"}]});
    let (status, game) = send(app, "POST", "/v1/games", Some(token), &body).await;
    assert_eq!(status, StatusCode::CREATED, "{game}");
    let id = game["id"].as_str().expect("an id").to_string();
    let start = Instant::now();
    loop {
        let (_, seen) = send(
            app,
            "GET",
            &format!("/v1/games/{id}"),
            Some(token),
            &Value::Null,
        )
        .await;
        if seen["table"]["legal_actions"]
            .as_array()
            .is_some_and(|a| !a.is_empty())
        {
            return (id, seen["version"].as_i64().expect("a version"));
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "never my turn: {seen}"
        );
        actix_web::rt::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Gives every game of `app` the invite code `code` (the app holds one game).
fn set_invite_code(app: &TestApp, code: &str) {
    let sql = format!("UPDATE games SET invite_code = '{code}'");
    match app.backend {
        TestBackend::Postgres => PgConnection::establish(&app.db.url)
            .expect("connect")
            .batch_execute(&sql)
            .expect("update"),
        TestBackend::Sqlite => {
            // The server's workers write too: wait for their lock rather than fail at once.
            SqliteConnection::establish(app.db.url.trim_start_matches("sqlite://"))
                .expect("connect")
                .batch_execute(&format!("PRAGMA busy_timeout = 10000; {sql}"))
                .expect("update")
        }
    }
}

async fn every_request_example_is_accepted(app: TestApp) {
    // The example webhook's host is not looked up: this machine may have no DNS.
    let app = app_taking_any_webhook_host(app.backend).await;
    let examples = request_examples();
    assert!(examples.len() >= 10, "only {} bodies", examples.len());
    let example = |method: &str, path: &str| {
        examples
            .iter()
            .find(|(m, p, _)| m == method && p == path)
            .map(|(_, _, e)| e.clone())
            .unwrap_or_else(|| panic!("{method} {path} is not documented"))
    };
    let mut sent = Vec::new();
    let mut accept = |method: &str, path: &str, status: StatusCode, body: &Value| {
        assert!(status.is_success(), "{method} {path}: {status} {body}");
        sent.push((method.to_string(), path.to_string()));
    };

    // The account the examples name: registered, then signed in, deleted last.
    let (status, auth) = send(
        &app,
        "POST",
        "/v1/accounts",
        None,
        &example("POST", "/v1/accounts"),
    )
    .await;
    accept("POST", "/v1/accounts", status, &auth);
    let (status, body) = send(
        &app,
        "POST",
        "/v1/sessions",
        None,
        &example("POST", "/v1/sessions"),
    )
    .await;
    accept("POST", "/v1/sessions", status, &body);
    // A refresh token cannot be a fixed example: the example's shape, with the real one.
    let path = "/v1/sessions/refresh";
    let mut refresh = example("POST", path);
    refresh["refresh_token"] = body["refresh_token"].clone();
    let (status, body) = send(&app, "POST", path, None, &refresh).await;
    accept("POST", path, status, &body);
    let alice = body["token"].as_str().expect("a token").to_string();

    let (status, guest) = send(
        &app,
        "POST",
        "/v1/guests",
        None,
        &example("POST", "/v1/guests"),
    )
    .await;
    accept("POST", "/v1/guests", status, &guest);
    let guest = guest["token"].as_str().expect("a token").to_string();
    let path = "/v1/accounts/me/upgrade";
    let (status, body) = send(&app, "POST", path, Some(&guest), &example("POST", path)).await;
    accept("POST", path, status, &body);

    let (me, _) = app.guest().await;
    let (status, body) = send(
        &app,
        "POST",
        "/v1/games",
        Some(&me),
        &example("POST", "/v1/games"),
    )
    .await;
    accept("POST", "/v1/games", status, &body);

    let (id, version) = game_on_my_turn(&app, &me).await;
    let path = "/v1/games/{id}/actions";
    let (status, body) = send_at(
        &app,
        "POST",
        &path.replace("{id}", &id),
        Some(&me),
        &example("POST", path),
        Some(version),
    )
    .await;
    accept("POST", path, status, &body);
    let (id, version) = game_on_my_turn(&app, &me).await;
    let path = "/v1/games/{id}/resign";
    let (status, body) = send_at(
        &app,
        "POST",
        &path.replace("{id}", &id),
        Some(&me),
        &example("POST", path),
        Some(version),
    )
    .await;
    accept("POST", path, status, &body);

    // A word to the table, then a report of it.
    let (id, _) = game_on_my_turn(&app, &me).await;
    let path = "/v1/games/{id}/chat";
    let (status, body) = send(
        &app,
        "POST",
        &path.replace("{id}", &id),
        Some(&me),
        &example("POST", path),
    )
    .await;
    accept("POST", path, status, &body);
    let path = "/v1/games/{id}/chat/{seq}/report";
    let (status, body) = send(
        &app,
        "POST",
        &path.replace("{id}", &id).replace("{seq}", "1"),
        Some(&me),
        &example("POST", path),
    )
    .await;
    accept("POST", path, status, &body);

    let path = "/v1/me/webhooks";
    let (status, body) = send(&app, "POST", path, Some(&me), &example("POST", path)).await;
    accept("POST", path, status, &body);
    let path = "/v1/me/devices";
    let (status, body) = send(&app, "POST", path, Some(&me), &example("POST", path)).await;
    accept("POST", path, status, &body);
    let path = "/v1/seeks";
    let (status, body) = send(&app, "POST", path, Some(&me), &example("POST", path)).await;
    accept("POST", path, status, &body);
    // A vacation needs a registered account: alice's.
    let path = "/v1/me/vacation";
    let (status, body) = send(&app, "PUT", path, Some(&alice), &example("PUT", path)).await;
    accept("PUT", path, status, &body);

    // Inviting the example's account (bob, the upgraded guest) to an open game.
    let (status, open) = send(&app, "POST", "/v1/games", Some(&me), &serde_json::json!({})).await;
    assert_eq!(status, StatusCode::CREATED, "{open}");
    let id = open["id"].as_str().expect("an id");
    let path = "/v1/games/{id}/invitations";
    let (status, body) = send(
        &app,
        "POST",
        &path.replace("{id}", id),
        Some(&me),
        &example("POST", path),
    )
    .await;
    accept("POST", path, status, &body);

    // Befriending, then blocking, the example's account (after the invitation: a block would
    // refuse it).
    for path in ["/v1/me/friends", "/v1/me/blocks"] {
        let (status, body) = send(&app, "POST", path, Some(&me), &example("POST", path)).await;
        accept("POST", path, status, &body);
    }

    // Joining by code needs a game with the example's code: on a server of its own, one open
    // game whose code is set to it.
    let lobby = spawn_app_with(app.backend, |_| {}).await;
    let (host, _) = lobby.guest().await;
    let (status, body) = send(
        &lobby,
        "POST",
        "/v1/games",
        Some(&host),
        &serde_json::json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let join = example("POST", "/v1/games/join");
    set_invite_code(&lobby, join["invite_code"].as_str().expect("a code").trim());
    let (guest, _) = lobby.guest().await;
    let (status, body) = send(&lobby, "POST", "/v1/games/join", Some(&guest), &join).await;
    accept("POST", "/v1/games/join", status, &body);

    let path = "/v1/accounts/me";
    let (status, body) = send(&app, "DELETE", path, Some(&alice), &example("DELETE", path)).await;
    accept("DELETE", path, status, &body);

    for (method, path, _) in &examples {
        assert!(
            sent.iter().any(|(m, p)| m == method && p == path),
            "{method} {path}: a new request body; send its example here"
        );
    }
}
