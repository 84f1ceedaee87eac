//! The sweepers of real `racko serve` processes (issue 11, R10.2): several processes on one
//! PostgreSQL time out every overdue seat exactly once between them, and a process killed
//! with SIGKILL in the middle of its sweep leaves nothing undone or done twice after a
//! restart. The clock is moved through the settings row every test-mode process reads.

#[macro_use]
#[path = "common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use common::app::TEST_PASSWORD;
use common::db::{enabled, TestBackend, TestDb};
use common::process::ServeProcess;
use futures_util::future::join_all;
use racko::store::Store;
use racko::workers::sweeper::CLOCK_OFFSET_KEY;
use serde_json::{json, Value};
use uuid::Uuid;

const TEST_MODE: &[(&str, &str)] = &[("RACKO_TEST_MODE", "1")];

async fn register(client: &reqwest::Client, url: &str, name: &str) -> String {
    let res = client
        .post(format!("{url}/v1/accounts"))
        .json(&json!({ "username": name, "password": TEST_PASSWORD }))
        .send()
        .await
        .expect("register");
    let body: Value = res.json().await.expect("json");
    body["token"].as_str().expect("token").to_string()
}

/// `count` started two-player games of ann and bob with a one-minute turn: bob is awaited.
async fn games(client: &reqwest::Client, url: &str, count: usize) -> Vec<Uuid> {
    let ann = register(client, url, "ann").await;
    let bob = register(client, url, "bob").await;
    let one = |_| async {
        let created: Value = client
            .post(format!("{url}/v1/games"))
            .bearer_auth(&ann)
            .json(&json!({ "options": { "players": 2, "turn_time": 60 }, "visibility": "public" }))
            .send()
            .await
            .expect("create")
            .json()
            .await
            .expect("json");
        let id = created["id"].as_str().expect("id").to_string();
        let joined = client
            .post(format!("{url}/v1/games/{id}/join"))
            .bearer_auth(&bob)
            .json(&json!({}))
            .send()
            .await
            .expect("join");
        assert!(joined.status().is_success());
        id.parse::<Uuid>().expect("uuid")
    };
    let mut ids = Vec::new();
    for chunk in (0..count).collect::<Vec<_>>().chunks(20) {
        ids.extend(join_all(chunk.iter().map(one)).await);
    }
    ids
}

/// Moves every test-mode process's clock past the one-minute deadlines.
fn pass_the_deadlines(store: &Store) {
    store
        .put_setting(CLOCK_OFFSET_KEY, "61000000")
        .expect("the clock setting is written");
}

/// `turn_timed_out` events of each game.
fn timeouts(store: &Store, ids: &[Uuid]) -> Vec<usize> {
    ids.iter()
        .map(|id| {
            let events = store.events(*id, 0, 10_000).expect("events");
            events.iter().filter(|e| e.kind == "turn_timed_out").count()
        })
        .collect()
}

/// Waits until every game has a timeout, then a little longer (a second look by another
/// process would show now), and returns the counts.
async fn settled(store: &Store, ids: &[Uuid]) -> Vec<usize> {
    let start = Instant::now();
    loop {
        let counts = timeouts(store, ids);
        if counts.iter().all(|c| *c > 0) {
            tokio::time::sleep(Duration::from_secs(3)).await;
            return timeouts(store, ids);
        }
        let done = counts.iter().filter(|c| **c > 0).count();
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "{done} of {} games timed out",
            ids.len()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[actix_web::test]
async fn r10_2_three_processes_time_out_200_overdue_games_exactly_once() {
    if !enabled(TestBackend::Postgres) {
        eprintln!("skipped: postgres is not in RACKO_TEST_BACKENDS");
        return;
    }
    let db = TestDb::new(TestBackend::Postgres);
    let servers: Vec<ServeProcess> = (0..3)
        .map(|_| ServeProcess::start(&db.url, TEST_MODE))
        .collect();
    let client = reqwest::Client::new();
    let ids = games(&client, &servers[0].url, 200).await;
    let store = Store::open(&db.url, 2).expect("the store opens");
    assert!(timeouts(&store, &ids).iter().all(|c| *c == 0));

    pass_the_deadlines(&store);
    let counts = settled(&store, &ids).await;
    assert!(
        counts.iter().all(|c| *c == 1),
        "every timeout applied exactly once: {counts:?}"
    );
    drop(servers);
}

async fn a_sweep_killed_with_sigkill_is_finished_once_after_a_restart(backend: TestBackend) {
    if !enabled(backend) {
        eprintln!("skipped: {backend:?} is not in RACKO_TEST_BACKENDS");
        return;
    }
    let db = TestDb::new(backend);
    let server = ServeProcess::start(&db.url, TEST_MODE);
    let client = reqwest::Client::new();
    let ids = games(&client, &server.url, 60).await;
    let store = Store::open(&db.url, 2).expect("the store opens");

    // The process picks the clock up within a second and starts sweeping; it dies somewhere
    // before, during or after that.
    pass_the_deadlines(&store);
    let delay = 500 + rand::random::<u64>() % 1500;
    tokio::time::sleep(Duration::from_millis(delay)).await;
    server.kill_9();
    let before = timeouts(&store, &ids);
    assert!(before.iter().all(|c| *c <= 1), "{before:?}");

    let restarted = ServeProcess::start(&db.url, TEST_MODE);
    let counts = settled(&store, &ids).await;
    assert!(
        counts.iter().all(|c| *c == 1),
        "each overdue seat handled once across the crash ({} done before it): {counts:?}",
        before.iter().sum::<usize>()
    );
    drop(restarted);
}

#[actix_web::test]
async fn r10_2_a_sweep_killed_with_sigkill_is_finished_once_after_a_restart_postgres() {
    a_sweep_killed_with_sigkill_is_finished_once_after_a_restart(TestBackend::Postgres).await;
}

#[actix_web::test]
async fn r10_2_a_sweep_killed_with_sigkill_is_finished_once_after_a_restart_sqlite() {
    a_sweep_killed_with_sigkill_is_finished_once_after_a_restart(TestBackend::Sqlite).await;
}

/// Issue 12: computer seats on two processes. ann plays through both in turn; the computers'
/// moves are made by whichever sweeper comes first, once each: the finished game verifies.
#[actix_web::test]
async fn computer_moves_are_made_once_with_two_processes() {
    if !enabled(TestBackend::Postgres) {
        eprintln!("skipped: postgres is not in RACKO_TEST_BACKENDS");
        return;
    }
    let db = TestDb::new(TestBackend::Postgres);
    let servers: Vec<ServeProcess> = (0..2)
        .map(|_| ServeProcess::start(&db.url, TEST_MODE))
        .collect();
    let client = reqwest::Client::new();
    let ann = register(&client, &servers[0].url, "ann").await;
    let body = json!({
        "options": { "players": 3, "target": 75 },
        "computer": [{ "seat": 1, "level": "strong" }, { "seat": 2, "level": "basic" }],
    });
    let created: Value = client
        .post(format!("{}/v1/games", servers[0].url))
        .bearer_auth(&ann)
        .json(&body)
        .send()
        .await
        .expect("create")
        .json()
        .await
        .expect("json");
    let id = created["id"].as_str().expect("id").to_string();
    let start = Instant::now();
    let mut turn = 0;
    loop {
        assert!(
            start.elapsed() < Duration::from_secs(180),
            "the game does not end"
        );
        let url = &servers[turn % 2].url;
        let seen: Value = client
            .get(format!("{url}/v1/games/{id}"))
            .bearer_auth(&ann)
            .send()
            .await
            .expect("view")
            .json()
            .await
            .expect("json");
        if seen["status"] == "finished" {
            break;
        }
        let view: racko_rules::View =
            serde_json::from_value(seen["table"].clone()).expect("a view");
        let Some(action) = racko_sample::choose(&view) else {
            tokio::time::sleep(Duration::from_millis(20)).await;
            continue;
        };
        let body = json!({ "version": seen["version"], "action": action });
        client
            .post(format!("{url}/v1/games/{id}/actions"))
            .bearer_auth(&ann)
            .json(&body)
            .send()
            .await
            .expect("action");
        turn += 1;
    }
    let verify: Value = client
        .get(format!("{}/v1/games/{id}/verify", servers[1].url))
        .bearer_auth(&ann)
        .send()
        .await
        .expect("verify")
        .json()
        .await
        .expect("json");
    assert_eq!(verify["verified"], true, "{verify}");
    drop(servers);
}

/// Test mode: a clock move sent to a process that has not read another process's move yet
/// starts from the shared offset, so the clock never goes back (61 s, then 1 s more, is 62 s
/// on both).
#[actix_web::test]
async fn the_test_clock_only_moves_forward_across_processes() {
    if !enabled(TestBackend::Postgres) {
        eprintln!("skipped: postgres is not in RACKO_TEST_BACKENDS");
        return;
    }
    let db = TestDb::new(TestBackend::Postgres);
    let url = db.url.clone();
    let (a, b) = tokio::task::spawn_blocking(move || {
        (
            ServeProcess::start(&url, TEST_MODE),
            ServeProcess::start(&url, TEST_MODE),
        )
    })
    .await
    .expect("both servers start");
    let client = reqwest::Client::new();
    let advance = |base: String, seconds: u64| {
        let client = client.clone();
        async move {
            let now: Value = client
                .post(format!("{base}/v1/test/clock"))
                .json(&json!({ "seconds": seconds }))
                .send()
                .await
                .expect("the clock moved")
                .json()
                .await
                .expect("json");
            now["offset_seconds"].as_f64().expect("an offset")
        }
    };
    assert_eq!(advance(a.url.clone(), 61).await, 61.0);
    assert_eq!(
        advance(b.url.clone(), 1).await,
        62.0,
        "b starts from a's move"
    );
    assert_eq!(advance(a.url.clone(), 1).await, 63.0);
}
