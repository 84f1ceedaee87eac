//! `kill -9` of a real `racko serve` process while clients create games with an
//! `Idempotency-Key` (issue 13.3). The game and the stored answer for its key are written in
//! one transaction, so whatever moment the process dies at, a retry with the same key after
//! the restart either finds the first answer or creates the game then: one game per key,
//! never two, never none. Likewise a rated game's end and its rating change: both or neither.

#[macro_use]
#[path = "common/mod.rs"]
mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use common::app::TEST_PASSWORD;
use common::db::{enabled, TestBackend, TestDb};
use common::process::ServeProcess;
use futures_util::future::join_all;
use futures_util::stream::{FuturesUnordered, StreamExt};
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

const RATED_GAMES: usize = 48;

async fn register(client: &reqwest::Client, url: &str, name: &str) -> (String, Uuid) {
    let res = client
        .post(format!("{url}/v1/accounts"))
        .json(&json!({ "username": name, "password": TEST_PASSWORD }))
        .send()
        .await
        .expect("register");
    let body: Value = res.json().await.expect("json");
    let token = body["token"].as_str().expect("token").to_string();
    let id = body["account"]["id"]
        .as_str()
        .and_then(|s| s.parse().ok())
        .expect("id");
    (token, id)
}

/// A rated two-player game of the two, started: its id and version.
async fn rated_game(client: &reqwest::Client, url: &str, ann: &str, ben: &str) -> (String, i64) {
    let body = json!({ "options": { "players": 2 }, "rated": true, "visibility": "public" });
    let res = client
        .post(format!("{url}/v1/games"))
        .bearer_auth(ann)
        .json(&body)
        .send()
        .await
        .expect("create");
    let game: Value = res.json().await.expect("json");
    let id = game["id"].as_str().expect("an id").to_string();
    let res = client
        .post(format!("{url}/v1/games/{id}/join"))
        .bearer_auth(ben)
        .json(&json!({}))
        .send()
        .await
        .expect("join");
    let joined: Value = res.json().await.expect("json");
    (id, joined["version"].as_i64().expect("a version"))
}

/// `kill -9` while rated games end by resignation: a game's end and its rating change are
/// written in one transaction, so after the restart each game is either finished with both
/// players' rating log entries and counted in both ratings, or still active with neither.
async fn a_rated_end_and_its_rating_change_are_both_there_or_neither(backend: TestBackend) {
    if !enabled(backend) {
        eprintln!("skipped: {backend:?} is not in RACKO_TEST_BACKENDS");
        return;
    }
    let db = TestDb::new(backend);
    let client = reqwest::Client::new();
    let server = ServeProcess::start(&db.url, &[]);
    let (ann, ann_id) = register(&client, &server.url, "ann").await;
    let (ben, ben_id) = register(&client, &server.url, "ben").await;
    let mut games = Vec::new();
    for _ in 0..RATED_GAMES {
        games.push(rated_game(&client, &server.url, &ann, &ben).await);
    }
    let url = server.url.clone();
    let mut resigns: FuturesUnordered<_> = games
        .iter()
        .map(|(id, version)| {
            client
                .post(format!("{url}/v1/games/{id}/resign"))
                .bearer_auth(&ann)
                .json(&json!({ "version": version }))
                .send()
        })
        .collect();
    // A quarter of the ends are answered: the others are on their way through the server.
    for _ in 0..RATED_GAMES / 4 {
        let _ = resigns.next().await;
    }
    server.kill_9();

    let store = Store::open(&db.url, 1).expect("the store opens");
    let mut finished = BTreeSet::new();
    for (id, _) in &games {
        let game = store
            .game(id.parse().expect("a uuid"))
            .expect("read")
            .expect("the game");
        if game.status == racko::store::GameStatus::Finished {
            finished.insert(id.clone());
        }
    }
    for account in [ann_id, ben_id] {
        let logged: BTreeSet<String> = store
            .rating_history(account, 1000)
            .expect("the log")
            .iter()
            .map(|c| c.game_id.to_string())
            .collect();
        assert_eq!(
            logged, finished,
            "a rating change for every end, and only then"
        );
        let counted = store
            .ratings_of(account)
            .expect("ratings")
            .iter()
            .find(|r| r.pool == "standard_2")
            .map_or(0, |r| r.games);
        assert_eq!(counted as usize, finished.len());
    }
    eprintln!(
        "{} of {RATED_GAMES} ends committed before the kill",
        finished.len()
    );
}

#[actix_web::test]
async fn kill_9_while_rated_games_end_keeps_ends_and_ratings_together_postgres() {
    a_rated_end_and_its_rating_change_are_both_there_or_neither(TestBackend::Postgres).await;
}

#[actix_web::test]
async fn kill_9_while_rated_games_end_keeps_ends_and_ratings_together_sqlite() {
    a_rated_end_and_its_rating_change_are_both_there_or_neither(TestBackend::Sqlite).await;
}
