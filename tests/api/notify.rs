//! Issue 10: turn notifications. Long-polls answer when the next event commits; a stream read
//! with random disconnects and `Last-Event-ID` resumes sees a whole game exactly once, in
//! order, with the projection of `GET …/events` (R8); the account feed tells each player of
//! joins, starts and turns, and a refused action tells nobody. Two processes on one
//! PostgreSQL: `nodes.rs`.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use racko_rules::View;
use rand::Rng;
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::common::app::{assert_problem, json_body, TestApp};
use crate::sse::{last_seq, Stream};
use crate::tables::{create, join, players, post_action, view, Player};

both_stores!(
    long_poll_answers_when_the_next_event_commits,
    a_stream_resumed_at_random_points_sees_every_event_once_in_order,
    the_feed_tells_each_player_of_joins_starts_and_turns,
    an_account_stream_held_through_a_game_shows_its_feed,
    an_idle_stream_gets_heartbeats,
);

const PATIENCE: Duration = Duration::from_secs(10);

/// A started two-player game of ann and bob (one round to 50 points ends it).
async fn two_player_game(app: &TestApp, table: &[Player]) -> String {
    let created = create(
        app,
        &table[0],
        &json!({ "options": { "players": 2, "target": 50 } }),
    )
    .await;
    let id = created["id"].as_str().expect("id").to_string();
    join(app, &table[1], &id).await;
    id
}

/// Plays one action of whoever may act (the sample player's choice); false when nobody may
/// (the game is over).
async fn play_one(app: &TestApp, table: &[Player], id: &str) -> bool {
    for who in table {
        let seen = view(app, who, id).await;
        if seen["status"] != "active" {
            return false;
        }
        let table_view: View = serde_json::from_value(seen["table"].clone()).expect("a view");
        if let Some(action) = racko_sample::choose(&table_view) {
            let body = json!({ "version": seen["version"], "action": action });
            json_body(post_action(app, who, id, &body).await, StatusCode::OK).await;
            return true;
        }
    }
    false
}

async fn long_poll_answers_when_the_next_event_commits(app: TestApp) {
    let table = players(&app, &["ann", "bob"]).await;
    let id = two_player_game(&app, &table).await;
    let last = last_seq(&app, table[0].token(), &id).await;

    // Nothing new: an empty page after the wait, not at once.
    let started = Instant::now();
    let path = format!("/v1/games/{id}/events?after={last}&wait=1");
    let page = json_body(app.get(&path, table[0].token()).await, StatusCode::OK).await;
    assert_eq!(page["events"], json!([]));
    assert!(
        started.elapsed() >= Duration::from_millis(900),
        "{:?}",
        started.elapsed()
    );

    // A poll held while the next action commits answers with it, long before its wait.
    let path = format!("/v1/games/{id}/events?after={last}&wait=30");
    let poll = app.get(&path, table[0].token());
    let act = async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        let acted = Instant::now();
        assert!(play_one(&app, &table, &id).await);
        acted
    };
    let (res, acted) = tokio::join!(poll, act);
    let page = json_body(res, StatusCode::OK).await;
    assert!(acted.elapsed() < Duration::from_secs(2), "answered late");
    assert_eq!(page["events"][0]["seq"], last + 1, "{page}");

    for bad in ["61", "-1", "x"] {
        let path = format!("/v1/games/{id}/events?wait={bad}");
        let res = app.get(&path, table[0].token()).await;
        let code = if bad == "61" {
            "invalid_wait"
        } else {
            "invalid_query"
        };
        assert_problem(res, StatusCode::BAD_REQUEST, code).await;
    }
}

async fn a_stream_resumed_at_random_points_sees_every_event_once_in_order(app: TestApp) {
    let table = players(&app, &["ann", "bob"]).await;
    let id = two_player_game(&app, &table).await;
    let app = Arc::new(app);
    // The last seq of the finished game, once known (0: still playing).
    let end = Arc::new(AtomicI64::new(0));

    let reader = {
        let (app, end, id, token) = (app.clone(), end.clone(), id.clone(), table[0].token.clone());
        actix_web::rt::spawn(async move {
            let path = format!("/v1/games/{id}/stream");
            let mut seen: Vec<crate::sse::Frame> = Vec::new();
            let mut reconnects = 0;
            let started = Instant::now();
            loop {
                let last = seen.last().map(|f| f.id);
                let mut stream = Stream::open(&app, &path, Some(&token), last).await;
                // Read a few frames, then hang up (a dropped connection mid-game).
                let quota = rand::rng().random_range(1..8);
                for _ in 0..quota {
                    match stream.next(Duration::from_millis(500)).await {
                        Some(frame) => seen.push(frame),
                        None => break,
                    }
                }
                drop(stream);
                reconnects += 1;
                let end = end.load(Ordering::SeqCst);
                if end > 0 && seen.last().is_some_and(|f| f.id >= end) {
                    return (seen, reconnects);
                }
                assert!(
                    started.elapsed() < Duration::from_secs(120),
                    "the stream fell behind"
                );
            }
        })
    };

    while play_one(&app, &table, &id).await {}
    assert_eq!(view(&app, &table[0], &id).await["status"], "finished");
    let last = last_seq(&app, table[0].token(), &id).await;
    end.store(last, Ordering::SeqCst);
    let (seen, reconnects) = reader.await.expect("the reader finishes");
    assert!(reconnects > 3, "the reader hung up {reconnects} times");
    let seqs: Vec<i64> = seen.iter().map(|f| f.id).collect();
    assert_eq!(
        seqs,
        (1..=last).collect::<Vec<_>>(),
        "every event once, in order"
    );
    for frame in &seen {
        assert_eq!(frame.data["seq"], frame.id, "the id is the event's seq");
    }

    // The stream shows what the log page shows (the same projection, R8).
    let page = json_body(
        app.get(
            &format!("/v1/games/{id}/events?limit=500"),
            table[1].token(),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    let mut stream = Stream::open(
        &app,
        &format!("/v1/games/{id}/stream?after=0"),
        table[1].token(),
        None,
    )
    .await;
    let streamed: Vec<Value> = stream.data_until(last, PATIENCE).await;
    assert_eq!(Value::Array(streamed), page["events"]);
    // And `?after=` resumes as Last-Event-ID does.
    let mut stream = Stream::open(
        &app,
        &format!("/v1/games/{id}/stream?after={}", last - 2),
        table[1].token(),
        None,
    )
    .await;
    let tail: Vec<i64> = stream
        .until(last, PATIENCE)
        .await
        .iter()
        .map(|f| f.id)
        .collect();
    assert_eq!(tail, vec![last - 1, last]);
}

/// The feed items of `who` after `after` (long-polled for `wait` seconds).
async fn feed(app: &TestApp, who: &Player, after: i64, wait: u64) -> Vec<Value> {
    let path = format!("/v1/me/feed?after={after}&wait={wait}");
    let page = json_body(app.get(&path, who.token()).await, StatusCode::OK).await;
    page["items"].as_array().expect("items").clone()
}

fn kinds(items: &[Value]) -> Vec<&str> {
    items.iter().filter_map(|i| i["kind"].as_str()).collect()
}

async fn the_feed_tells_each_player_of_joins_starts_and_turns(app: TestApp) {
    let table = players(&app, &["ann", "bob"]).await;
    let (ann, bob) = (&table[0], &table[1]);
    let id = two_player_game(&app, &table).await;
    let game = view(&app, ann, &id).await;
    let version = game["version"].as_i64().expect("version");

    let anns = feed(&app, ann, 0, 0).await;
    assert!(
        kinds(&anns).starts_with(&["player_joined", "game_started"]),
        "{anns:?}"
    );
    let bobs = feed(&app, bob, 0, 0).await;
    assert_eq!(kinds(&bobs)[0], "game_started", "{bobs:?}");
    for item in anns.iter().chain(&bobs) {
        assert_eq!(item["game_id"], id.as_str());
        assert_eq!(item["game_version"], version);
    }
    let seqs: Vec<i64> = anns.iter().filter_map(|i| i["seq"].as_i64()).collect();
    assert_eq!(
        seqs,
        (1..=anns.len() as i64).collect::<Vec<_>>(),
        "the account's own seq"
    );
    // Exactly one of them is told it is their turn.
    let turns = [&anns, &bobs]
        .iter()
        .filter(|f| kinds(f).contains(&"your_turn"))
        .count();
    assert_eq!(turns, 1);

    // A refused action (a stale version) tells nobody: its transaction wrote nothing.
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
    assert_eq!(feed(&app, ann, 0, 0).await.len(), anns.len());
    assert_eq!(feed(&app, bob, 0, 0).await.len(), bobs.len());

    // Play until the turn passes: the player now awaited learns it on the stream and on a
    // long-poll held meanwhile.
    let (waiting, mine) = if kinds(&anns).contains(&"your_turn") {
        (bob, &bobs)
    } else {
        (ann, &anns)
    };
    let after = mine.last().and_then(|i| i["seq"].as_i64()).unwrap_or(0);
    let mut stream = Stream::open(&app, "/v1/me/stream", waiting.token(), Some(after)).await;
    let poll = feed(&app, waiting, after, 30);
    let play = async {
        for _ in 0..10 {
            tokio::time::sleep(Duration::from_millis(50)).await;
            play_one(&app, &table, &id).await;
        }
    };
    let (polled, ()) = tokio::join!(poll, play);
    assert!(!polled.is_empty());
    let frames = stream.until(after + 1, PATIENCE).await;
    assert_eq!(frames.first().map(|f| f.id), Some(after + 1));
    assert_eq!(frames[0].data, polled[0], "the stream and the page agree");
    let everything = feed(&app, waiting, 0, 0).await;
    assert!(
        kinds(&everything[mine.len()..]).contains(&"your_turn"),
        "{everything:?}"
    );
    // Public facts only (R8): no rack, no stock, no card.
    for item in &everything {
        let text = item.to_string();
        for secret in ["rack", "stock", "card", "seed"] {
            assert!(!text.contains(secret), "{secret} in {text}");
        }
    }
}

/// The account streams of both players, open from before the join to the end of the game,
/// carry exactly their feed pages, and a game stream held meanwhile carries after each action
/// what the log page shows at that moment: what a write hands over in memory (`feed_tails`,
/// `tails`) looks as what is read from the store.
async fn an_account_stream_held_through_a_game_shows_its_feed(app: TestApp) {
    let table = players(&app, &["ann", "bob"]).await;
    let mut streams = Vec::new();
    for who in &table {
        let after = feed(&app, who, 0, 0)
            .await
            .last()
            .and_then(|i| i["seq"].as_i64())
            .unwrap_or(0);
        let stream = Stream::open(&app, "/v1/me/stream", who.token(), Some(after)).await;
        streams.push((after, stream));
    }
    let id = two_player_game(&app, &table).await;
    let mut seen = last_seq(&app, table[1].token(), &id).await;
    let path = format!("/v1/games/{id}/stream");
    let mut game_stream = Stream::open(&app, &path, table[1].token(), Some(seen)).await;
    let mut actions = 0;
    while play_one(&app, &table, &id).await {
        actions += 1;
        let path = format!("/v1/games/{id}/events?after={seen}&limit=500");
        let page = json_body(app.get(&path, table[1].token()).await, StatusCode::OK).await;
        let last = page["next_after"].as_i64().expect("next_after");
        let streamed: Vec<Value> = game_stream.data_until(last, PATIENCE).await;
        assert_eq!(
            Value::Array(streamed),
            page["events"],
            "after action {actions}"
        );
        seen = last;
    }
    assert!(actions > 10, "{actions} actions");
    for (who, (after, stream)) in table.iter().zip(&mut streams) {
        let page = app.get("/v1/me/feed?limit=500", who.token()).await;
        let page = json_body(page, StatusCode::OK).await;
        let since_open: Vec<Value> = page["items"]
            .as_array()
            .expect("items")
            .iter()
            .filter(|i| i["seq"].as_i64().is_some_and(|seq| seq > *after))
            .cloned()
            .collect();
        let last = since_open
            .last()
            .and_then(|i| i["seq"].as_i64())
            .expect("items");
        let streamed: Vec<Value> = stream.data_until(last, PATIENCE).await;
        let turns = kinds(&streamed)
            .iter()
            .filter(|k| **k == "your_turn")
            .count();
        assert!(turns > 3, "{turns} turns streamed to {}", who.name);
        assert_eq!(streamed, since_open, "{}'s stream and feed", who.name);
    }
}

async fn an_idle_stream_gets_heartbeats(app: TestApp) {
    let table = players(&app, &["ann", "bob"]).await;
    let id = two_player_game(&app, &table).await;
    let last = last_seq(&app, table[0].token(), &id).await;
    let mut stream = Stream::open(
        &app,
        &format!("/v1/games/{id}/stream"),
        table[0].token(),
        Some(last),
    )
    .await;
    assert!(stream.next(Duration::from_millis(1500)).await.is_none());
    assert!(
        stream.comments >= 1,
        "a heartbeat within 1.5 s (every 0.5 s here)"
    );
    let res = app
        .get(
            &format!("/v1/games/{}/stream", uuid::Uuid::new_v4()),
            table[0].token(),
        )
        .await;
    assert_problem(res, StatusCode::NOT_FOUND, "game_not_found").await;
    let res = app
        .request(
            reqwest::Method::GET,
            &format!("/v1/games/{id}/stream"),
            table[0].token(),
        )
        .header("Last-Event-ID", "x")
        .send()
        .await
        .expect("sent");
    assert_problem(res, StatusCode::BAD_REQUEST, "invalid_after").await;
}
