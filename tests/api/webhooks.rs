//! Issue 10: webhooks. A real receiver checks every signature and answers 500 to first tries;
//! each delivery comes again and the log shows it; a refused action delivers nothing; a
//! failing endpoint is disabled and the account told; internal addresses are refused; and a
//! `racko serve` process killed (SIGKILL) mid-delivery loses nothing: a restarted process
//! delivers every item once the lease is over.

use std::collections::BTreeSet;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::common::app::{assert_problem, json_body, spawn_app_with, TestApp, TEST_JWT_SECRET};
use crate::common::db::{enabled, TestBackend, TestDb};
use crate::receiver::{Mode, Received, Receiver};
use crate::tables::{create, join, players, post_action, Player};

both_stores!(internal_addresses_and_bad_endpoints_are_refused);

const PATIENCE: Duration = Duration::from_secs(20);

/// An app that delivers to the test's own receiver, retrying fast.
async fn webhook_app(backend: TestBackend, retry_for: Duration) -> Option<TestApp> {
    if !enabled(backend) {
        eprintln!("skipped: {backend:?} is not in RACKO_TEST_BACKENDS");
        return None;
    }
    Some(
        spawn_app_with(backend, |c| {
            c.webhooks_allow_private = true;
            c.webhook_poll = Duration::from_millis(50);
            c.webhook_retry_base = Duration::from_millis(100);
            c.webhook_retry_for = retry_for;
            c.webhook_timeout = Duration::from_secs(2);
        })
        .await,
    )
}

/// Registers `receiver` for `who`; returns the endpoint id.
async fn register(app: &TestApp, who: &Player, receiver: &Receiver) -> String {
    let res = app
        .post_json(
            "/v1/me/webhooks",
            who.token(),
            &json!({ "url": receiver.url }),
        )
        .await;
    let created = json_body(res, StatusCode::CREATED).await;
    let secret = created["secret"].as_str().expect("secret");
    assert!(secret.starts_with("whsec_"), "{created}");
    receiver.set_secret(secret);
    created["webhook"]["id"].as_str().expect("id").to_string()
}

async fn feed_seqs(app: &TestApp, who: &Player) -> Vec<i64> {
    let page = json_body(
        app.get("/v1/me/feed?limit=500", who.token()).await,
        StatusCode::OK,
    )
    .await;
    page["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter_map(|i| i["seq"].as_i64())
        .collect()
}

/// The feed seqs delivered with a 2xx.
fn delivered(got: &[Received]) -> BTreeSet<i64> {
    got.iter()
        .filter(|r| (200..300).contains(&r.answered))
        .filter_map(|r| r.body["data"]["seq"].as_i64())
        .collect()
}

#[actix_web::test]
async fn deliveries_are_signed_retried_and_logged_postgres() {
    deliveries_are_signed_retried_and_logged(TestBackend::Postgres).await
}

#[actix_web::test]
async fn deliveries_are_signed_retried_and_logged_sqlite() {
    deliveries_are_signed_retried_and_logged(TestBackend::Sqlite).await
}

async fn deliveries_are_signed_retried_and_logged(backend: TestBackend) {
    let Some(app) = webhook_app(backend, Duration::from_secs(3600)).await else {
        return;
    };
    let receiver = Receiver::start(Mode::FailFirst);
    let table = players(&app, &["ann", "bob"]).await;
    let (ann, bob) = (&table[0], &table[1]);
    let endpoint = register(&app, ann, &receiver).await;
    let list = json_body(
        app.get("/v1/me/webhooks", ann.token()).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(list["webhooks"][0]["id"], endpoint.as_str());
    assert!(
        list.to_string().find("whsec_").is_none(),
        "the secret is shown once: {list}"
    );

    let created = create(&app, ann, &json!({ "options": { "players": 2 } })).await;
    let id = created["id"].as_str().expect("id").to_string();
    join(&app, bob, &id).await;
    // A refused action (a stale version) commits nothing, so it delivers nothing.
    for who in [ann, bob] {
        let res = post_action(
            &app,
            who,
            &id,
            &json!({ "version": 0, "action": { "type": "draw" } }),
        )
        .await;
        assert!(res.status().is_client_error());
    }
    let seqs: BTreeSet<i64> = feed_seqs(&app, ann).await.into_iter().collect();
    assert!(seqs.len() >= 2, "joined and started: {seqs:?}");
    let got = receiver
        .wait_for(PATIENCE, |got| delivered(got) == seqs)
        .await;

    for r in &got {
        assert!(r.signed, "a valid signature on every attempt: {r:?}");
        assert_eq!(r.body["type"], r.body["data"]["kind"]);
        assert_eq!(r.body["data"]["game_id"], id.as_str());
        let text = r.body.to_string();
        for secret in ["rack", "stock", "card", "seed"] {
            assert!(!text.contains(secret), "{secret} in {text}");
        }
    }
    // Every delivery was refused once and came again with the same webhook-id.
    for seq in &seqs {
        let tries: Vec<&Received> = got
            .iter()
            .filter(|r| r.body["data"]["seq"] == *seq)
            .collect();
        assert_eq!(
            tries.iter().map(|r| r.answered).collect::<Vec<_>>(),
            vec![500, 200]
        );
        assert_eq!(tries[0].id, tries[1].id);
    }
    // The worker records an attempt after the receiver has answered it: the log may lag the
    // receiver by a moment.
    let path = format!("/v1/me/webhooks/{endpoint}/deliveries");
    let since = std::time::Instant::now();
    let log = loop {
        let log = json_body(app.get(&path, ann.token()).await, StatusCode::OK).await;
        let log = log["deliveries"].as_array().expect("deliveries").clone();
        let recorded = log.iter().all(|d| d["status"] == "delivered");
        if recorded || since.elapsed() > PATIENCE {
            break log;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(log.len(), seqs.len(), "{log:?}");
    for d in &log {
        assert_eq!(
            (
                d["status"].clone(),
                d["attempts"].clone(),
                d["last_status"].clone()
            ),
            (json!("delivered"), json!(2), json!(200)),
            "{d}"
        );
    }
    // Finished deliveries are kept for a while, then deleted; a week later here.
    let store = racko::store::Store::open(&app.db.url, 1).expect("the store opens");
    let week = racko::workers::housekeeping::DELIVERY_RETENTION;
    assert_eq!(
        racko::workers::housekeeping::expire_deliveries(&store, week).expect("swept"),
        0
    );
    let expired =
        racko::workers::housekeeping::expire_deliveries(&store, Duration::ZERO).expect("swept");
    assert_eq!(expired, seqs.len());
    let after = json_body(app.get(&path, ann.token()).await, StatusCode::OK).await;
    assert_eq!(after["deliveries"], json!([]), "{after}");
    // Somebody else's log is not found; deleting ends the endpoint.
    assert_problem(
        app.get(&path, bob.token()).await,
        StatusCode::NOT_FOUND,
        "webhook_not_found",
    )
    .await;
    let res = app
        .request(
            reqwest::Method::DELETE,
            &format!("/v1/me/webhooks/{endpoint}"),
            ann.token(),
        )
        .send()
        .await
        .expect("sent");
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    assert_problem(
        app.get(&path, ann.token()).await,
        StatusCode::NOT_FOUND,
        "webhook_not_found",
    )
    .await;
}

#[actix_web::test]
async fn a_failing_endpoint_is_disabled_and_the_account_told_postgres() {
    a_failing_endpoint_is_disabled_and_the_account_told(TestBackend::Postgres).await
}

#[actix_web::test]
async fn a_failing_endpoint_is_disabled_and_the_account_told_sqlite() {
    a_failing_endpoint_is_disabled_and_the_account_told(TestBackend::Sqlite).await
}

async fn a_failing_endpoint_is_disabled_and_the_account_told(backend: TestBackend) {
    let Some(app) = webhook_app(backend, Duration::from_secs(1)).await else {
        return;
    };
    let receiver = Receiver::start(Mode::AlwaysFail);
    let table = players(&app, &["ann", "bob"]).await;
    let endpoint = register(&app, &table[0], &receiver).await;
    let created = create(&app, &table[0], &json!({ "options": { "players": 2 } })).await;
    join(&app, &table[1], created["id"].as_str().expect("id")).await;

    let path = "/v1/me/feed?limit=500&wait=10";
    let mut told = None;
    for _ in 0..10 {
        let page = json_body(app.get(path, table[0].token()).await, StatusCode::OK).await;
        told = page["items"]
            .as_array()
            .expect("items")
            .iter()
            .find(|i| i["kind"] == "webhook_disabled")
            .cloned();
        if told.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let told = told.expect("the feed says the endpoint was disabled");
    assert_eq!(told["data"]["webhook_id"], endpoint.as_str());
    assert_eq!(told["game_id"], Value::Null);
    let list = json_body(
        app.get("/v1/me/webhooks", table[0].token()).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(list["webhooks"][0]["enabled"], false);
    let log = json_body(
        app.get(
            &format!("/v1/me/webhooks/{endpoint}/deliveries"),
            table[0].token(),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    for d in log["deliveries"].as_array().expect("deliveries") {
        assert_eq!(d["status"], "failed", "{d}");
    }
    // Rotating gives a new secret and enables it again.
    let res = app
        .post_json(
            &format!("/v1/me/webhooks/{endpoint}/rotate"),
            table[0].token(),
            &json!({}),
        )
        .await;
    let rotated = json_body(res, StatusCode::OK).await;
    assert_eq!(rotated["webhook"]["enabled"], true);
    assert!(rotated["secret"]
        .as_str()
        .is_some_and(|s| s.starts_with("whsec_")));
}

async fn internal_addresses_and_bad_endpoints_are_refused(app: TestApp) {
    let table = players(&app, &["ann"]).await;
    let ann = table[0].token();
    for url in [
        "http://127.0.0.1:9/hook",
        "http://localhost/hook",
        "http://10.0.0.1/",
        "http://[::1]/",
        "http://169.254.169.254/latest",
    ] {
        let res = app
            .post_json("/v1/me/webhooks", ann, &json!({ "url": url }))
            .await;
        assert_problem(
            res,
            StatusCode::UNPROCESSABLE_ENTITY,
            "webhook_address_refused",
        )
        .await;
    }
    for url in [
        "ftp://example.com/",
        "no url",
        "http://user:pw@example.com/",
    ] {
        let res = app
            .post_json("/v1/me/webhooks", ann, &json!({ "url": url }))
            .await;
        assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "invalid_webhook_url").await;
    }
    let res = app
        .post_json(
            "/v1/me/webhooks",
            ann,
            &json!({ "url": "http://127.0.0.1/", "kinds": ["racks"] }),
        )
        .await;
    assert_problem(
        res,
        StatusCode::UNPROCESSABLE_ENTITY,
        "invalid_webhook_kind",
    )
    .await;
    let nobody = uuid::Uuid::new_v4();
    let res = app
        .post_json(&format!("/v1/me/webhooks/{nobody}/rotate"), ann, &json!({}))
        .await;
    assert_problem(res, StatusCode::NOT_FOUND, "webhook_not_found").await;
    let list = json_body(app.get("/v1/me/webhooks", ann).await, StatusCode::OK).await;
    assert_eq!(list["webhooks"], json!([]));
}

/// A `racko serve` process of its own on `url`, delivering to internal addresses.
struct Server {
    child: Child,
    address: String,
}

impl Server {
    async fn start(url: &str) -> Server {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let mut child = Command::new(env!("CARGO_BIN_EXE_racko"))
            .arg("serve")
            .env("DATABASE_URL", url)
            .env("RACKO_BIND", format!("127.0.0.1:{port}"))
            .env("RACKO_JWT_SECRET", TEST_JWT_SECRET)
            .env("RACKO_WEBHOOKS_ALLOW_PRIVATE", "1")
            .env("RACKO_WEBHOOK_TIMEOUT_SECS", "1")
            .env("RACKO_AUTH_PER_MINUTE", "0")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("racko serve starts");
        let address = format!("http://127.0.0.1:{port}");
        for _ in 0..200 {
            if reqwest::get(format!("{address}/healthz")).await.is_ok() {
                return Server { child, address };
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let _ = child.kill();
        let _ = child.wait();
        panic!("racko serve did not come up on {address}");
    }

    async fn post(&self, path: &str, token: Option<&str>, body: Value) -> reqwest::Response {
        let mut req = reqwest::Client::new()
            .post(format!("{}{path}", self.address))
            .json(&body);
        if let Some(token) = token {
            req = req.bearer_auth(token);
        }
        req.send().await.expect("sent")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[actix_web::test]
async fn a_server_killed_mid_delivery_loses_nothing_postgres() {
    a_server_killed_mid_delivery_loses_nothing(TestBackend::Postgres).await
}

#[actix_web::test]
async fn a_server_killed_mid_delivery_loses_nothing_sqlite() {
    a_server_killed_mid_delivery_loses_nothing(TestBackend::Sqlite).await
}

async fn a_server_killed_mid_delivery_loses_nothing(backend: TestBackend) {
    if !enabled(backend) {
        eprintln!("skipped: {backend:?} is not in RACKO_TEST_BACKENDS");
        return;
    }
    let db = TestDb::new(backend);
    let receiver = Receiver::start(Mode::Hang);
    let mut first = Server::start(&db.url).await;

    let mut tokens = Vec::new();
    for name in ["ann", "bob"] {
        let res = first
            .post(
                "/v1/accounts",
                None,
                json!({ "username": name, "password": "correct horse battery" }),
            )
            .await;
        tokens.push(
            json_body(res, StatusCode::CREATED).await["token"]
                .as_str()
                .expect("token")
                .to_string(),
        );
    }
    let res = first
        .post(
            "/v1/me/webhooks",
            Some(&tokens[0]),
            json!({ "url": receiver.url }),
        )
        .await;
    receiver.set_secret(
        json_body(res, StatusCode::CREATED).await["secret"]
            .as_str()
            .expect("secret"),
    );
    let res = first
        .post(
            "/v1/games",
            Some(&tokens[0]),
            json!({ "options": { "players": 2 }, "visibility": "public" }),
        )
        .await;
    let id = json_body(res, StatusCode::CREATED).await["id"]
        .as_str()
        .expect("id")
        .to_string();
    let res = first
        .post(&format!("/v1/games/{id}/join"), Some(&tokens[1]), json!({}))
        .await;
    json_body(res, StatusCode::OK).await;

    // The first process has committed and is delivering (the receiver holds the request):
    // SIGKILL it there.
    receiver.wait_for(PATIENCE, |got| !got.is_empty()).await;
    first.child.kill().expect("SIGKILL");
    first.child.wait().expect("reaped");
    receiver.set_mode(Mode::Ok);

    let second = Server::start(&db.url).await;
    let page = reqwest::Client::new()
        .get(format!("{}/v1/me/feed", second.address))
        .bearer_auth(&tokens[0])
        .send()
        .await
        .expect("sent");
    let seqs: BTreeSet<i64> = json_body(page, StatusCode::OK).await["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter_map(|i| i["seq"].as_i64())
        .collect();
    assert!(seqs.len() >= 2);
    let got = receiver
        .wait_for(PATIENCE, |got| delivered(got) == seqs)
        .await;
    assert!(got.iter().all(|r| r.signed), "{got:#?}");
    drop(second);
}
