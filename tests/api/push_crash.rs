//! Pushes are at least once across processes: a `racko serve` killed (SIGKILL) while a push
//! is in flight and others wait loses nothing (a restarted process sends each, the one in
//! flight once its lease is over, and each once), and two
//! processes on one database send each push once (claims skip each other's rows).

use std::collections::BTreeMap;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::common::app::{json_body, TEST_JWT_SECRET};
use crate::common::db::{enabled, TestBackend, TestDb};
use crate::peer_fcm::FcmPeer;
use crate::push::{assert_public, PATIENCE};

/// A `racko serve` process of its own on `url`, pushing to `fcm`.
struct Server {
    child: Child,
    address: String,
}

impl Server {
    async fn start(url: &str, fcm: &FcmPeer) -> Server {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let mut child = Command::new(env!("CARGO_BIN_EXE_racko"))
            .arg("serve")
            .env("DATABASE_URL", url)
            .env("RACKO_BIND", format!("127.0.0.1:{port}"))
            .env("RACKO_JWT_SECRET", TEST_JWT_SECRET)
            .env("RACKO_AUTH_PER_MINUTE", "0")
            .env("RACKO_FCM_SERVICE_ACCOUNT_FILE", &fcm.account_file)
            .env("RACKO_FCM_URL", &fcm.base)
            .env("RACKO_PUSH_TIMEOUT_SECS", "1")
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

    async fn post(&self, path: &str, token: Option<&str>, body: Value) -> Value {
        let mut req = reqwest::Client::new()
            .post(format!("{}{path}", self.address))
            .json(&body);
        if let Some(token) = token {
            req = req.bearer_auth(token);
        }
        let res = req.send().await.expect("sent");
        let status = res.status();
        assert!(status.is_success(), "{path}: {status}");
        res.json().await.expect("a JSON answer")
    }

    /// A started two-player game of `ann` and `bob` (bob is to move first or second).
    async fn game(&self, ann: &str, bob: &str) -> String {
        let created = self
            .post(
                "/v1/games",
                Some(ann),
                json!({ "options": { "players": 2 }, "visibility": "public" }),
            )
            .await;
        let id = created["id"].as_str().expect("id").to_string();
        self.post(&format!("/v1/games/{id}/join"), Some(bob), json!({}))
            .await;
        id
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// ann and bob, bob with an FCM device for every kind a game's start pushes.
async fn accounts(server: &Server) -> (String, String) {
    let mut tokens = Vec::new();
    for name in ["ann", "bob"] {
        let body = json!({ "username": name, "password": "correct horse battery" });
        let created = server.post("/v1/accounts", None, body).await;
        tokens.push(created["token"].as_str().expect("token").to_string());
    }
    let device = json!({ "fcm": { "token": "bob-phone" }, "kinds": ["game_started"] });
    server
        .post("/v1/me/devices", Some(&tokens[1]), device)
        .await;
    (tokens[0].clone(), tokens[1].clone())
}

/// Deliveries (200) per (game, feed seq).
fn delivered(peer: &FcmPeer) -> BTreeMap<(String, String), usize> {
    let mut out = BTreeMap::new();
    for sent in peer.sent().iter().filter(|s| s.answered == 200) {
        let data = &sent.message["message"]["data"];
        let key = (
            data["game_id"].as_str().unwrap_or("").to_string(),
            data["seq"].as_str().unwrap_or("").to_string(),
        );
        *out.entry(key).or_insert(0) += 1;
    }
    out
}

async fn killed_mid_push(backend: TestBackend) {
    if !enabled(backend) {
        eprintln!("skipped: {backend:?} is not in RACKO_TEST_BACKENDS");
        return;
    }
    let db = TestDb::new(backend);
    let peer = FcmPeer::start();
    peer.hang(true);
    let mut first = Server::start(&db.url, &peer).await;
    let (ann, bob) = accounts(&first).await;
    let mut games = Vec::new();
    for _ in 0..3 {
        games.push(first.game(&ann, &bob).await);
    }
    // The pushes are committed: one is in flight (the peer holds the request), the others
    // wait their turn (one send per device at a time). SIGKILL there.
    peer.wait_for(PATIENCE, |s| !s.is_empty()).await;
    first.child.kill().expect("SIGKILL");
    first.child.wait().expect("reaped");
    assert!(
        delivered(&peer).is_empty(),
        "nothing was delivered before the kill"
    );
    peer.hang(false);

    let _second = Server::start(&db.url, &peer).await;
    peer.wait_for(PATIENCE, |_| delivered(&peer).len() == games.len())
        .await;
    // Time for a second send of any of them, if one were to come.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let got = delivered(&peer);
    let pushed: std::collections::BTreeSet<&String> = got.keys().map(|(g, _)| g).collect();
    assert_eq!(pushed, games.iter().collect(), "every due push: {got:?}");
    assert!(got.values().all(|n| *n == 1), "each once: {got:?}");
    assert_public(&format!("{:?}", peer.sent()));
}

async fn two_processes_push_once(backend: TestBackend) {
    if !enabled(backend) {
        eprintln!("skipped: {backend:?} is not in RACKO_TEST_BACKENDS");
        return;
    }
    let db = TestDb::new(backend);
    let peer = FcmPeer::start();
    let one = Server::start(&db.url, &peer).await;
    let two = Server::start(&db.url, &peer).await;
    let (ann, bob) = accounts(&one).await;
    let mut games = Vec::new();
    for i in 0..8 {
        let server = if i % 2 == 0 { &one } else { &two };
        games.push(server.game(&ann, &bob).await);
    }
    peer.wait_for(PATIENCE, |_| delivered(&peer).len() == games.len())
        .await;
    // Time for a second send, if any process were to make one.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let got = delivered(&peer);
    assert_eq!(got.len(), games.len(), "{got:?}");
    assert!(got.values().all(|n| *n == 1), "each once: {got:?}");
    assert_eq!(peer.sent().len(), games.len(), "no retries were needed");
    let page = reqwest::Client::new()
        .get(format!("{}/v1/me/devices", two.address))
        .bearer_auth(&bob)
        .send()
        .await
        .expect("sent");
    let list = json_body(page, StatusCode::OK).await;
    assert_eq!(list["devices"].as_array().map(Vec::len), Some(1));
}

#[actix_web::test]
async fn a_server_killed_mid_push_loses_nothing_postgres() {
    killed_mid_push(TestBackend::Postgres).await
}

#[actix_web::test]
async fn a_server_killed_mid_push_loses_nothing_sqlite() {
    killed_mid_push(TestBackend::Sqlite).await
}

#[actix_web::test]
async fn two_processes_send_each_push_once_postgres() {
    two_processes_push_once(TestBackend::Postgres).await
}

#[actix_web::test]
async fn two_processes_send_each_push_once_sqlite() {
    two_processes_push_once(TestBackend::Sqlite).await
}
