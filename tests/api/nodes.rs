//! Issue 10.4: two real `racko serve` processes on one PostgreSQL database. An action posted
//! to one reaches a stream and a long-poll held on the other within a second: the only path
//! between them is the database (`pg_notify` after the commit, the other's `LISTEN`).

use std::time::{Duration, Instant};

use diesel::RunQueryDsl;
use racko_rules::View;
use reqwest::{Client, Method, StatusCode};
use serde_json::{json, Value};

use crate::common::app::TEST_PASSWORD;
use crate::common::db::{enabled, pg_connect, TestBackend, TestDb};
use crate::common::process::ServeProcess;
use crate::sse::Stream;

/// Two `racko serve` processes on `db`, started off the async workers (each waits to be
/// ready).
async fn two_servers(db: &TestDb) -> (ServeProcess, ServeProcess) {
    let url = db.url.clone();
    tokio::task::spawn_blocking(move || {
        (
            ServeProcess::start(&url, &[]),
            ServeProcess::start(&url, &[]),
        )
    })
    .await
    .expect("both servers start")
}

/// Calls `base` + `path` and expects `expected`; the answer's JSON.
async fn call(
    client: &Client,
    base: &str,
    method: Method,
    path: &str,
    token: Option<&str>,
    body: Option<Value>,
    expected: StatusCode,
) -> Value {
    let mut req = client.request(method, format!("{base}{path}"));
    if let Some(token) = token {
        req = req.bearer_auth(token);
    }
    if let Some(body) = body {
        req = req.json(&body);
    }
    let res = req.send().await.expect("answered");
    assert_eq!(res.status(), expected, "{path}");
    res.json().await.expect("JSON")
}

async fn register(client: &Client, base: &str, name: &str) -> String {
    let body = json!({ "username": name, "password": TEST_PASSWORD });
    let res = call(
        client,
        base,
        Method::POST,
        "/v1/accounts",
        None,
        Some(body),
        StatusCode::CREATED,
    )
    .await;
    res["token"].as_str().expect("token").to_string()
}

/// Plays one action of whoever may act, on `base`: the seq of the game's last event after it,
/// and when the action's answer came (it has committed by then).
async fn play_one(client: &Client, base: &str, tokens: &[String], id: &str) -> (i64, Instant) {
    for token in tokens {
        let path = format!("/v1/games/{id}");
        let seen = call(
            client,
            base,
            Method::GET,
            &path,
            Some(token),
            None,
            StatusCode::OK,
        )
        .await;
        assert_eq!(seen["status"], "active", "the game goes on");
        let table: View = serde_json::from_value(seen["table"].clone()).expect("a view");
        if let Some(action) = racko_sample::choose(&table) {
            let body = json!({ "version": seen["version"], "action": action });
            let path = format!("/v1/games/{id}/actions");
            call(
                client,
                base,
                Method::POST,
                &path,
                Some(token),
                Some(body),
                StatusCode::OK,
            )
            .await;
            let committed = Instant::now();
            return (logged_up_to(client, base, token, id).await, committed);
        }
    }
    panic!("nobody may act in an active game");
}

/// The seq of game `id`'s last event, as `base` reads it for `token`.
async fn logged_up_to(client: &Client, base: &str, token: &str, id: &str) -> i64 {
    let path = format!("/v1/games/{id}/events?after=0&limit=500");
    let page = call(
        client,
        base,
        Method::GET,
        &path,
        Some(token),
        None,
        StatusCode::OK,
    )
    .await;
    page["next_after"].as_i64().expect("next_after")
}

/// ann and bob, signed up on `base`, in a game ann created there and bob joined (so it
/// started): their tokens, the game's id and its version.
async fn started_game(client: &Client, base: &str) -> ([String; 2], String, i64) {
    let tokens = [
        register(client, base, "ann").await,
        register(client, base, "bob").await,
    ];
    let options = json!({ "options": { "players": 2, "target": 100000 }, "visibility": "public" });
    let game = call(
        client,
        base,
        Method::POST,
        "/v1/games",
        Some(&tokens[0]),
        Some(options),
        StatusCode::CREATED,
    )
    .await;
    let id = game["id"].as_str().expect("id").to_string();
    let path = format!("/v1/games/{id}/join");
    let joined = call(
        client,
        base,
        Method::POST,
        &path,
        Some(&tokens[1]),
        None,
        StatusCode::OK,
    )
    .await;
    let version = joined["version"].as_i64().expect("version");
    (tokens, id, version)
}

#[actix_web::test]
async fn two_serve_processes_on_one_postgres_wake_each_other() {
    if !enabled(TestBackend::Postgres) {
        eprintln!("skipped: Postgres is not in RACKO_TEST_BACKENDS");
        return;
    }
    let db = TestDb::new(TestBackend::Postgres);
    let (a, b) = two_servers(&db).await;
    let client = Client::new();
    let (tokens, id, _) = started_game(&client, &a.url).await;
    let mut last = logged_up_to(&client, &b.url, &tokens[0], &id).await;

    for _ in 0..3 {
        // Both held on B before the action on A; B has nothing to tell until A commits.
        let path = format!("/v1/games/{id}/stream");
        let mut stream = Stream::open_at(&b.url, &path, Some(&tokens[0]), Some(last)).await;
        let poll = client
            .get(format!(
                "{}/v1/games/{id}/events?after={last}&wait=30",
                b.url
            ))
            .bearer_auth(&tokens[0])
            .send();
        let act = async {
            tokio::time::sleep(Duration::from_millis(200)).await;
            play_one(&client, &a.url, &tokens, &id).await
        };
        let (polled, (seq, acted)) = tokio::join!(poll, act);
        let polled = polled.expect("B answers the long-poll");
        assert_eq!(polled.status(), StatusCode::OK);
        let page: Value = polled.json().await.expect("JSON");
        assert_eq!(page["events"][0]["seq"], last + 1, "the long-poll on B");
        let frame = stream
            .next(Duration::from_secs(1))
            .await
            .expect("the action on A reaches B's stream within 1 s");
        assert_eq!(frame.id, last + 1);
        assert!(
            acted.elapsed() < Duration::from_secs(1),
            "both arrived {:?} after the action committed",
            acted.elapsed()
        );
        last = seq;
    }
}

/// Issue 14: each process decides an action on the game as it last wrote it, and its write's
/// compare-and-set is the only check that this is still the game. Actions that alternate
/// between two processes (each one's record stale half of the time) must each apply once:
/// the version grows by one per action and the log stays gapless.
#[actix_web::test]
async fn actions_alternating_between_two_processes_each_apply_once() {
    if !enabled(TestBackend::Postgres) {
        eprintln!("skipped: Postgres is not in RACKO_TEST_BACKENDS");
        return;
    }
    let db = TestDb::new(TestBackend::Postgres);
    let (a, b) = two_servers(&db).await;
    let client = Client::new();
    let (tokens, id, start) = started_game(&client, &a.url).await;
    const ACTIONS: i64 = 24;
    for n in 0..ACTIONS {
        // A, A, B, B, A, A, …: each process acts after its own write and after the other's.
        let base = if (n / 2) % 2 == 0 { &a.url } else { &b.url };
        play_one(&client, base, &tokens, &id).await;
    }
    let path = format!("/v1/games/{id}");
    for base in [&a.url, &b.url] {
        let seen = call(
            &client,
            base,
            Method::GET,
            &path,
            Some(&tokens[0]),
            None,
            StatusCode::OK,
        )
        .await;
        assert_eq!(seen["version"], start + ACTIONS, "one version per action");
    }
    let path = format!("/v1/games/{id}/events?after=0&limit=500");
    let page = call(
        &client,
        &b.url,
        Method::GET,
        &path,
        Some(&tokens[0]),
        None,
        StatusCode::OK,
    )
    .await;
    let seqs: Vec<i64> = page["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter_map(|e| e["seq"].as_i64())
        .collect();
    let gapless: Vec<i64> = (1..=seqs.len() as i64).collect();
    assert_eq!(seqs, gapless, "the log has no gap and no repeat");
}

/// A token check reads the account from a short cache in each process. Signing out
/// everywhere on one process must still stop the token on the other at once: the change is
/// announced at commit and the other process forgets the account when it hears it, and ends
/// the streams the token holds open there.
#[actix_web::test]
async fn signing_out_on_one_process_stops_the_token_on_the_other() {
    if !enabled(TestBackend::Postgres) {
        eprintln!("skipped: Postgres is not in RACKO_TEST_BACKENDS");
        return;
    }
    let db = TestDb::new(TestBackend::Postgres);
    let (a, b) = two_servers(&db).await;
    let client = Client::new();
    let token = register(&client, &a.url, "ann").await;
    // b has the account in its cache now.
    for _ in 0..3 {
        call(
            &client,
            &b.url,
            Method::GET,
            "/v1/accounts/me",
            Some(&token),
            None,
            StatusCode::OK,
        )
        .await;
    }
    let mut stream = Stream::open_at(&b.url, "/v1/me/stream", Some(&token), None).await;
    let res = client
        .delete(format!("{}/v1/accounts/me/tokens", a.url))
        .bearer_auth(&token)
        .send()
        .await
        .expect("answered");
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    let revoked = Instant::now();
    // The notification takes a few milliseconds; the token must stop well within a second
    // (an entry lives 5 s at most without one), and never work again.
    loop {
        let res = client
            .get(format!("{}/v1/accounts/me", b.url))
            .bearer_auth(&token)
            .send()
            .await
            .expect("answered");
        if res.status() == StatusCode::UNAUTHORIZED {
            break;
        }
        assert!(
            revoked.elapsed() < Duration::from_millis(500),
            "b still accepted the revoked token after {:?}",
            revoked.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let rest = stream.rest(Duration::from_secs(1)).await;
    let rest = rest.expect("b's stream of the revoked token ended within a second");
    assert!(rest.contains("event: revoked"), "{rest:?}");
    for _ in 0..10 {
        call(
            &client,
            &b.url,
            Method::GET,
            "/v1/accounts/me",
            Some(&token),
            None,
            StatusCode::UNAUTHORIZED,
        )
        .await;
    }
}

/// Issue 14: a process sends its wake-ups to the others after the commit (`store::wake`), so
/// one killed in between leaves a commit nobody announced. Streams held on other processes
/// still get it, from each process's periodic recheck of what its waiters follow. The writer
/// that never announces is a store in this test process with no relay running: like a
/// process killed after its commit, it tells nobody.
#[actix_web::test]
async fn a_commit_nobody_announced_still_reaches_the_streams_of_other_processes() {
    if !enabled(TestBackend::Postgres) {
        eprintln!("skipped: Postgres is not in RACKO_TEST_BACKENDS");
        return;
    }
    let db = TestDb::new(TestBackend::Postgres);
    let url = db.url.clone();
    let server = tokio::task::spawn_blocking(move || ServeProcess::start(&url, &[]))
        .await
        .expect("the server starts");
    let client = Client::new();
    let (tokens, id, _) = started_game(&client, &server.url).await;
    let game_id: uuid::Uuid = id.parse().expect("a game id");

    // Both players' streams of the game and of their feeds, held on the server.
    let last = logged_up_to(&client, &server.url, &tokens[0], &id).await;
    let path = format!("/v1/games/{id}/stream");
    let mut game_stream = Stream::open_at(&server.url, &path, Some(&tokens[0]), Some(last)).await;
    let mut callers = Vec::new();
    let mut feeds = Vec::new();
    for token in &tokens {
        let me = call(
            &client,
            &server.url,
            Method::GET,
            "/v1/accounts/me",
            Some(token),
            None,
            StatusCode::OK,
        )
        .await;
        callers.push(racko::service::Caller {
            id: me["id"].as_str().and_then(|s| s.parse().ok()).expect("id"),
            username: me["username"].as_str().expect("username").to_string(),
        });
        let page = call(
            &client,
            &server.url,
            Method::GET,
            "/v1/me/feed?after=0",
            Some(token),
            None,
            StatusCode::OK,
        )
        .await;
        let after = page["items"]
            .as_array()
            .and_then(|items| items.last())
            .and_then(|item| item["seq"].as_i64())
            .unwrap_or(0);
        let stream = Stream::open_at(&server.url, "/v1/me/stream", Some(token), Some(after)).await;
        feeds.push((after, stream));
    }

    // The silent writer plays until the turn has passed (a `your_turn` item in a feed).
    let store = racko::store::Store::open(&db.url, 1).expect("a store of its own");
    let store = racko::service::Service::new(store);
    let mut seq = last;
    let mut turn_passed = false;
    while !turn_passed {
        let game = store.game(game_id).expect("read").expect("the game");
        let mover = callers
            .iter()
            .find(|caller| {
                let view = racko::service::play::view(&store, caller, game_id).expect("a view");
                racko_sample::choose(&view.table).is_some()
            })
            .expect("somebody may act");
        let view = racko::service::play::view(&store, mover, game_id).expect("a view");
        let action = racko_sample::choose(&view.table).expect("an action");
        racko::service::play::act(&store, mover, game_id, game.version, &action, None)
            .expect("the action applies");
        let after = store.game(game_id).expect("read").expect("the game");
        seq = after.last_seq;
        turn_passed = awaits_another(&after, mover.id);
    }

    let patience = racko::store::RECHECK + Duration::from_secs(3);
    let frames = game_stream.until(seq, patience).await;
    assert_eq!(
        frames.last().map(|f| f.id),
        Some(seq),
        "the game stream got every event, unannounced"
    );
    let mut told = 0;
    for (after, stream) in &mut feeds {
        if let Some(frame) = stream.next(patience).await {
            assert_eq!(frame.id, *after + 1, "the feed stream continues its feed");
            told += 1;
        }
    }
    assert!(
        told >= 1,
        "the player whose turn came was told on his feed stream"
    );
}

/// Whether the game now waits for someone other than `mover`.
fn awaits_another(game: &racko::store::GameRecord, mover: uuid::Uuid) -> bool {
    game.seats
        .iter()
        .any(|s| s.awaiting && s.account_id != mover)
}

/// The relays' connections dropped by PostgreSQL (a restart, a proxy's idle timeout): an
/// action on A, sent at once, still reaches a stream held on B. A's wake-up fails to go out
/// and is sent again on its next connection; B, reconnecting, re-reads what its waiters
/// follow.
#[actix_web::test]
async fn wake_ups_survive_the_relays_losing_their_connections() {
    if !enabled(TestBackend::Postgres) {
        eprintln!("skipped: Postgres is not in RACKO_TEST_BACKENDS");
        return;
    }
    let db = TestDb::new(TestBackend::Postgres);
    let (a, b) = two_servers(&db).await;
    let client = Client::new();
    let (tokens, id, _) = started_game(&client, &a.url).await;
    let last = logged_up_to(&client, &b.url, &tokens[0], &id).await;
    let path = format!("/v1/games/{id}/stream");
    let mut stream = Stream::open_at(&b.url, &path, Some(&tokens[0]), Some(last)).await;

    let mut admin = pg_connect(&db.url).expect("a connection of the test's own");
    let dropped: Vec<Dropped> = diesel::sql_query(format!(
        "SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity \
         WHERE datname = current_database() AND application_name = '{}'",
        racko::store::RELAY_APPLICATION_NAME
    ))
    .load(&mut admin)
    .expect("the relays' connections are dropped");
    assert_eq!(dropped.len(), 2, "one relay per process");

    let (seq, _) = play_one(&client, &a.url, &tokens, &id).await;
    let frames = stream
        .until(seq, racko::store::RECHECK + Duration::from_secs(3))
        .await;
    assert_eq!(
        frames.last().map(|f| f.id),
        Some(seq),
        "B's stream got A's action"
    );
}

#[derive(diesel::QueryableByName)]
struct Dropped {
    #[diesel(sql_type = diesel::sql_types::Bool)]
    #[allow(dead_code)] // read so that each row is counted
    done: bool,
}
