//! Accounts, guests, sessions and bearer tokens.

use chrono::{DateTime, Duration, Utc};
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::common::app::{assert_problem, json_body, TestApp, TEST_JWT_SECRET, TEST_PASSWORD};

fn creds(username: &str, password: &str) -> Value {
    json!({ "username": username, "password": password })
}

/// A token with these claims, HS256-signed with `secret`.
fn sign(claims: &Value, secret: &str) -> String {
    let key = jsonwebtoken::EncodingKey::from_secret(secret.as_bytes()).expect("key");
    jsonwebtoken::encode(&jsonwebtoken::Header::default(), claims, &key).expect("sign")
}

fn claims(id: &str, exp: DateTime<Utc>) -> Value {
    json!({
        "sub": id, "username": "alice", "role": "player", "guest": false,
        "iss": "racko", "iat": Utc::now().timestamp(), "exp": exp.timestamp(),
    })
}

fn b64url(bytes: &[u8]) -> String {
    const ABC: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..=chunk.len() {
            out.push(char::from(ABC[((n >> (18 - 6 * i)) & 63) as usize]));
        }
    }
    out
}

async fn me_status(app: &TestApp, token: &str) -> Value {
    assert_problem(
        app.get("/v1/accounts/me", Some(token)).await,
        StatusCode::UNAUTHORIZED,
        "unauthorized",
    )
    .await
}

both_stores!(
    register_signs_in,
    login_with_the_right_password,
    wrong_password_and_unknown_user_look_alike,
    duplicate_username_is_a_conflict,
    invalid_usernames_and_passwords,
    guests_sign_in_without_a_body,
    guest_upgrades_to_a_registered_account,
    upgrade_to_a_taken_name_is_a_conflict,
    bad_tokens_are_refused,
    signing_out_everywhere_revokes_every_earlier_token,
);

async fn register_signs_in(app: TestApp) {
    let res = app
        .post_json("/v1/accounts", None, &creds("alice", TEST_PASSWORD))
        .await;
    assert_eq!(
        res.headers()["cache-control"],
        "no-store",
        "tokens stay out of caches"
    );
    let body = json_body(res, StatusCode::CREATED).await;
    assert_eq!(body["account"]["username"], "alice");
    assert_eq!(body["account"]["role"], "player");
    assert_eq!(body["account"]["guest"], false);
    let expires: DateTime<Utc> = body["expires_at"]
        .as_str()
        .expect("expires_at")
        .parse()
        .expect("date");
    assert!(
        expires > Utc::now() + Duration::minutes(14)
            && expires < Utc::now() + Duration::minutes(16),
        "access tokens last 15 minutes; the refresh token renews them"
    );
    assert!(body["refresh_token"]
        .as_str()
        .is_some_and(|t| t.starts_with("rt1_")));
    assert!(body["session_id"].as_str().is_some());

    let token = body["token"].as_str().expect("token");
    let me = json_body(
        app.get("/v1/accounts/me", Some(token)).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(me["id"], body["account"]["id"]);
    assert_eq!(me["username"], "alice");
}

async fn login_with_the_right_password(app: TestApp) {
    let (_, id) = app.register("alice").await;
    // Usernames are case-insensitive.
    let res = app
        .post_json("/v1/sessions", None, &creds("ALICE", TEST_PASSWORD))
        .await;
    let body = json_body(res, StatusCode::OK).await;
    assert_eq!(body["account"]["id"], id.to_string());
    let token = body["token"].as_str().expect("token");
    json_body(
        app.get("/v1/accounts/me", Some(token)).await,
        StatusCode::OK,
    )
    .await;
}

async fn wrong_password_and_unknown_user_look_alike(app: TestApp) {
    app.register("alice").await;
    let wrong = app
        .post_json("/v1/sessions", None, &creds("alice", "not the password"))
        .await;
    let wrong = assert_problem(wrong, StatusCode::UNAUTHORIZED, "invalid_credentials").await;
    let unknown = app
        .post_json("/v1/sessions", None, &creds("nobody", TEST_PASSWORD))
        .await;
    let unknown = assert_problem(unknown, StatusCode::UNAUTHORIZED, "invalid_credentials").await;
    assert_eq!(wrong["detail"], unknown["detail"]);
}

async fn duplicate_username_is_a_conflict(app: TestApp) {
    app.register("alice").await;
    for name in ["alice", "Alice"] {
        let res = app
            .post_json("/v1/accounts", None, &creds(name, TEST_PASSWORD))
            .await;
        assert_problem(res, StatusCode::CONFLICT, "username_taken").await;
    }
}

async fn invalid_usernames_and_passwords(app: TestApp) {
    for name in ["ab", "has space", "ünicode", "guest-abc", &"x".repeat(33)] {
        let res = app
            .post_json("/v1/accounts", None, &creds(name, TEST_PASSWORD))
            .await;
        assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "invalid_username").await;
    }
    for password in ["short", &"p".repeat(129)] {
        let res = app
            .post_json("/v1/accounts", None, &creds("alice", password))
            .await;
        assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "invalid_password").await;
    }
}

async fn guests_sign_in_without_a_body(app: TestApp) {
    let res = app
        .request(reqwest::Method::POST, "/v1/guests", None)
        .send()
        .await
        .expect("sent");
    let body = json_body(res, StatusCode::CREATED).await;
    let name = body["account"]["username"].as_str().expect("username");
    assert!(name.starts_with("guest-") && name.len() == 12, "{name}");
    assert_eq!(body["account"]["guest"], true);
    let token = body["token"].as_str().expect("token");
    let me = json_body(
        app.get("/v1/accounts/me", Some(token)).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(me["guest"], true);

    // With `{}` too; but not with unknown fields.
    let (_, other) = app.guest().await;
    assert_ne!(other.to_string(), body["account"]["id"]);
    let res = app
        .post_json("/v1/guests", None, &json!({ "name": "x" }))
        .await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "invalid_body").await;

    // A guest has no password to sign in with.
    let res = app
        .post_json("/v1/sessions", None, &creds(name, TEST_PASSWORD))
        .await;
    assert_problem(res, StatusCode::UNAUTHORIZED, "invalid_credentials").await;
}

async fn guest_upgrades_to_a_registered_account(app: TestApp) {
    let (token, id) = app.guest().await;
    let res = app
        .post_json(
            "/v1/accounts/me/upgrade",
            Some(&token),
            &creds("bob", TEST_PASSWORD),
        )
        .await;
    let body = json_body(res, StatusCode::OK).await;
    assert_eq!(body["account"]["id"], id.to_string());
    assert_eq!(body["account"]["username"], "bob");
    assert_eq!(body["account"]["guest"], false);

    let res = app
        .post_json("/v1/sessions", None, &creds("bob", TEST_PASSWORD))
        .await;
    json_body(res, StatusCode::OK).await;

    // The guest's token stops working: whoever held it does not keep the registered account.
    let res = app.get("/v1/accounts/me", Some(&token)).await;
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
    // Once registered, no second upgrade.
    let new_token = body["token"].as_str().expect("token");
    let res = app.get("/v1/accounts/me", Some(new_token)).await;
    assert_eq!(json_body(res, StatusCode::OK).await["username"], "bob");
    let res = app
        .post_json(
            "/v1/accounts/me/upgrade",
            Some(new_token),
            &creds("carol", TEST_PASSWORD),
        )
        .await;
    assert_problem(res, StatusCode::CONFLICT, "not_a_guest").await;
}

async fn upgrade_to_a_taken_name_is_a_conflict(app: TestApp) {
    app.register("alice").await;
    let (token, _) = app.guest().await;
    let res = app
        .post_json(
            "/v1/accounts/me/upgrade",
            Some(&token),
            &creds("alice", TEST_PASSWORD),
        )
        .await;
    assert_problem(res, StatusCode::CONFLICT, "username_taken").await;
    let res = app
        .post_json(
            "/v1/accounts/me/upgrade",
            None,
            &creds("dave", TEST_PASSWORD),
        )
        .await;
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
}

async fn bad_tokens_are_refused(app: TestApp) {
    let (good, id) = app.register("alice").await;
    let id = id.to_string();
    let in_an_hour = Utc::now() + Duration::hours(1);

    // Missing.
    let res = app.get("/v1/accounts/me", None).await;
    let www = res.headers().get("www-authenticate").cloned();
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
    assert_eq!(www.as_ref().and_then(|v| v.to_str().ok()), Some("Bearer"));

    // Malformed headers.
    for header in [
        "Bearer",
        "Bearer ",
        "Token abc",
        "Basic YWxpY2U6cHc=",
        "bearer not.a.jwt",
        good.as_str(),
    ] {
        let res = app
            .client
            .get(app.url("/v1/accounts/me"))
            .header("authorization", header)
            .send()
            .await
            .expect("sent");
        assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
    }
    let res = app
        .client
        .get(app.url("/v1/accounts/me"))
        .header(
            "authorization",
            reqwest::header::HeaderValue::from_bytes(b"Bearer \xff\xfe").expect("bytes"),
        )
        .send()
        .await
        .expect("sent");
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;

    // Expired: its own code, so that the client knows to refresh rather than sign in.
    let expired = sign(
        &claims(&id, Utc::now() - Duration::hours(1)),
        TEST_JWT_SECRET,
    );
    let res = app.get("/v1/accounts/me", Some(&expired)).await;
    assert_eq!(res.headers()["www-authenticate"], "Bearer");
    assert_problem(res, StatusCode::UNAUTHORIZED, "token_expired").await;
    // Signed with another key, forged payload, `alg: none`, another algorithm.
    me_status(
        &app,
        &sign(
            &claims(&id, in_an_hour),
            "another-secret-0123456789abcdef-0123456789",
        ),
    )
    .await;
    let mut parts: Vec<String> = good.split('.').map(str::to_string).collect();
    parts[1] = b64url(
        claims(&id, in_an_hour)
            .to_string()
            .replace("player", "admin")
            .as_bytes(),
    );
    me_status(&app, &parts.join(".")).await;
    let none_header = b64url(br#"{"alg":"none","typ":"JWT"}"#);
    let none = format!(
        "{none_header}.{}.",
        b64url(claims(&id, in_an_hour).to_string().as_bytes())
    );
    me_status(&app, &none).await;
    let key = jsonwebtoken::EncodingKey::from_secret(TEST_JWT_SECRET.as_bytes()).expect("key");
    let hs512 = jsonwebtoken::encode(
        &jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS512),
        &claims(&id, in_an_hour),
        &key,
    )
    .expect("sign");
    me_status(&app, &hs512).await;
    // Not valid before an hour from now (RFC 7519 nbf).
    let mut not_yet = claims(&id, in_an_hour);
    not_yet["nbf"] = json!(in_an_hour.timestamp());
    me_status(&app, &sign(&not_yet, TEST_JWT_SECRET)).await;
    // Without an expiry.
    let mut no_exp = claims(&id, in_an_hour);
    no_exp.as_object_mut().expect("object").remove("exp");
    me_status(&app, &sign(&no_exp, TEST_JWT_SECRET)).await;

    // The same claims, rightly signed, pass: the refusals above were about the token. A token
    // without a session (as issued before sessions) is good until it expires.
    let ok = sign(&claims(&id, in_an_hour), TEST_JWT_SECRET);
    json_body(app.get("/v1/accounts/me", Some(&ok)).await, StatusCode::OK).await;
}

async fn signing_out_everywhere_revokes_every_earlier_token(app: TestApp) {
    let (phone, _) = app.register("alice").await;
    let res = app
        .post_json("/v1/sessions", None, &creds("alice", TEST_PASSWORD))
        .await;
    let laptop = json_body(res, StatusCode::OK).await["token"]
        .as_str()
        .expect("token")
        .to_string();
    let (bob, _) = app.register("bob").await;
    for token in [&phone, &laptop, &bob] {
        assert_eq!(
            app.get("/v1/accounts/me", Some(token)).await.status(),
            StatusCode::OK
        );
    }

    let res = app
        .request(
            reqwest::Method::DELETE,
            "/v1/accounts/me/tokens",
            Some(&laptop),
        )
        .send()
        .await
        .expect("send");
    assert_eq!(res.status(), StatusCode::NO_CONTENT);

    // Both of alice's tokens are refused, on every route; bob's is untouched.
    for (token, path) in [(&phone, "/v1/accounts/me"), (&laptop, "/v1/me/games")] {
        let body = assert_problem(
            app.get(path, Some(token)).await,
            StatusCode::UNAUTHORIZED,
            "unauthorized",
        )
        .await;
        assert!(
            body["detail"]
                .as_str()
                .unwrap_or_default()
                .contains("revoked"),
            "{body}"
        );
    }
    assert_eq!(
        app.get("/v1/accounts/me", Some(&bob)).await.status(),
        StatusCode::OK
    );
    let again = app
        .request(
            reqwest::Method::DELETE,
            "/v1/accounts/me/tokens",
            Some(&phone),
        )
        .send()
        .await
        .expect("send");
    assert_problem(again, StatusCode::UNAUTHORIZED, "unauthorized").await;

    // Signing in again gives a token of the new generation.
    let res = app
        .post_json("/v1/sessions", None, &creds("alice", TEST_PASSWORD))
        .await;
    let fresh = json_body(res, StatusCode::OK).await["token"]
        .as_str()
        .expect("token")
        .to_string();
    let me = json_body(
        app.get("/v1/accounts/me", Some(&fresh)).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(me["username"], "alice");
}
