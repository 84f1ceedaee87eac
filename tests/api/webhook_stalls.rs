//! Webhook deliveries do not stall each other: one account's 20 endpoints that accept a
//! delivery and never answer (the delivery timeout at its default, 10 s) do not delay another
//! account's delivery beyond a second; an endpoint never has more than its share in flight,
//! even with two server processes delivering; and a claim takes the accounts in turn.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use racko::store::{NewWebhook, Store};
use racko::workers::webhooks::PER_ENDPOINT;
use reqwest::StatusCode;
use serde_json::json;
use uuid::Uuid;

use crate::common::app::{json_body, spawn_app_with, TestApp};
use crate::common::db::{enabled, TestBackend};
use crate::common::process::ServeProcess;
use crate::receiver::{Mode, Receiver};
use crate::tables::{create, join, players, Player};

const PATIENCE: Duration = Duration::from_secs(30);

/// An app delivering to the tests' own (loopback) receivers, otherwise as configured by
/// default: a 10 s timeout, a 500 ms poll, retries after 5 s.
async fn app(backend: TestBackend, poll: Option<Duration>) -> Option<TestApp> {
    if !enabled(backend) {
        eprintln!("skipped: {backend:?} is not in RACKO_TEST_BACKENDS");
        return None;
    }
    Some(
        spawn_app_with(backend, |c| {
            c.webhooks_allow_private = true;
            if let Some(poll) = poll {
                c.webhook_poll = poll;
            }
        })
        .await,
    )
}

/// Registers `url` for the account through the API (at most 10 an account there); the
/// endpoint id and its secret.
async fn register(app: &TestApp, who: &Player, url: &str) -> (String, String) {
    let res = app
        .post_json("/v1/me/webhooks", who.token(), &json!({ "url": url }))
        .await;
    let created = json_body(res, StatusCode::CREATED).await;
    let id = created["webhook"]["id"].as_str().expect("id").to_string();
    (id, created["secret"].as_str().expect("secret").to_string())
}

/// Registers `url` for `account` straight in the store: past the API's 10 an account.
fn register_in_store(store: &Store, account: Uuid, url: &str) {
    store
        .insert_webhook(&NewWebhook {
            account_id: account,
            url: url.to_string(),
            kinds: Vec::new(),
            secret: racko::notify::signing::new_key(),
        })
        .expect("endpoint stored");
}

/// `games` two-player games of `owner`, each joined by `other`: feed items for `owner`.
async fn games(app: &TestApp, owner: &Player, other: &Player, games: usize) -> Vec<String> {
    let mut ids = Vec::new();
    for _ in 0..games {
        let created = create(app, owner, &json!({ "options": { "players": 2 } })).await;
        let id = created["id"].as_str().expect("id").to_string();
        join(app, other, &id).await;
        ids.push(id);
    }
    ids
}

async fn player(app: &TestApp, name: &str) -> (Player, Uuid) {
    let (token, id) = app.register(name).await;
    let player = Player {
        name: name.to_string(),
        token,
    };
    (player, id)
}

#[actix_web::test]
async fn hanging_endpoints_do_not_delay_another_account_postgres() {
    hanging_endpoints_do_not_delay_another_account(TestBackend::Postgres).await
}

#[actix_web::test]
async fn hanging_endpoints_do_not_delay_another_account_sqlite() {
    hanging_endpoints_do_not_delay_another_account(TestBackend::Sqlite).await
}

async fn hanging_endpoints_do_not_delay_another_account(backend: TestBackend) {
    let Some(app) = app(backend, None).await else {
        return;
    };
    let store = Store::open(&app.db.url, 1).expect("the store opens");
    let (mal, mal_id) = player(&app, "mal").await;
    let helpers = players(&app, &["mia", "vic", "val"]).await;
    let (mia, vic, val) = (&helpers[0], &helpers[1], &helpers[2]);

    // One account, 20 endpoints that take a delivery and never answer.
    let hanging: Vec<Receiver> = (0..20).map(|_| Receiver::start(Mode::Hang)).collect();
    for (i, receiver) in hanging.iter().enumerate() {
        if i < 10 {
            register(&app, &mal, &receiver.url).await;
        } else {
            register_in_store(&store, mal_id, &receiver.url);
        }
    }
    // Several feed items each: a backlog of deliveries to every hanging endpoint.
    games(&app, &mal, mia, 3).await;
    let share = usize::try_from(PER_ENDPOINT).expect("small");
    for receiver in &hanging {
        receiver.wait_for(PATIENCE, |got| got.len() >= share).await;
    }

    let fine = Receiver::start(Mode::Ok);
    fine.set_secret(&register(&app, vic, &fine.url).await.1);
    let mut delays = Vec::new();
    for _ in 0..3 {
        let created = create(&app, vic, &json!({ "options": { "players": 2 } })).await;
        let id = created["id"].as_str().expect("id").to_string();
        let changed = Instant::now();
        join(&app, val, &id).await;
        let got = fine
            .wait_for(PATIENCE, |got| {
                got.iter().any(|r| r.body["data"]["game_id"] == id.as_str())
            })
            .await;
        let first = got
            .iter()
            .find(|r| r.body["data"]["game_id"] == id.as_str())
            .expect("delivered");
        assert!(first.signed, "{first:?}");
        delays.push(first.at.saturating_duration_since(changed));
    }
    eprintln!("{backend:?}: another account's deliveries arrived after {delays:?}, with 20 endpoints hanging");
    for delay in &delays {
        assert!(*delay < Duration::from_secs(1), "{delays:?}");
    }
    // The hanging endpoints still hold their share each, and no more.
    for receiver in &hanging {
        assert_eq!(receiver.received().len(), share);
        receiver.set_mode(Mode::Ok);
    }
}

#[actix_web::test]
async fn an_endpoint_has_its_share_in_flight_across_processes_postgres() {
    an_endpoint_has_its_share_in_flight_across_processes(TestBackend::Postgres).await
}

#[actix_web::test]
async fn an_endpoint_has_its_share_in_flight_across_processes_sqlite() {
    an_endpoint_has_its_share_in_flight_across_processes(TestBackend::Sqlite).await
}

async fn an_endpoint_has_its_share_in_flight_across_processes(backend: TestBackend) {
    let Some(app) = app(backend, Some(Duration::from_millis(50))).await else {
        return;
    };
    let url = app.db.url.clone();
    let env = [
        ("RACKO_WEBHOOKS_ALLOW_PRIVATE", "1"),
        ("RACKO_WEBHOOK_TIMEOUT_SECS", "10"),
    ];
    let others = tokio::task::spawn_blocking(move || {
        [
            ServeProcess::start(&url, &env),
            ServeProcess::start(&url, &env),
        ]
    })
    .await
    .expect("two more servers start");
    let table = players(&app, &["ann", "bob"]).await;
    let hanging = Receiver::start(Mode::Hang);
    register(&app, &table[0], &hanging.url).await;
    games(&app, &table[0], &table[1], 3).await;

    // Three processes poll every 50 ms (here) or 500 ms (the others) for 3 s: each would take
    // more of the backlog if the share were per process.
    let share = usize::try_from(PER_ENDPOINT).expect("small");
    hanging.wait_for(PATIENCE, |got| got.len() >= share).await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    let got = hanging.received();
    assert_eq!(got.len(), share, "{got:#?}");
    // The rest waits its turn: it is delivered once the receiver answers.
    let feed = json_body(
        app.get("/v1/me/feed?limit=500", table[0].token()).await,
        StatusCode::OK,
    )
    .await;
    let items = feed["items"].as_array().expect("items").len();
    assert!(items > share, "a backlog: {items} items");
    hanging.set_mode(Mode::Ok);
    let done = hanging
        .wait_for(PATIENCE, |got| {
            let answered: BTreeMap<String, u16> =
                got.iter().map(|r| (r.id.clone(), r.answered)).collect();
            answered.values().filter(|s| **s == 200).count() == items
        })
        .await;
    assert!(done.len() >= items);
    drop(others);
}

#[actix_web::test]
async fn a_claim_takes_the_accounts_in_turn_postgres() {
    a_claim_takes_the_accounts_in_turn(TestBackend::Postgres).await
}

#[actix_web::test]
async fn a_claim_takes_the_accounts_in_turn_sqlite() {
    a_claim_takes_the_accounts_in_turn(TestBackend::Sqlite).await
}

/// The store's claim itself, with the app's worker idle (it polls once an hour): the test
/// claims, as a worker would.
async fn a_claim_takes_the_accounts_in_turn(backend: TestBackend) {
    let Some(app) = app(backend, Some(Duration::from_secs(3600))).await else {
        return;
    };
    let store = Store::open(&app.db.url, 1).expect("the store opens");
    let table = players(&app, &["ann", "bob", "cyd", "dina"]).await;
    let (ann, bob, cyd, dina) = (&table[0], &table[1], &table[2], &table[3]);
    // Ann: 5 endpoints and a few games' worth of items; Cyd: one endpoint, one game, later.
    for i in 0..5 {
        register(&app, ann, &format!("http://127.0.0.1:9/ann/{i}")).await;
    }
    games(&app, ann, bob, 3).await;
    let (cyd_endpoint, _) = register(&app, cyd, "http://127.0.0.1:9/cyd").await;
    games(&app, cyd, dina, 1).await;
    tokio::time::sleep(Duration::from_millis(20)).await;

    let now = chrono::Utc::now();
    let until = now + chrono::Duration::seconds(60);
    // Two slots: one for each account, though all of Ann's are older than Cyd's.
    let first = store
        .claim_deliveries(now, until, 2, PER_ENDPOINT)
        .expect("claimed");
    let cyd_id = cyd_endpoint.parse::<Uuid>().expect("uuid");
    assert_eq!(first.len(), 2, "{first:#?}");
    assert_eq!(
        first.iter().filter(|c| c.endpoint_id == cyd_id).count(),
        1,
        "{first:#?}"
    );
    // Then every endpoint up to its share, and no more while the leases run.
    let rest = store
        .claim_deliveries(now, until, 1000, PER_ENDPOINT)
        .expect("claimed");
    let mut per_endpoint: BTreeMap<Uuid, i64> = BTreeMap::new();
    for c in first.iter().chain(&rest) {
        *per_endpoint.entry(c.endpoint_id).or_default() += 1;
    }
    assert_eq!(per_endpoint.len(), 6, "{per_endpoint:?}");
    assert!(
        per_endpoint.values().all(|n| *n == PER_ENDPOINT),
        "{per_endpoint:?}"
    );
    let again = store
        .claim_deliveries(now, until, 1000, PER_ENDPOINT)
        .expect("claimed");
    assert!(again.is_empty(), "{again:#?}");
    // Once the leases are over, the same deliveries are taken over (a process died
    // mid-delivery, say): at least once.
    let later = until + chrono::Duration::seconds(1);
    let next = store
        .claim_deliveries(
            later,
            later + chrono::Duration::seconds(60),
            1000,
            PER_ENDPOINT,
        )
        .expect("claimed");
    let ids = |claims: &[racko::store::Claimed]| -> std::collections::BTreeSet<String> {
        claims.iter().map(|c| c.id.clone()).collect()
    };
    let before: Vec<_> = first.iter().chain(&rest).cloned().collect();
    assert_eq!(ids(&next), ids(&before));
}
