//! Faults of the database, as an operator meets them (issue 13): a game held by a slow
//! transaction, and the database going away and coming back. The service must answer fast,
//! honestly (problem+json with a stable code and `Retry-After`), apply nothing twice and
//! recover by itself.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use futures_util::future::join_all;
use racko::store::Waits;
use reqwest::{Response, StatusCode};
use serde_json::json;

use crate::common::app::{assert_problem, json_body, spawn_app_on, spawn_app_with, TestApp};
use crate::common::cluster::Cluster;
use crate::common::db::{enabled, pg_connect, TestBackend, TestDb};
use crate::tables::{players, post_action, small_game, view};

/// Short waits, as in production but shorter, so the test runs quickly.
fn short_waits() -> Waits {
    Waits {
        lock: Duration::from_secs(1),
        statement: Duration::from_secs(5),
        connect: Duration::from_secs(2),
    }
}

/// Another connection's transaction holding a game: its row (`FOR UPDATE`) on PostgreSQL, the
/// file's write lock (`BEGIN IMMEDIATE`) on SQLite, which covers every game. Held until dropped.
struct HeldLock {
    release: Option<mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

fn hold_game(app: &TestApp, game: &str) -> HeldLock {
    let (url, backend, game) = (app.db.url.clone(), app.backend, game.to_string());
    let (locked, is_locked) = mpsc::channel();
    let (release, released) = mpsc::channel::<()>();
    let thread = std::thread::spawn(move || {
        let sql = "ROLLBACK;";
        match backend {
            TestBackend::Postgres => {
                let mut conn = pg_connect(&url).expect("a connection of the test's own");
                conn.batch_execute(&format!(
                    "BEGIN; SELECT id FROM games WHERE id = '{game}' FOR UPDATE;"
                ))
                .expect("the game row is locked");
                let _ = locked.send(());
                let _ = released.recv_timeout(Duration::from_secs(60));
                let _ = conn.batch_execute(sql);
            }
            TestBackend::Sqlite => {
                let path = url.trim_start_matches("sqlite://");
                let mut conn = SqliteConnection::establish(path).expect("the file opens");
                conn.batch_execute("BEGIN IMMEDIATE;")
                    .expect("the write lock is taken");
                let _ = locked.send(());
                let _ = released.recv_timeout(Duration::from_secs(60));
                let _ = conn.batch_execute(sql);
            }
        }
    });
    is_locked
        .recv_timeout(Duration::from_secs(30))
        .expect("the lock is held");
    HeldLock {
        release: Some(release),
        thread: Some(thread),
    }
}

impl Drop for HeldLock {
    fn drop(&mut self) {
        drop(self.release.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

async fn timed(request: impl std::future::Future<Output = Response>) -> (Response, Duration) {
    let start = Instant::now();
    let res = request.await;
    (res, start.elapsed())
}

both_stores!(a_held_game_answers_busy_quickly_and_others_go_on);

/// Issue 13.1: one game's row is held by a slow transaction. Twelve actions on it answer 409
/// `game_busy` within about the lock timeout, holding no connection for longer; an unrelated
/// account, `/readyz` and (on PostgreSQL, which locks rows) another game go on as usual.
/// Nothing is applied while the game is held; after it is released the same action works.
async fn a_held_game_answers_busy_quickly_and_others_go_on(app: TestApp) {
    let backend = app.backend;
    drop(app);
    let app = spawn_app_with(backend, |c| {
        c.pool_size = 10;
        c.db_waits = short_waits();
    })
    .await;
    let table = players(&app, &["ann", "bob", "cat", "dan", "eve"]).await;
    let held = small_game(&app, &table[..2]).await;
    let other = small_game(&app, &table[3..]).await;
    let version = view(&app, &table[1], &held).await["version"].clone();
    let draw = json!({ "version": version, "action": { "type": "draw" } });
    let other_version = view(&app, &table[4], &other).await["version"].clone();
    let other_draw = json!({ "version": other_version, "action": { "type": "draw" } });

    let lock = hold_game(&app, &held);
    let actions = join_all((0..12).map(|_| timed(post_action(&app, &table[1], &held, &draw))));
    let unrelated = async {
        // A moment later, while the actions wait on the lock.
        actix_web::rt::time::sleep(Duration::from_millis(200)).await;
        let me = timed(app.get("/v1/accounts/me", table[2].token())).await;
        let ready = timed(app.get("/readyz", None)).await;
        let other = timed(post_action(&app, &table[4], &other, &other_draw)).await;
        (me, ready, other)
    };
    let (actions, (me, ready, other)) = futures_util::join!(actions, unrelated);

    for (res, took) in actions {
        assert!(took < Duration::from_secs(4), "an action waited {took:?}");
        assert!(res.headers().contains_key("retry-after"), "Retry-After");
        assert_problem(res, StatusCode::CONFLICT, "game_busy").await;
    }
    let (res, took) = me;
    assert!(took < Duration::from_millis(2500), "GET me took {took:?}");
    json_body(res, StatusCode::OK).await;
    let (res, took) = ready;
    assert!(took < Duration::from_millis(2500), "/readyz took {took:?}");
    json_body(res, StatusCode::OK).await;
    let (res, took) = other;
    match backend {
        // It did not queue behind the held game's statement, which stays in flight until the
        // lock wait ends (1 s after the first action, so at least 0.7 s after this one began).
        TestBackend::Postgres => {
            assert!(took < Duration::from_millis(500), "other game {took:?}");
            json_body(res, StatusCode::OK).await;
        }
        // SQLite has one write lock for the whole file: every game waits, and says so.
        TestBackend::Sqlite => {
            assert!(took < Duration::from_secs(4), "other game {took:?}");
            assert_problem(res, StatusCode::CONFLICT, "game_busy").await;
        }
    }

    assert_eq!(
        view(&app, &table[1], &held).await["version"],
        version,
        "nothing applied while held"
    );
    drop(lock);
    let res = post_action(&app, &table[1], &held, &draw).await;
    let answer = json_body(res, StatusCode::OK).await;
    assert_eq!(
        answer["view"]["version"].as_i64(),
        version.as_i64().map(|v| v + 1)
    );
}

/// Issue 13.2: PostgreSQL (a cluster of the test's own) stops under a running server. Requests
/// answer 503 `store_unavailable` with `Retry-After` in seconds, not after the pool's long
/// wait, and `/readyz` says so at once; nothing is half applied. When the database is back the
/// server recovers without a restart.
#[actix_web::test]
async fn a_database_outage_answers_503_fast_and_recovers() {
    if !enabled(TestBackend::Postgres) {
        eprintln!("skipped: PostgreSQL is not in RACKO_TEST_BACKENDS");
        return;
    }
    let cluster = Cluster::start_new();
    let app = spawn_app_on(TestDb::external(&cluster.url()), |c| {
        c.db_waits = short_waits();
    })
    .await;
    let table = players(&app, &["ann", "bob"]).await;
    let game = small_game(&app, &table).await;
    let version = view(&app, &table[1], &game).await["version"].clone();
    let draw = json!({ "version": version, "action": { "type": "draw" } });

    cluster.stop();
    // (A game, not the account: token checks may be answered from seconds-old reads.)
    let (res, took) = timed(app.get(&format!("/v1/games/{game}"), table[0].token())).await;
    assert!(
        took < Duration::from_millis(3500),
        "first answer took {took:?}"
    );
    assert!(res.headers().contains_key("retry-after"), "Retry-After");
    assert_problem(res, StatusCode::SERVICE_UNAVAILABLE, "store_unavailable").await;
    let (res, took) = timed(post_action(&app, &table[1], &game, &draw)).await;
    assert!(took < Duration::from_millis(3500), "action took {took:?}");
    assert!(res.headers().contains_key("retry-after"), "Retry-After");
    assert_problem(res, StatusCode::SERVICE_UNAVAILABLE, "store_unavailable").await;
    // Known to be down now: readiness is answered at once.
    let (res, took) = timed(app.get("/readyz", None)).await;
    assert!(took < Duration::from_millis(1500), "/readyz took {took:?}");
    assert_problem(res, StatusCode::SERVICE_UNAVAILABLE, "not_ready").await;

    cluster.start();
    let deadline = Instant::now() + Duration::from_secs(20);
    while app.get("/readyz", None).await.status() != StatusCode::OK {
        assert!(Instant::now() < deadline, "no recovery after the restart");
        actix_web::rt::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        view(&app, &table[1], &game).await["version"],
        version,
        "the refused action left nothing behind"
    );
    let res = post_action(&app, &table[1], &game, &draw).await;
    json_body(res, StatusCode::OK).await;
    drop(app);
}

/// Issue 14: the pool no longer sends `SELECT 1` before handing out each connection. So when
/// PostgreSQL drops every connection of the server while they sit idle (a restart, a proxy's
/// idle timeout, `pg_terminate_backend`), the next requests find dead connections: they must
/// go on through the pool to a live one and answer as usual, not 503 once per dead one.
#[actix_web::test]
async fn connections_dropped_while_idle_cost_the_client_nothing() {
    if !enabled(TestBackend::Postgres) {
        eprintln!("skipped: PostgreSQL is not in RACKO_TEST_BACKENDS");
        return;
    }
    let app = spawn_app_with(TestBackend::Postgres, |c| c.db_waits = short_waits()).await;
    let table = players(&app, &["ann", "bob"]).await;
    let game = small_game(&app, &table).await;
    // Several requests at once, so that the pool holds several connections.
    join_all((0..6).map(|_| view(&app, &table[1], &game))).await;
    let version = view(&app, &table[1], &game).await["version"].clone();

    let mut admin = pg_connect(&app.db.url).expect("a connection of the test's own");
    admin
        .batch_execute(&format!(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
             WHERE datname = current_database() AND pid <> pg_backend_pid() \
             AND application_name <> '{}'",
            racko::store::RELAY_APPLICATION_NAME
        ))
        .expect("the server's connections are dropped");

    // (The relay's connection is left: losing it makes the process forget the games it
    // wrote, and this is about the pool.) The action first, with the version seen before:
    // the server decides it on the game as it wrote it last, so its write is the first
    // statement sent on a dead connection. It did not run (the game is still at that
    // version), so it is decided again and written.
    let draw = json!({ "version": version, "action": { "type": "draw" } });
    let res = post_action(&app, &table[1], &game, &draw).await;
    let drawn = json_body(res, StatusCode::OK).await;
    let before = version.as_i64().expect("version");
    assert_eq!(drawn["view"]["version"], before + 1);
    let seen = view(&app, &table[1], &game).await;
    assert_eq!(seen["version"], drawn["view"]["version"], "applied once");
    for _ in 0..3 {
        let res = app.get("/readyz", None).await;
        assert_eq!(res.status(), StatusCode::OK, "ready after the drop");
    }
}
