//! Push notifications against real protocol peers: Web Push through npm's web-push-testing
//! (it checks VAPID and decrypts aes128gcm itself), APNs through an HTTP/2 TLS receiver that
//! verifies the ES256 provider token, FCM through a token endpoint that verifies the RS256
//! assertion and a send endpoint with FCM's error shapes. What a push says is what the feed
//! item says, and never a card (R8); a refused action pushes nothing; a gone device is
//! removed; 429/500 are retried after `Retry-After`.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::common::app::{assert_problem, json_body, spawn_app_with, TestApp};
use crate::common::db::{enabled, TestBackend};
use crate::peer_apns::{self, ApnsPeer};
use crate::peer_fcm::{self, Answer, FcmPeer};
use crate::peer_webpush::WebPushPeer;
use crate::tables::{players, post_action, small_game, Player};

pub const PATIENCE: Duration = Duration::from_secs(20);

/// What no push may hold (R8).
pub fn assert_public(text: &str) {
    for secret in ["rack", "stock", "card", "seed", "hand"] {
        assert!(!text.to_lowercase().contains(secret), "{secret} in {text}");
    }
}

/// An app that pushes fast to the tests' peers on loopback.
pub async fn push_app(
    backend: TestBackend,
    apns: Option<&ApnsPeer>,
    fcm: Option<&FcmPeer>,
) -> Option<TestApp> {
    if !enabled(backend) {
        eprintln!("skipped: {backend:?} is not in RACKO_TEST_BACKENDS");
        return None;
    }
    Some(
        spawn_app_with(backend, |c| {
            c.webhooks_allow_private = true;
            // The local Web Push service speaks plain http.
            c.push.allow_http = true;
            c.push.poll = Duration::from_millis(50);
            c.push.retry_base = Duration::from_millis(100);
            c.push.timeout = Duration::from_secs(3);
            if let Some(apns) = apns {
                c.push.apns = Some(racko::config::ApnsKey {
                    key_file: apns.key_file.clone(),
                    key_id: peer_apns::KEY_ID.into(),
                    team_id: peer_apns::TEAM_ID.into(),
                });
                c.push.apns_url = apns.url.clone();
                c.push.apns_sandbox_url = apns.url.clone();
                c.push.ca_file = Some(apns.ca_file.clone());
            }
            if let Some(fcm) = fcm {
                c.push.fcm_service_account_file = Some(fcm.account_file.clone());
                c.push.fcm_url = fcm.base.clone();
            }
        })
        .await,
    )
}

pub async fn register(app: &TestApp, who: &Player, device: Value) -> Value {
    let res = app.post_json("/v1/me/devices", who.token(), &device).await;
    json_body(res, StatusCode::CREATED).await
}

pub async fn devices(app: &TestApp, who: &Player) -> Vec<Value> {
    let list = json_body(app.get("/v1/me/devices", who.token()).await, StatusCode::OK).await;
    list["devices"].as_array().cloned().unwrap_or_default()
}

async fn wait_until_gone(app: &TestApp, who: &Player) {
    let deadline = std::time::Instant::now() + PATIENCE;
    while !devices(app, who).await.is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "the device was not removed"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The `your_turn` items of `who`'s feed.
async fn turns(app: &TestApp, who: &Player) -> Vec<Value> {
    let page = json_body(
        app.get("/v1/me/feed?limit=500", who.token()).await,
        StatusCode::OK,
    )
    .await;
    page["items"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter(|i| i["kind"] == "your_turn")
                .cloned()
                .collect()
        })
        .unwrap_or_default()
}

both_stores!(devices_are_checked);

/// Web Push: what the feed says, encrypted; nothing for a refused action; 410 removes.
mod web {
    use super::*;

    async fn run(backend: TestBackend) {
        let Some(app) = push_app(backend, None, None).await else {
            return;
        };
        let peer = WebPushPeer::start().await;
        let table = players(&app, &["ann", "bob"]).await;
        let (ann, bob) = (&table[0], &table[1]);
        let key = json_body(app.get("/v1/push/web", None).await, StatusCode::OK).await;
        let key = key["public_key"].as_str().expect("public_key").to_string();
        let sub = peer.subscribe(&key).await;
        let device = register(&app, bob, json!({ "web_push": sub.json, "language": "en" })).await;
        assert_eq!(device["provider"], "web_push");
        assert_eq!(
            device["kinds"],
            json!(["deadline_near", "game_finished", "invited", "your_turn"])
        );

        // bob begins: his turn is pushed, encrypted to his subscription.
        let game = small_game(&app, &table).await;
        let got = peer.wait_for(&sub.hash, PATIENCE, |m| !m.is_empty()).await;
        let feed = turns(&app, bob).await;
        assert_eq!(feed.len(), 1, "{feed:?}");
        let push = &got[0];
        assert_eq!(push["kind"], "your_turn");
        assert_eq!(push["game_id"], game.as_str());
        assert_eq!(push["seq"], feed[0]["seq"]);
        assert_eq!(push["title"], "Your turn");
        assert_eq!(push["body"], "Your move against ann.");
        assert_public(&push.to_string());

        // A refused action (a stale version) commits nothing, so it pushes nothing.
        let res = post_action(
            &app,
            bob,
            &game,
            &json!({ "version": 0, "action": { "type": "draw" } }),
        )
        .await;
        assert!(res.status().is_client_error());
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert_eq!(peer.messages(&sub.hash).await.len(), 1);

        let id = device["id"].as_str().expect("id");
        let log = json_body(
            app.get(&format!("/v1/me/devices/{id}/deliveries"), bob.token())
                .await,
            StatusCode::OK,
        )
        .await;
        assert_eq!(log["deliveries"][0]["status"], "delivered", "{log}");
        assert_eq!(log["deliveries"][0]["last_status"], 201, "{log}");
        assert_problem(
            app.get(&format!("/v1/me/devices/{id}/deliveries"), ann.token())
                .await,
            StatusCode::NOT_FOUND,
            "device_not_found",
        )
        .await;

        // The browser unsubscribed: the push service answers 410 and the device goes.
        peer.expire(&sub.hash).await;
        small_game(&app, &table).await;
        wait_until_gone(&app, bob).await;
    }

    #[actix_web::test]
    async fn postgres() {
        run(TestBackend::Postgres).await
    }

    #[actix_web::test]
    async fn sqlite() {
        run(TestBackend::Sqlite).await
    }
}

async fn devices_are_checked(app: TestApp) {
    let table = players(&app, &["ann"]).await;
    let ann = &table[0];
    let p256dh = format!("B{}", "A".repeat(86));
    let web = |endpoint: &str| json!({ "web_push": { "endpoint": endpoint, "keys": { "p256dh": p256dh, "auth": "tBHItJI5svbpez7KI4CCXg" } } });
    let refused = [
        (json!({}), "invalid_device"),
        (
            json!({ "fcm": { "token": "abc" }, "web_push": web("https://push.example/x")["web_push"] }),
            "invalid_device",
        ),
        (
            json!({ "fcm": { "token": "abc" }, "colour": "red" }),
            "invalid_body",
        ),
        (
            json!({ "web_push": { "endpoint": "https://push.example/x", "keys": { "p256dh": "short", "auth": "tBHItJI5svbpez7KI4CCXg" } } }),
            "invalid_device",
        ),
        (web("ftp://push.example/x"), "invalid_device"),
        // Push services are https: the VAPID token and headers must not cross in the clear.
        (web("http://push.example/x"), "invalid_device"),
        // Not a browser's push service but this server's own network (SSRF).
        (web("https://127.0.0.1:9/push"), "device_address_refused"),
        (web("https://[::1]:9/push"), "device_address_refused"),
        (
            json!({ "apns": { "token": "00", "topic": "x" } }),
            "push_not_configured",
        ),
        (json!({ "fcm": { "token": "abc" } }), "push_not_configured"),
        (
            json!({ "fcm": { "token": "abc" }, "kinds": ["racks"] }),
            "invalid_body",
        ),
    ];
    for (body, code) in refused {
        let res = app.post_json("/v1/me/devices", ann.token(), &body).await;
        let status = match code {
            "push_not_configured" => StatusCode::NOT_FOUND,
            _ => StatusCode::UNPROCESSABLE_ENTITY,
        };
        assert_problem(res, status, code).await;
    }
    assert!(devices(&app, ann).await.is_empty());
    let res = app.get("/v1/me/devices", None).await;
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
    let nobody = uuid::Uuid::new_v4();
    let res = app
        .request(
            reqwest::Method::DELETE,
            &format!("/v1/me/devices/{nobody}"),
            ann.token(),
        )
        .send()
        .await
        .expect("sent");
    assert_problem(res, StatusCode::NOT_FOUND, "device_not_found").await;
    // The key a browser subscribes with (kept in the store in development).
    let key = json_body(app.get("/v1/push/web", None).await, StatusCode::OK).await;
    assert_eq!(key["public_key"].as_str().map(str::len), Some(87), "{key}");
    let again = json_body(app.get("/v1/push/web", None).await, StatusCode::OK).await;
    assert_eq!(key, again);
}

/// APNs: a verified, reused provider token and Apple's headers; 410 removes.
mod apns {
    use super::*;

    async fn run(backend: TestBackend) {
        let peer = ApnsPeer::start();
        let Some(app) = push_app(backend, Some(&peer), None).await else {
            return;
        };
        let table = players(&app, &["ann", "bob"]).await;
        let bob = &table[1];
        let token = "a1".repeat(32);
        let device = json!({
            "apns": { "token": token, "topic": peer_apns::TOPIC, "environment": "sandbox" },
            "language": "de",
        });
        register(&app, bob, device).await;
        let game = small_game(&app, &table).await;
        let got = peer
            .wait_for(PATIENCE, |p| p.iter().any(|x| x.answered == 200))
            .await;
        let push = got.iter().find(|p| p.answered == 200).expect("a push");
        assert_eq!(push.device, token);
        assert_eq!(push.header("apns-push-type"), Some("alert"));
        assert_eq!(push.header("apns-topic"), Some(peer_apns::TOPIC));
        let collapse = push.header("apns-collapse-id").expect("a collapse id");
        assert!(collapse.len() <= 64, "{collapse}");
        assert_eq!(push.body["aps"]["alert"]["title"], "Du bist dran");
        assert_eq!(push.body["aps"]["alert"]["body"], "Dein Zug gegen ann.");
        assert_eq!(push.body["data"]["game_id"], game.as_str());
        assert_public(&push.body.to_string());
        // The provider token is reused, not minted per request.
        small_game(&app, &table).await;
        let got = peer
            .wait_for(PATIENCE, |p| {
                p.iter().filter(|x| x.answered == 200).count() >= 2
            })
            .await;
        let tokens: std::collections::BTreeSet<&str> =
            got.iter().map(|p| p.token.as_str()).collect();
        assert_eq!(tokens.len(), 1, "one provider token: {tokens:?}");
        // Unregistered (410): the device is removed and not tried again.
        peer.unregister(&token);
        small_game(&app, &table).await;
        wait_until_gone(&app, bob).await;
        let tried = peer.pushed().len();
        small_game(&app, &table).await;
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert_eq!(peer.pushed().len(), tried);
    }

    #[actix_web::test]
    async fn postgres() {
        run(TestBackend::Postgres).await
    }

    #[actix_web::test]
    async fn sqlite() {
        run(TestBackend::Sqlite).await
    }
}

/// FCM: retries after 429 and 500 honouring Retry-After; UNREGISTERED removes; bounds.
mod fcm {
    use super::*;

    async fn run(backend: TestBackend) {
        let peer = FcmPeer::start();
        let Some(app) = push_app(backend, None, Some(&peer)).await else {
            return;
        };
        let table = players(&app, &["ann", "bob"]).await;
        let bob = &table[1];
        let phone = register(&app, bob, json!({ "fcm": { "token": "fcm-token:bob_1" } })).await;
        peer.script(&[Answer::Quota, Answer::Internal, Answer::Internal]);
        let game = small_game(&app, &table).await;
        let got = peer
            .wait_for(PATIENCE, |s| s.iter().any(|x| x.answered == 200))
            .await;
        let answers: Vec<u16> = got.iter().map(|s| s.answered).collect();
        assert_eq!(answers, vec![429, 500, 500, 200]);
        let gaps: Vec<Duration> = got.windows(2).map(|w| w[1].at - w[0].at).collect();
        // Retry-After: 1 was honoured (the backoff alone would be 100 ms).
        assert!(gaps[0] >= Duration::from_millis(950), "{gaps:?}");
        // Then exponential backoff from 100 ms with jitter of a quarter: 150-250 ms after the
        // second attempt, 300-500 ms after the third.
        assert!(gaps[1] >= Duration::from_millis(150), "{gaps:?}");
        assert!(gaps[2] >= Duration::from_millis(300), "{gaps:?}");
        assert!(
            gaps[1] < gaps[0] && gaps[2] < Duration::from_secs(2),
            "{gaps:?}"
        );
        let m = &got[3].message["message"];
        assert_eq!(m["token"], "fcm-token:bob_1");
        assert_eq!(m["data"]["game_id"], game.as_str());
        assert_eq!(m["notification"]["body"], "Your move against ann.");
        assert!(m["android"]["collapse_key"].is_string(), "{m}");
        // The push's time is the change's, as the feed has it (both stores' write paths).
        let feed = turns(&app, bob).await;
        let time = |v: &Value| {
            v.as_str()
                .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
                .map(|t| t.timestamp_micros())
        };
        assert!(time(&m["data"]["at"]).is_some(), "{m}");
        assert_eq!(time(&m["data"]["at"]), time(&feed[0]["at"]), "{m} {feed:?}");
        assert_public(&m.to_string());
        assert_eq!(peer.grants(), 1, "the access token is kept");
        // The delivery log counts the attempts; the push is sent once it succeeds.
        let log = format!(
            "/v1/me/devices/{}/deliveries",
            phone["id"].as_str().unwrap_or("")
        );
        let log = json_body(app.get(&log, bob.token()).await, StatusCode::OK).await;
        let turn = &log["deliveries"][0];
        assert_eq!(
            (&turn["status"], &turn["attempts"], &turn["last_status"]),
            (&json!("delivered"), &json!(4), &json!(200)),
            "{log}"
        );
        // UNREGISTERED: the device is removed.
        peer.forget("fcm-token:bob_1");
        small_game(&app, &table).await;
        wait_until_gone(&app, bob).await;

        // Quiet hours are checked; devices are bounded per account; the same token again
        // updates its device.
        let res = app
            .post_json(
                "/v1/me/devices",
                bob.token(),
                &json!({ "fcm": { "token": "t" }, "quiet_hours": { "from": "25:00", "until": "07:00" } }),
            )
            .await;
        assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "invalid_device").await;
        for i in 0..32 {
            register(&app, bob, json!({ "fcm": { "token": format!("t{i}") } })).await;
        }
        let again = register(
            &app,
            bob,
            json!({ "fcm": { "token": "t0" }, "language": "de" }),
        )
        .await;
        assert_eq!(again["language"], "de");
        let res = app
            .post_json(
                "/v1/me/devices",
                bob.token(),
                &json!({ "fcm": { "token": "t32" } }),
            )
            .await;
        assert_problem(res, StatusCode::CONFLICT, "too_many_devices").await;
        assert_eq!(devices(&app, bob).await.len(), 32);
        assert_eq!(peer_fcm::PROJECT, "racko-test");
    }

    #[actix_web::test]
    async fn postgres() {
        run(TestBackend::Postgres).await
    }

    #[actix_web::test]
    async fn sqlite() {
        run(TestBackend::Sqlite).await
    }
}
