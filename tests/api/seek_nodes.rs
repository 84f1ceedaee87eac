//! The seek pool across two real `racko serve` processes on one PostgreSQL database: 200
//! seeks sent at once, half to each, over two pools. Afterwards every seek is in at most one
//! game, every game seats exactly the seekers matched to it (each told `game_started`), and
//! no compatible pair is left open.

use std::collections::{BTreeMap, BTreeSet};

use diesel::RunQueryDsl;
use reqwest::{Client, StatusCode};
use serde_json::{json, Value};

use crate::common::db::{enabled, pg_connect, TestBackend, TestDb};
use crate::common::process::ServeProcess;

const SEEKERS: usize = 100;
const SEEKS_EACH: usize = 2;

#[derive(diesel::QueryableByName)]
struct SeekRow {
    #[diesel(sql_type = diesel::sql_types::Text)]
    id: String,
    #[diesel(sql_type = diesel::sql_types::Text)]
    account_id: String,
    #[diesel(sql_type = diesel::sql_types::Text)]
    pool: String,
    #[diesel(sql_type = diesel::sql_types::Text)]
    status: String,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Text>)]
    game_id: Option<String>,
}

#[derive(diesel::QueryableByName)]
struct Pair {
    #[diesel(sql_type = diesel::sql_types::Text)]
    game_id: String,
    #[diesel(sql_type = diesel::sql_types::Text)]
    account_id: String,
}

async fn guest(client: &Client, base: &str) -> String {
    let res = client
        .post(format!("{base}/v1/guests"))
        .json(&json!({}))
        .send()
        .await
        .expect("answered");
    assert_eq!(res.status(), StatusCode::CREATED);
    let body: Value = res.json().await.expect("JSON");
    body["token"].as_str().expect("a token").to_string()
}

#[actix_web::test]
async fn two_hundred_seeks_at_once_on_two_processes_pair_exactly_once_and_leave_no_pair_open() {
    if !enabled(TestBackend::Postgres) {
        eprintln!("skipped: Postgres is not in RACKO_TEST_BACKENDS");
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
    let bases = [a.url.clone(), b.url.clone()];
    let client = Client::new();
    let mut tokens = Vec::new();
    for n in 0..SEEKERS {
        tokens.push(guest(&client, &bases[n % 2]).await);
    }
    // Every seek at once: seeker n's k-th seek goes to process (n + k) % 2, in pool
    // (n / 2 + k) % 2 (two targets), so each pool gets seeks from both processes.
    let mut sent = Vec::new();
    for (n, token) in tokens.iter().enumerate() {
        for k in 0..SEEKS_EACH {
            let base = bases[(n + k) % 2].clone();
            let target = if (n / 2 + k) % 2 == 0 { 500 } else { 300 };
            let body = json!({ "options": { "players": 2, "target": target } });
            let (client, token) = (client.clone(), token.clone());
            sent.push(tokio::spawn(async move {
                let res = client
                    .post(format!("{base}/v1/seeks"))
                    .bearer_auth(token)
                    .json(&body)
                    .send()
                    .await
                    .expect("answered");
                let status = res.status();
                let body: Value = res.json().await.expect("JSON");
                assert_eq!(status, StatusCode::CREATED, "{body}");
                body["id"].as_str().expect("an id").to_string()
            }));
        }
    }
    let mut answered = BTreeSet::new();
    for task in sent {
        answered.insert(task.await.expect("the seek task"));
    }
    assert_eq!(
        answered.len(),
        SEEKERS * SEEKS_EACH,
        "every seek stored once"
    );

    let mut admin = pg_connect(&db.url).expect("a connection of the test's own");
    let seeks: Vec<SeekRow> = diesel::sql_query(
        "SELECT id, account_id, pool, status, game_id FROM seeks ORDER BY created_at",
    )
    .load(&mut admin)
    .expect("the seeks");
    let stored: BTreeSet<String> = seeks.iter().map(|s| s.id.clone()).collect();
    assert_eq!(stored, answered, "the seeks stored are those answered");
    let seated: Vec<Pair> = diesel::sql_query(
        "SELECT game_id, account_id FROM game_seats WHERE game_id IN \
         (SELECT game_id FROM seeks WHERE game_id IS NOT NULL)",
    )
    .load(&mut admin)
    .expect("the seats");
    let told: Vec<Pair> = diesel::sql_query(
        "SELECT game_id, account_id FROM account_feed WHERE kind = 'game_started'",
    )
    .load(&mut admin)
    .expect("the feed items");

    let mut matched: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for seek in seeks.iter().filter(|s| s.status == "matched") {
        let game = seek.game_id.clone().expect("a matched seek names its game");
        matched
            .entry(game)
            .or_default()
            .push(seek.account_id.clone());
    }
    let mut tables: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for seat in &seated {
        tables
            .entry(seat.game_id.clone())
            .or_default()
            .push(seat.account_id.clone());
    }
    for (game, seekers) in &mut matched {
        seekers.sort();
        assert_eq!(seekers.len(), 2, "game {game}: two seeks matched into it");
        assert_ne!(seekers[0], seekers[1], "game {game}: two accounts");
        let mut at_table = tables.get(game).cloned().unwrap_or_default();
        at_table.sort();
        assert_eq!(&at_table, seekers, "game {game} seats exactly its seekers");
        for account in seekers.iter() {
            let items = told
                .iter()
                .filter(|t| &t.game_id == game && &t.account_id == account)
                .count();
            assert_eq!(items, 1, "game {game}: {account} told game_started once");
        }
    }
    assert_eq!(tables.len(), matched.len(), "no game without its seeks");

    let mut open: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for seek in seeks.iter().filter(|s| s.status == "open") {
        open.entry(&seek.pool).or_default().insert(&seek.account_id);
    }
    for (pool, accounts) in &open {
        assert!(
            accounts.len() < 2,
            "pool {pool}: {} accounts still wait; a compatible pair was left open",
            accounts.len()
        );
    }
    eprintln!(
        "{} games from {} seeks; {} seeks open",
        matched.len(),
        seeks.len(),
        seeks.iter().filter(|s| s.status == "open").count()
    );
    drop((a, b));
}
