//! Sessions: short-lived access tokens and rotating refresh tokens. A refresh spends its token
//! and hands out the next; a spent one sent again ends the session (RFC 9700 §4.14.2), on
//! every process; a session slides forward with each refresh, so a guest who comes back keeps
//! the account; every device's session is listed and can be ended, its streams with it.

use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use reqwest::{Client, Method, StatusCode};
use serde_json::{json, Value};

use crate::common::app::{
    assert_problem, json_body, spawn_app_with, TestApp, TEST_JWT_SECRET, TEST_PASSWORD,
};
use crate::common::db::{enabled, TestBackend, TestDb};
use crate::common::process::ServeProcess;
use crate::sse::Stream;

both_stores!(
    signing_in_opens_a_session_whose_refresh_token_rotates,
    a_spent_refresh_token_sent_again_ends_the_session,
    malformed_and_unknown_refresh_tokens_are_refused,
    sessions_are_listed_and_ended_one_by_one,
    ending_a_session_ends_its_open_streams,
    signing_out_everywhere_and_upgrading_a_guest_end_every_session,
    an_account_keeps_at_most_fifty_sessions,
    a_session_slides_forward_with_each_refresh_and_ends_unused,
    a_token_from_before_sessions_works_until_it_expires_and_opens_a_session,
);

/// A signed-in answer: access token, refresh token, session id.
struct Signed {
    token: String,
    refresh: String,
    session: String,
    body: Value,
}

fn signed(body: Value) -> Signed {
    let field = |name: &str| {
        body[name]
            .as_str()
            .unwrap_or_else(|| panic!("{name} in {body}"))
            .to_string()
    };
    Signed {
        token: field("token"),
        refresh: field("refresh_token"),
        session: field("session_id"),
        body: body.clone(),
    }
}

fn time(body: &Value, name: &str) -> DateTime<Utc> {
    body[name]
        .as_str()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("{name} in {body}"))
}

async fn register(app: &TestApp, name: &str, agent: &str) -> Signed {
    let res = app
        .request(Method::POST, "/v1/accounts", None)
        .header("user-agent", agent)
        .json(&json!({ "username": name, "password": TEST_PASSWORD }))
        .send()
        .await
        .expect("answered");
    signed(json_body(res, StatusCode::CREATED).await)
}

async fn login(app: &TestApp, name: &str, agent: &str) -> Signed {
    let res = app
        .request(Method::POST, "/v1/sessions", None)
        .header("user-agent", agent)
        .json(&json!({ "username": name, "password": TEST_PASSWORD }))
        .send()
        .await
        .expect("answered");
    signed(json_body(res, StatusCode::OK).await)
}

async fn refresh_at(client: &Client, base: &str, refresh: &str) -> reqwest::Response {
    client
        .post(format!("{base}/v1/sessions/refresh"))
        .json(&json!({ "refresh_token": refresh }))
        .send()
        .await
        .expect("answered")
}

async fn refresh(app: &TestApp, refresh: &str) -> reqwest::Response {
    refresh_at(&app.client, &app.address, refresh).await
}

async fn me(app: &TestApp, token: &str) -> StatusCode {
    app.get("/v1/accounts/me", Some(token)).await.status()
}

async fn sessions(app: &TestApp, token: &str) -> Vec<Value> {
    let body = json_body(
        app.get("/v1/accounts/me/sessions", Some(token)).await,
        StatusCode::OK,
    )
    .await;
    body["sessions"].as_array().expect("sessions").clone()
}

async fn delete(app: &TestApp, path: &str, token: &str) -> reqwest::Response {
    app.request(Method::DELETE, path, Some(token))
        .send()
        .await
        .expect("answered")
}

async fn signing_in_opens_a_session_whose_refresh_token_rotates(app: TestApp) {
    let first = register(&app, "alice", "racko-test/1").await;
    let issued = Utc::now();
    assert!(first.refresh.starts_with("rt1_") && first.refresh.len() == 68);
    let access_ends = time(&first.body, "expires_at");
    assert!(
        access_ends <= issued + chrono::Duration::minutes(16)
            && access_ends > issued + chrono::Duration::minutes(14),
        "access tokens live 15 minutes: {access_ends}"
    );
    let session_ends = time(&first.body, "refresh_expires_at");
    assert!(
        session_ends > issued + chrono::Duration::days(89),
        "sessions last 90 days: {session_ends}"
    );

    let res = refresh(&app, &first.refresh).await;
    assert_eq!(res.headers()["cache-control"], "no-store");
    let second = signed(json_body(res, StatusCode::OK).await);
    assert_eq!(second.session, first.session, "the same session");
    assert_ne!(second.refresh, first.refresh, "a new refresh token");
    assert_eq!(second.body["account"]["username"], "alice");
    assert!(time(&second.body, "refresh_expires_at") >= session_ends);
    assert_eq!(me(&app, &second.token).await, StatusCode::OK);
    // The first access token belongs to the same live session: good until it expires.
    assert_eq!(me(&app, &first.token).await, StatusCode::OK);

    // And again: each refresh token is good once.
    let third = signed(json_body(refresh(&app, &second.refresh).await, StatusCode::OK).await);
    assert_eq!(third.session, first.session);
    assert_eq!(me(&app, &third.token).await, StatusCode::OK);
}

async fn a_spent_refresh_token_sent_again_ends_the_session(app: TestApp) {
    let phone = register(&app, "alice", "phone").await;
    let laptop = login(&app, "alice", "laptop").await;
    let rotated = signed(json_body(refresh(&app, &phone.refresh).await, StatusCode::OK).await);

    // The spent token again (a thief's copy, or the owner's), past the grace window of a lost
    // answer (tests/api/refresh_grace.rs): the whole session ends.
    let res = app
        .post_json("/v1/test/clock", None, &json!({ "seconds": 31 }))
        .await;
    json_body(res, StatusCode::OK).await;
    let body = assert_problem(
        refresh(&app, &phone.refresh).await,
        StatusCode::UNAUTHORIZED,
        "refresh_token_reused",
    )
    .await;
    assert!(body["detail"]
        .as_str()
        .unwrap_or_default()
        .contains("ended"));
    assert_problem(
        refresh(&app, &rotated.refresh).await,
        StatusCode::UNAUTHORIZED,
        "invalid_refresh_token",
    )
    .await;
    for token in [&phone.token, &rotated.token] {
        assert_problem(
            app.get("/v1/accounts/me", Some(token)).await,
            StatusCode::UNAUTHORIZED,
            "unauthorized",
        )
        .await;
    }
    // The account's other session is untouched.
    assert_eq!(me(&app, &laptop.token).await, StatusCode::OK);
    json_body(refresh(&app, &laptop.refresh).await, StatusCode::OK).await;
}

async fn malformed_and_unknown_refresh_tokens_are_refused(app: TestApp) {
    let alice = register(&app, "alice", "phone").await;
    // Same session, other random part: not the session's token, so taken as a spent one.
    let other = if &alice.refresh[30..34] == "AAAA" {
        "BBBB"
    } else {
        "AAAA"
    };
    let mut forged = alice.refresh.clone();
    forged.replace_range(30..34, other);
    let unknown = format!("rt1_{}", "A".repeat(64));
    for bad in [
        "",
        "x",
        "rt1_",
        &alice.refresh[..67],
        &format!("{}A", alice.refresh),
        &unknown,
    ] {
        assert_problem(
            refresh(&app, bad).await,
            StatusCode::UNAUTHORIZED,
            "invalid_refresh_token",
        )
        .await;
    }
    for body in [
        json!({}),
        json!({ "refresh_token": 7 }),
        json!({ "refresh_token": "x", "more": 1 }),
    ] {
        let res = app.post_json("/v1/sessions/refresh", None, &body).await;
        assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "invalid_body").await;
    }
    // Nothing above touched the session.
    json_body(refresh(&app, &alice.refresh).await, StatusCode::OK).await;
    // A wrong token naming a live session ends it: whoever knows the session id holds one
    // of its access tokens already, so this grants nothing and is safe to treat as reuse.
    assert_problem(
        refresh(&app, &forged).await,
        StatusCode::UNAUTHORIZED,
        "refresh_token_reused",
    )
    .await;
}

async fn sessions_are_listed_and_ended_one_by_one(app: TestApp) {
    let phone = register(&app, "alice", "Racko/2.1 (iPhone)").await;
    let laptop = login(&app, "alice", "Mozilla/5.0 (X11)").await;
    let bob = register(&app, "bob", "bob's phone").await;

    let listed = sessions(&app, &phone.token).await;
    assert_eq!(listed.len(), 2, "{listed:?}");
    assert_eq!(
        listed[0]["id"], laptop.session,
        "the most recently used first"
    );
    assert_eq!(listed[0]["user_agent"], "Mozilla/5.0 (X11)");
    assert_eq!(listed[0]["current"], false);
    assert_eq!(listed[1]["id"], phone.session);
    assert_eq!(listed[1]["user_agent"], "Racko/2.1 (iPhone)");
    assert_eq!(listed[1]["current"], true);
    assert_eq!(
        listed[1]["client_address"], "127.0.0.0/24",
        "the network only"
    );
    for s in &listed {
        for field in ["created_at", "last_used_at", "expires_at"] {
            time(s, field);
        }
    }
    let from_laptop = sessions(&app, &laptop.token).await;
    assert_eq!(from_laptop[0]["current"], true);

    // Ending the laptop's session from the phone: its tokens stop, the phone's go on.
    let res = delete(
        &app,
        &format!("/v1/accounts/me/sessions/{}", laptop.session),
        &phone.token,
    )
    .await;
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    assert_problem(
        app.get("/v1/accounts/me", Some(&laptop.token)).await,
        StatusCode::UNAUTHORIZED,
        "unauthorized",
    )
    .await;
    assert_problem(
        refresh(&app, &laptop.refresh).await,
        StatusCode::UNAUTHORIZED,
        "invalid_refresh_token",
    )
    .await;
    let listed = sessions(&app, &phone.token).await;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["id"], phone.session);

    // Someone else's session, an ended one, an unknown one: all alike; a bad id is 400.
    for id in [
        &bob.session,
        &laptop.session,
        &uuid::Uuid::new_v4().to_string(),
    ] {
        let res = delete(
            &app,
            &format!("/v1/accounts/me/sessions/{id}"),
            &phone.token,
        )
        .await;
        assert_problem(res, StatusCode::NOT_FOUND, "session_not_found").await;
    }
    assert_eq!(me(&app, &bob.token).await, StatusCode::OK);
    let res = delete(&app, "/v1/accounts/me/sessions/not-a-uuid", &phone.token).await;
    assert_problem(res, StatusCode::BAD_REQUEST, "invalid_path").await;

    // Ending one's own session is signing out.
    let res = delete(
        &app,
        &format!("/v1/accounts/me/sessions/{}", phone.session),
        &phone.token,
    )
    .await;
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    assert_eq!(me(&app, &phone.token).await, StatusCode::UNAUTHORIZED);
}

async fn ending_a_session_ends_its_open_streams(app: TestApp) {
    let phone = register(&app, "alice", "phone").await;
    let laptop = login(&app, "alice", "laptop").await;
    let mut on_laptop = Stream::open(&app, "/v1/me/stream", Some(&laptop.token), None).await;
    let mut on_phone = Stream::open(&app, "/v1/me/stream", Some(&phone.token), None).await;

    let res = delete(
        &app,
        &format!("/v1/accounts/me/sessions/{}", laptop.session),
        &phone.token,
    )
    .await;
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    let ended = Instant::now();
    let rest = on_laptop
        .rest(Duration::from_millis(1500))
        .await
        .expect("the laptop's stream ended");
    assert!(ended.elapsed() < Duration::from_millis(1500));
    assert!(rest.contains("event: revoked"), "its last words: {rest:?}");
    // The phone's stream is still open (heartbeats go on).
    assert!(
        on_phone.rest(Duration::from_millis(1200)).await.is_none(),
        "the phone's stream stays open"
    );
}

async fn signing_out_everywhere_and_upgrading_a_guest_end_every_session(app: TestApp) {
    let phone = register(&app, "alice", "phone").await;
    let laptop = login(&app, "alice", "laptop").await;
    let res = delete(&app, "/v1/accounts/me/tokens", &phone.token).await;
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    for s in [&phone, &laptop] {
        assert_problem(
            refresh(&app, &s.refresh).await,
            StatusCode::UNAUTHORIZED,
            "invalid_refresh_token",
        )
        .await;
    }
    let again = login(&app, "alice", "phone").await;
    assert_eq!(sessions(&app, &again.token).await.len(), 1);

    // A guest's refresh token is a bearer credential like its access token: the upgrade
    // ends it, and answers a session of the registered account.
    let res = app.post_json("/v1/guests", None, &json!({})).await;
    let guest = signed(json_body(res, StatusCode::CREATED).await);
    let res = app
        .post_json(
            "/v1/accounts/me/upgrade",
            Some(&guest.token),
            &json!({ "username": "gina", "password": TEST_PASSWORD }),
        )
        .await;
    let upgraded = signed(json_body(res, StatusCode::OK).await);
    assert_ne!(upgraded.session, guest.session);
    assert_problem(
        refresh(&app, &guest.refresh).await,
        StatusCode::UNAUTHORIZED,
        "invalid_refresh_token",
    )
    .await;
    let next = signed(json_body(refresh(&app, &upgraded.refresh).await, StatusCode::OK).await);
    assert_eq!(next.body["account"]["username"], "gina");
    assert_eq!(next.body["account"]["guest"], false);
}

async fn an_account_keeps_at_most_fifty_sessions(app: TestApp) {
    let first = register(&app, "alice", "device 0").await;
    let mut last = None;
    for n in 1..=50 {
        last = Some(login(&app, "alice", &format!("device {n}")).await);
    }
    let last = last.expect("signed in");
    let listed = sessions(&app, &last.token).await;
    assert_eq!(listed.len(), 50);
    assert!(
        listed.iter().all(|s| s["id"] != first.session.as_str()),
        "the session unused longest was dropped"
    );
    assert_eq!(me(&app, &first.token).await, StatusCode::UNAUTHORIZED);
    assert_problem(
        refresh(&app, &first.refresh).await,
        StatusCode::UNAUTHORIZED,
        "invalid_refresh_token",
    )
    .await;
    assert_eq!(me(&app, &last.token).await, StatusCode::OK);
}

/// Moves the server's game clock (and with it the sessions' time) forward.
async fn advance(app: &TestApp, days: u64) {
    let res = app
        .post_json(
            "/v1/test/clock",
            None,
            &json!({ "seconds": days * 24 * 3600 }),
        )
        .await;
    json_body(res, StatusCode::OK).await;
}

async fn a_session_slides_forward_with_each_refresh_and_ends_unused(app: TestApp) {
    let res = app.post_json("/v1/guests", None, &json!({})).await;
    let mut guest = signed(json_body(res, StatusCode::CREATED).await);
    let id = guest.body["account"]["id"].clone();
    // Three visits 80 days apart: 240 days in all, each within the 90-day life.
    for _ in 0..3 {
        advance(&app, 80).await;
        guest = signed(json_body(refresh(&app, &guest.refresh).await, StatusCode::OK).await);
        assert_eq!(guest.body["account"]["id"], id, "the same account");
    }
    // Then 91 days away: the session has ended, and the housekeeping may delete it.
    advance(&app, 91).await;
    assert_problem(
        refresh(&app, &guest.refresh).await,
        StatusCode::UNAUTHORIZED,
        "invalid_refresh_token",
    )
    .await;
}

/// A token as the server issued them before sessions: 30 days, no `sid`.
fn token_from_before_sessions(account: &Value) -> String {
    let now = Utc::now().timestamp();
    let claims = json!({
        "sub": account["id"], "username": account["username"], "role": "player",
        "guest": account["guest"], "gen": 0, "iss": "racko",
        "iat": now, "exp": now + 30 * 24 * 3600,
    });
    let key = jsonwebtoken::EncodingKey::from_secret(TEST_JWT_SECRET.as_bytes()).expect("key");
    jsonwebtoken::encode(&jsonwebtoken::Header::default(), &claims, &key).expect("sign")
}

async fn a_token_from_before_sessions_works_until_it_expires_and_opens_a_session(app: TestApp) {
    let res = app.post_json("/v1/guests", None, &json!({})).await;
    let guest = signed(json_body(res, StatusCode::CREATED).await);
    let old = token_from_before_sessions(&guest.body["account"]);
    assert_eq!(
        me(&app, &old).await,
        StatusCode::OK,
        "accepted until it expires"
    );

    // Sent to the sessions, it opens one for its device: the guest outlives the old token.
    let res = app
        .request(Method::POST, "/v1/accounts/me/sessions", Some(&old))
        .send()
        .await
        .expect("answered");
    let adopted = signed(json_body(res, StatusCode::CREATED).await);
    assert_eq!(adopted.body["account"]["id"], guest.body["account"]["id"]);
    assert_ne!(adopted.session, guest.session);
    json_body(refresh(&app, &adopted.refresh).await, StatusCode::OK).await;
    assert_eq!(sessions(&app, &adopted.token).await.len(), 2);

    // A token of a session refreshes instead; signing out everywhere stops the old one too.
    let res = app
        .request(Method::POST, "/v1/accounts/me/sessions", Some(&guest.token))
        .send()
        .await
        .expect("answered");
    assert_problem(res, StatusCode::FORBIDDEN, "forbidden").await;
    let res = delete(&app, "/v1/accounts/me/tokens", &guest.token).await;
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    assert_eq!(me(&app, &old).await, StatusCode::UNAUTHORIZED);
}

mod a_guest_whose_access_token_expired_refreshes_and_keeps_account_and_games {
    use crate::common::db::TestBackend;

    #[actix_web::test]
    async fn postgres() {
        super::expired_access_token(TestBackend::Postgres).await;
    }

    #[actix_web::test]
    async fn sqlite() {
        super::expired_access_token(TestBackend::Sqlite).await;
    }
}

/// A one-second access-token life; the token check allows 5 s of clock skew on top.
async fn expired_access_token(backend: TestBackend) {
    if !enabled(backend) {
        return;
    }
    let app = spawn_app_with(backend, |config| {
        config.token_ttl = Duration::from_secs(1);
    })
    .await;
    let res = app.post_json("/v1/guests", None, &json!({})).await;
    let guest = signed(json_body(res, StatusCode::CREATED).await);
    let body = json!({
        "options": { "players": 2 },
        "computer": [{ "seat": 1, "level": "basic" }],
    });
    let res = app.post_json("/v1/games", Some(&guest.token), &body).await;
    let game = json_body(res, StatusCode::CREATED).await["id"]
        .as_str()
        .expect("id")
        .to_string();

    tokio::time::sleep(Duration::from_secs(7)).await;
    let res = app
        .get(&format!("/v1/games/{game}"), Some(&guest.token))
        .await;
    let www = res.headers().get("www-authenticate").cloned();
    assert_problem(res, StatusCode::UNAUTHORIZED, "token_expired").await;
    assert_eq!(
        www.and_then(|v| v.to_str().ok().map(str::to_string)),
        Some("Bearer".into())
    );

    let back = signed(json_body(refresh(&app, &guest.refresh).await, StatusCode::OK).await);
    assert_eq!(back.body["account"]["id"], guest.body["account"]["id"]);
    assert_eq!(back.body["account"]["guest"], true);
    let seen = json_body(
        app.get(&format!("/v1/games/{game}"), Some(&back.token))
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(seen["id"], game.as_str());
    let mine = json_body(
        app.get("/v1/me/games", Some(&back.token)).await,
        StatusCode::OK,
    )
    .await;
    assert!(
        mine.to_string().contains(&game),
        "the game is still the guest's: {mine}"
    );
}

/// Two `racko serve` processes on one PostgreSQL database: a refresh token rotated on one is
/// good on the other, and a reuse found on one ends the session on both at once.
#[actix_web::test]
async fn reuse_found_on_one_process_ends_the_session_on_the_other() {
    if !enabled(TestBackend::Postgres) {
        return;
    }
    let db = TestDb::new(TestBackend::Postgres);
    let url = db.url.clone();
    let (a, b) = tokio::task::spawn_blocking(move || {
        (
            ServeProcess::start(&url, &[]),
            ServeProcess::start(&url, &[]),
        )
    })
    .await
    .expect("both servers start");
    let client = Client::new();
    let res = client
        .post(format!("{}/v1/accounts", a.url))
        .json(&json!({ "username": "alice", "password": TEST_PASSWORD }))
        .send()
        .await
        .expect("answered");
    assert_eq!(res.status(), StatusCode::CREATED);
    let first = signed(res.json().await.expect("JSON"));
    let me_at = |base: &str, token: &str| {
        client
            .get(format!("{base}/v1/accounts/me"))
            .bearer_auth(token)
            .send()
    };

    // Rotated on A, the next token is good on B, and B's answer on A.
    let res = refresh_at(&client, &a.url, &first.refresh).await;
    assert_eq!(res.status(), StatusCode::OK);
    let second = signed(res.json().await.expect("JSON"));
    let res = refresh_at(&client, &b.url, &second.refresh).await;
    assert_eq!(res.status(), StatusCode::OK);
    let third = signed(res.json().await.expect("JSON"));
    for base in [&a.url, &b.url] {
        let res = me_at(base, &third.token).await.expect("answered");
        assert_eq!(res.status(), StatusCode::OK, "{base}");
    }
    let mut stream = Stream::open_at(&a.url, "/v1/me/stream", Some(&third.token), None).await;

    // The first, spent token comes back on B: the session ends on A too, at once.
    let res = refresh_at(&client, &b.url, &first.refresh).await;
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    let problem: Value = res.json().await.expect("JSON");
    assert_eq!(problem["code"], "refresh_token_reused");
    let reused = Instant::now();
    let rest = stream
        .rest(Duration::from_millis(1500))
        .await
        .expect("the stream on A ended");
    assert!(rest.contains("event: revoked"), "{rest:?}");
    let res = me_at(&a.url, &third.token).await.expect("answered");
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    assert!(
        reused.elapsed() < Duration::from_secs(2),
        "A refused within {:?}",
        reused.elapsed()
    );
    let res = refresh_at(&client, &a.url, &third.refresh).await;
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    let problem: Value = res.json().await.expect("JSON");
    assert_eq!(problem["code"], "invalid_refresh_token");
}
