//! `kill -9` of a real `racko serve` process while clients create games with an
//! `Idempotency-Key` (issue 13.3). The game and the stored answer for its key are written in
//! one transaction, so whatever moment the process dies at, a retry with the same key after
//! the restart either finds the first answer or creates the game then: one game per key,
//! never two, never none.

#[macro_use]
#[path = "common/mod.rs"]
mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use common::app::TEST_PASSWORD;
use common::db::{enabled, TestBackend, TestDb};
use common::process::ServeProcess;
use futures_util::future::join_all;
use racko::store::{GameQuery, Store};
use serde_json::{json, Value};
use uuid::Uuid;

const CRASHES: usize = 8;
const KEYS_PER_CRASH: usize = 8;

async fn create(client: &reqwest::Client, url: &str, token: &str, key: &str) -> Option<String> {
    let res = client
        .post(format!("{url}/v1/games"))
        .bearer_auth(token)
        .header("idempotency-key", key)
        .json(&json!({ "options": { "players": 3 } }))
        .send()
        .await
        .ok()?;
    if res.status() != reqwest::StatusCode::CREATED {
        return None;
    }
    let body: Value = res.json().await.ok()?;
    body["id"].as_str().map(str::to_string)
}

async fn one_game_per_key_across_crashes(backend: TestBackend) {
    if !enabled(backend) {
        eprintln!("skipped: {backend:?} is not in RACKO_TEST_BACKENDS");
        return;
    }
    let db = TestDb::new(backend);
    let client = reqwest::Client::new();
    let mut server = ServeProcess::start(&db.url, &[]);
    let res = client
        .post(format!("{}/v1/accounts", server.url))
        .json(&json!({ "username": "ann", "password": TEST_PASSWORD }))
        .send()
        .await
        .expect("register");
    let body: Value = res.json().await.expect("json");
    let token = body["token"].as_str().expect("token").to_string();
    let ann: Uuid = body["account"]["id"]
        .as_str()
        .and_then(|s| s.parse().ok())
        .expect("id");

    let mut games_by_key: BTreeMap<String, String> = BTreeMap::new();
    for crash in 0..CRASHES {
        let keys: Vec<String> = (0..KEYS_PER_CRASH)
            .map(|i| format!("crash-{crash}-{i}"))
            .collect();
        // The creates race the kill: some commit and answer, some commit and die before the
        // answer, some never reach the database.
        let url = server.url.clone();
        let sends = join_all(keys.iter().map(|k| create(&client, &url, &token, k)));
        let delay = Duration::from_millis(rand::random::<u64>() % 30);
        let kill = async {
            actix_web::rt::time::sleep(delay).await;
        };
        let (answers, ()) = futures_util::join!(sends, kill);
        server.kill_9();
        server = ServeProcess::start(&db.url, &[]);
        for (key, first) in keys.iter().zip(answers) {
            let retried = create(&client, &server.url, &token, key)
                .await
                .expect("the retry after the restart is answered");
            if let Some(first) = first {
                assert_eq!(first, retried, "{key}: the retry gets the first answer");
            }
            let again = create(&client, &server.url, &token, key).await;
            assert_eq!(again.as_ref(), Some(&retried), "{key}: asked twice");
            games_by_key.insert(key.clone(), retried);
        }
    }
    drop(server);

    let store = Store::open(&db.url, 1).expect("the store opens");
    let mut stored = BTreeSet::new();
    let mut cursor = None;
    loop {
        let page = store
            .list_games(&GameQuery {
                player: Some(ann),
                limit: 100,
                cursor,
                ..GameQuery::default()
            })
            .expect("a page");
        stored.extend(page.games.iter().map(|g| g.id.to_string()));
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    let answered: BTreeSet<String> = games_by_key.values().cloned().collect();
    assert_eq!(answered.len(), CRASHES * KEYS_PER_CRASH, "one game per key");
    assert_eq!(
        stored, answered,
        "no game without its key, no key with two games"
    );
}

#[actix_web::test]
async fn kill_9_during_keyed_creates_leaves_one_game_per_key_postgres() {
    one_game_per_key_across_crashes(TestBackend::Postgres).await;
}

#[actix_web::test]
async fn kill_9_during_keyed_creates_leaves_one_game_per_key_sqlite() {
    one_game_per_key_across_crashes(TestBackend::Sqlite).await;
}
