//! `Idempotency-Key`: a retry gets the first answer and acts once; the key cannot be reused
//! for another request; retries that race each other still act once.

use futures_util::future::join_all;
use racko_rules::View;
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::common::app::{assert_problem, json_body, spawn_app_with, TestApp};
use crate::tables::{create, join, players, post_with, small_game, view, Player};

both_stores!(
    a_retried_action_is_applied_once,
    a_key_names_one_request,
    retried_creates_and_joins_act_once,
    racing_retries_act_once,
    a_retry_after_the_answer_expired_is_a_new_request,
    every_retried_action_of_a_game_gets_its_first_answer,
);

/// Answers are kept for `RACKO_IDEMPOTENCY_TTL_SECS`; the server sweeps them itself, and a
/// retry after that is a new request.
async fn a_retry_after_the_answer_expired_is_a_new_request(app: TestApp) {
    let app = spawn_app_with(app.backend, |config| {
        config.idempotency_ttl = std::time::Duration::from_secs(1);
        config.housekeeping_every = std::time::Duration::from_millis(100);
    })
    .await;
    let table = players(&app, &["ann"]).await;
    let ann = &table[0];
    let body = json!({ "options": { "players": 2 } });
    let key = [("idempotency-key", "create-expiring")];
    let create = || async {
        let res = post_with(&app, "/v1/games", ann.token(), &key, &body).await;
        json_body(res, StatusCode::CREATED).await["id"].clone()
    };
    let first = create().await;
    assert_eq!(create().await, first, "a retry within the time to live");
    // The sweep runs every 100 ms and the answer lives 1 s: within a few seconds a retry
    // is a new request (a new game), not the stored answer.
    let mut renewed = false;
    for _ in 0..50 {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        if create().await != first {
            renewed = true;
            break;
        }
    }
    assert!(
        renewed,
        "after its answer expired, a retry creates a new game"
    );
    let mine = json_body(app.get("/v1/me/games", ann.token()).await, StatusCode::OK).await;
    assert_eq!(mine["games"].as_array().map(Vec::len), Some(2));
}

async fn count_events(app: &TestApp, token: Option<&str>, game: &str, kind: &str) -> usize {
    let res = app
        .get(&format!("/v1/games/{game}/events?limit=500"), token)
        .await;
    let log = json_body(res, StatusCode::OK).await;
    log["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["kind"] == kind)
        .count()
}

async fn a_retried_action_is_applied_once(app: TestApp) {
    let table = players(&app, &["ann", "bob"]).await;
    let bob = &table[1];
    let id = small_game(&app, &table).await;
    let path = format!("/v1/games/{id}/actions");
    let version = view(&app, bob, &id).await["version"].clone();
    let body = json!({ "version": version, "action": { "type": "draw" } });
    let key = [("idempotency-key", "draw-1")];

    let first = post_with(&app, &path, bob.token(), &key, &body).await;
    assert!(first.headers().get("idempotent-replayed").is_none());
    let first = json_body(first, StatusCode::OK).await;
    let again = post_with(&app, &path, bob.token(), &key, &body).await;
    assert_eq!(
        again
            .headers()
            .get("idempotent-replayed")
            .and_then(|v| v.to_str().ok()),
        Some("true")
    );
    let etag = again.headers().get("etag").and_then(|v| v.to_str().ok());
    let expected = format!("\"{}\"", first["view"]["version"]);
    assert_eq!(etag, Some(expected.as_str()));
    assert_eq!(json_body(again, StatusCode::OK).await, first);

    assert_eq!(count_events(&app, bob.token(), &id, "drew").await, 1);
    let now = view(&app, bob, &id).await;
    assert_eq!(now["version"], first["view"]["version"]);
}

async fn a_key_names_one_request(app: TestApp) {
    let table = players(&app, &["ann", "bob"]).await;
    let bob = &table[1];
    let id = small_game(&app, &table).await;
    let path = format!("/v1/games/{id}/actions");
    let version = view(&app, bob, &id).await["version"].clone();
    let key = [("idempotency-key", "k-1")];
    let draw = json!({ "version": version, "action": { "type": "draw" } });
    json_body(
        post_with(&app, &path, bob.token(), &key, &draw).await,
        StatusCode::OK,
    )
    .await;

    // Same key, another body (or another game): refused, and nothing applied.
    let take = json!({ "version": version, "action": { "type": "take_discard", "slot": 5 } });
    let res = post_with(&app, &path, bob.token(), &key, &take).await;
    assert_problem(
        res,
        StatusCode::UNPROCESSABLE_ENTITY,
        "idempotency_key_reused",
    )
    .await;
    let res = post_with(&app, "/v1/games", bob.token(), &key, &json!({})).await;
    assert_problem(
        res,
        StatusCode::UNPROCESSABLE_ENTITY,
        "idempotency_key_reused",
    )
    .await;
    assert_eq!(
        count_events(&app, bob.token(), &id, "discard_taken").await,
        0
    );

    // Keys are per account: ann may use the same one.
    let res = post_with(&app, "/v1/games", table[0].token(), &key, &json!({})).await;
    json_body(res, StatusCode::CREATED).await;

    let long = "k".repeat(201);
    for bad in [long.as_str(), "with space"] {
        let res = post_with(&app, &path, bob.token(), &[("idempotency-key", bad)], &draw).await;
        assert_problem(res, StatusCode::BAD_REQUEST, "invalid_idempotency_key").await;
    }
}

async fn retried_creates_and_joins_act_once(app: TestApp) {
    let table = players(&app, &["ann", "bob"]).await;
    let (ann, bob) = (&table[0], &table[1]);
    let body = json!({ "options": { "players": 3 }, "visibility": "public" });
    let key = [("idempotency-key", "create-1")];
    let first = json_body(
        post_with(&app, "/v1/games", ann.token(), &key, &body).await,
        StatusCode::CREATED,
    )
    .await;
    let again = json_body(
        post_with(&app, "/v1/games", ann.token(), &key, &body).await,
        StatusCode::CREATED,
    )
    .await;
    assert_eq!(first, again);
    let mine = json_body(app.get("/v1/me/games", ann.token()).await, StatusCode::OK).await;
    assert_eq!(mine["games"].as_array().map(Vec::len), Some(1));

    let id = first["id"].as_str().expect("id");
    let join = format!("/v1/games/{id}/join");
    let key = [("idempotency-key", "join-1")];
    let joined = json_body(
        post_with(&app, &join, bob.token(), &key, &json!({})).await,
        StatusCode::OK,
    )
    .await;
    let again = json_body(
        post_with(&app, &join, bob.token(), &key, &json!({})).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(joined, again, "a retried join is not `already_joined`");
    // Without the key, the same join is refused as a second one.
    let res = app.post_json(&join, bob.token(), &json!({})).await;
    assert_problem(res, StatusCode::CONFLICT, "already_joined").await;

    // An unrelated game made without a key is still made each time.
    create(&app, ann, &json!({})).await;
    create(&app, ann, &json!({})).await;
    let mine = json_body(app.get("/v1/me/games", ann.token()).await, StatusCode::OK).await;
    assert_eq!(mine["games"].as_array().map(Vec::len), Some(3));
}

async fn racing_retries_act_once(app: TestApp) {
    let table = players(&app, &["ann", "bob"]).await;
    let bob = &table[1];
    let id = small_game(&app, &table).await;
    let path = format!("/v1/games/{id}/actions");
    let version = view(&app, bob, &id).await["version"].clone();
    let body = json!({ "version": version, "action": { "type": "take_discard", "slot": 60 } });
    let key = [("idempotency-key", "race-1")];

    let answers = join_all((0..10).map(|_| post_with(&app, &path, bob.token(), &key, &body))).await;
    let mut bodies: Vec<Value> = Vec::new();
    for res in answers {
        bodies.push(json_body(res, StatusCode::OK).await);
    }
    assert!(
        bodies.windows(2).all(|w| w[0] == w[1]),
        "every retry gets the one answer"
    );
    assert_eq!(
        count_events(&app, bob.token(), &id, "discard_taken").await,
        1
    );
}

/// One keyed request and the answer it got the first time.
struct Sent {
    path: String,
    who: usize,
    key: String,
    body: Value,
    answer: Value,
}

/// Sends `body` to `path` as `who` with a key of its own; keeps the answer.
async fn send(app: &TestApp, table: &[Player], who: usize, path: String, body: Value) -> Sent {
    let key = format!("k-{}", uuid::Uuid::new_v4());
    let res = post_with(
        app,
        &path,
        table[who].token(),
        &[("idempotency-key", &key)],
        &body,
    )
    .await;
    let answer = json_body(res, StatusCode::OK).await;
    Sent {
        path,
        who,
        key,
        body,
        answer,
    }
}

/// Retries `sent` and checks that it gets exactly the first answer.
async fn retry(app: &TestApp, table: &[Player], sent: &Sent, when: &str) {
    let key = [("idempotency-key", sent.key.as_str())];
    let res = post_with(app, &sent.path, table[sent.who].token(), &key, &sent.body).await;
    assert_eq!(
        res.headers()
            .get("idempotent-replayed")
            .and_then(|v| v.to_str().ok()),
        Some("true"),
        "{when}: {}",
        sent.body
    );
    let again = json_body(res, StatusCode::OK).await;
    assert!(
        again == sent.answer,
        "{when}: the retry of {} answered\n{again}\ninstead of\n{}",
        sent.body,
        sent.answer
    );
}

/// An action's key record keeps only what the change set and the log cannot give back; a
/// retry rebuilds the answer from the stored game while it is still at the version the action
/// wrote, else from the log. Every action of a whole game (rounds ending, the game ending) and
/// a resignation, retried at once and again once the game has moved on, get exactly the
/// answer they got the first time: the view as the caller saw it then (R8: his own rack, not
/// the other's), the events, the deadlines (R10.1).
async fn every_retried_action_of_a_game_gets_its_first_answer(app: TestApp) {
    let table = players(&app, &["ann", "bob", "cid"]).await;
    let options = json!({ "options": { "players": 2, "target": 150 } });
    let id = create(&app, &table[0], &options).await["id"]
        .as_str()
        .expect("id")
        .to_string();
    join(&app, &table[1], &id).await;
    let path = format!("/v1/games/{id}/actions");
    let mut sent = Vec::new();
    let mut finished = false;
    for _ in 0..3000 {
        let mut acted = false;
        for who in 0..2 {
            let seen = view(&app, &table[who], &id).await;
            if seen["status"] == "finished" {
                finished = true;
                break;
            }
            let table_view: View = serde_json::from_value(seen["table"].clone()).expect("a view");
            let Some(action) = racko_sample::choose(&table_view) else {
                continue;
            };
            let body = json!({ "version": seen["version"], "action": action });
            let one = send(&app, &table, who, path.clone(), body).await;
            // At once, while the game is still at the version it wrote: from the stored state.
            retry(
                &app,
                &table,
                &one,
                &format!("action {} at once", sent.len()),
            )
            .await;
            sent.push(one);
            acted = true;
            break;
        }
        if finished {
            break;
        }
        assert!(acted, "nobody may act in {id}");
    }
    assert!(finished, "the game ends within 3000 actions");
    let rounds = sent
        .iter()
        .filter(|s| s.answer.to_string().contains("\"round_ended\""))
        .count();
    assert!(rounds >= 1, "a round ended");
    for (i, one) in sent.iter().enumerate() {
        retry(&app, &table, one, &format!("action {i} after the game")).await;
    }

    // A resignation (R10.3; with three players the computer plays the seat on), retried
    // after the others and the computer moved on.
    let three = json!({ "options": { "players": 3, "target": 150 } });
    let next = create(&app, &table[0], &three).await["id"]
        .as_str()
        .expect("id")
        .to_string();
    join(&app, &table[1], &next).await;
    join(&app, &table[2], &next).await;
    let version = view(&app, &table[0], &next).await["version"].clone();
    let resigned = send(
        &app,
        &table,
        0,
        format!("/v1/games/{next}/resign"),
        json!({ "version": version }),
    )
    .await;
    let resigned_at = resigned.answer["view"]["version"].as_i64();
    let mut moves = 0;
    for _ in 0..200 {
        let mut acted = false;
        for who in 1..3 {
            let seen = view(&app, &table[who], &next).await;
            let table_view: View = serde_json::from_value(seen["table"].clone()).expect("a view");
            if let Some(action) = racko_sample::choose(&table_view) {
                let body = json!({ "version": seen["version"], "action": action });
                let path = format!("/v1/games/{next}/actions");
                send(&app, &table, who, path, body).await;
                acted = true;
                moves += 1;
                break;
            }
        }
        if moves >= 6 {
            break;
        }
        if !acted {
            // ann's turn: the computer plays it by itself.
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    }
    assert!(moves >= 6, "the others played on after the resignation");
    assert!(view(&app, &table[1], &next).await["version"].as_i64() > resigned_at);
    retry(&app, &table, &resigned, "the resignation").await;
}
