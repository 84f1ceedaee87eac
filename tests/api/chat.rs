//! Table talk over real HTTP, on each store: players write, whoever sees the game reads (page,
//! long-poll, stream), blocks keep each side's words from the other, the rate limit answers
//! 429 with `Retry-After`, reports reach the admins once, a deleted account's words go with
//! it, and the chat is kept apart from the rules log (R8: the server writes no message, so no
//! hidden card can travel in one).

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::audit::admin;
use crate::common::app::{assert_problem, json_body, TestApp, TEST_PASSWORD};
use crate::sse::Stream;
use crate::tables::{create, join, players, Player};

both_stores!(
    players_talk_and_watchers_read,
    the_chat_streams_and_long_polls,
    a_block_keeps_each_sides_words_from_the_other,
    the_rate_limit_answers_429_with_retry_after,
    bad_chat_input_gets_its_own_codes,
    reports_reach_the_admins_once,
    a_deleted_accounts_words_go_with_it,
    the_chat_stays_out_of_the_rules_log,
    the_games_stream_carries_its_table_talk_when_asked,
);

const PATIENCE: Duration = Duration::from_secs(10);

/// A started two-player game of `ann` and `bob` that anyone may watch.
async fn table(app: &TestApp, ann: &Player, bob: &Player) -> String {
    let created = create(
        app,
        ann,
        &json!({ "options": { "players": 2, "target": 50 } }),
    )
    .await;
    let id = created["id"].as_str().expect("id").to_string();
    join(app, bob, &id).await;
    id
}

async fn say(app: &TestApp, who: &Player, id: &str, text: &str) -> reqwest::Response {
    app.post_json(
        &format!("/v1/games/{id}/chat"),
        who.token(),
        &json!({ "text": text }),
    )
    .await
}

async fn said(app: &TestApp, who: &Player, id: &str, text: &str) -> Value {
    json_body(say(app, who, id, text).await, StatusCode::CREATED).await
}

async fn chat(app: &TestApp, who: &Player, id: &str) -> Value {
    json_body(
        app.get(&format!("/v1/games/{id}/chat"), who.token()).await,
        StatusCode::OK,
    )
    .await
}

fn texts(page: &Value) -> Vec<String> {
    page["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .map(|m| m["text"].as_str().unwrap_or("<none>").to_string())
        .collect()
}

async fn block(app: &TestApp, who: &Player, name: &str) {
    let res = app
        .post_json("/v1/me/blocks", who.token(), &json!({ "username": name }))
        .await;
    assert!(res.status().is_success(), "block: {}", res.status());
}

async fn players_talk_and_watchers_read(app: TestApp) {
    let [ann, bob, cat] = players(&app, &["ann", "bob", "cat"])
        .await
        .try_into()
        .ok()
        .expect("three");
    let id = table(&app, &ann, &bob).await;
    let first = said(&app, &ann, &id, "  good luck, all \n").await;
    assert_eq!(first["seq"], 1);
    assert_eq!(first["author"], "ann");
    assert_eq!(first["seat"], 0);
    assert_eq!(first["text"], "good luck, all", "trimmed");
    let mut keys: Vec<&str> = first
        .as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(keys, ["at", "author", "seat", "seq", "text"]);
    said(&app, &bob, &id, "you too").await;

    for reader in [&ann, &bob, &cat] {
        let page = chat(&app, reader, &id).await;
        assert_eq!(texts(&page), ["good luck, all", "you too"]);
        assert_eq!(page["next_after"], 2);
    }
    // A watcher reads but does not write.
    assert_problem(
        say(&app, &cat, &id, "hi").await,
        StatusCode::FORBIDDEN,
        "not_a_player",
    )
    .await;
    // A game nobody may watch answers as if it did not exist.
    let private = create(
        &app,
        &ann,
        &json!({ "options": { "players": 2 }, "visibility": "unlisted", "spectators": "nobody" }),
    )
    .await;
    let code = private["invite_code"].clone();
    let private = private["id"].as_str().expect("id").to_string();
    let res = app
        .post_json(
            "/v1/games/join",
            bob.token(),
            &json!({ "invite_code": code }),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    for res in [
        app.get(&format!("/v1/games/{private}/chat"), cat.token())
            .await,
        say(&app, &cat, &private, "hi").await,
    ] {
        assert_problem(res, StatusCode::NOT_FOUND, "game_not_found").await;
    }
    // Pages move on with `after` and `limit`.
    let page = json_body(
        app.get(&format!("/v1/games/{id}/chat?after=1&limit=1"), cat.token())
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(texts(&page), ["you too"]);
}

async fn the_chat_streams_and_long_polls(app: TestApp) {
    let [ann, bob] = players(&app, &["ann", "bob"])
        .await
        .try_into()
        .ok()
        .expect("two");
    let id = table(&app, &ann, &bob).await;
    let path = format!("/v1/games/{id}/chat/stream");
    let mut stream = Stream::open(&app, &path, bob.token(), None).await;
    said(&app, &ann, &id, "first").await;
    let frame = stream.next(PATIENCE).await.expect("a frame");
    assert_eq!((frame.id, frame.data["text"].clone()), (1, json!("first")));
    said(&app, &ann, &id, "second").await;
    let frame = stream.next(PATIENCE).await.expect("a frame");
    assert_eq!((frame.id, frame.data["text"].clone()), (2, json!("second")));

    // Resuming after the first message gives the second and nothing before it.
    let mut resumed = Stream::open(&app, &path, bob.token(), Some(1)).await;
    let frame = resumed.next(PATIENCE).await.expect("a frame");
    assert_eq!(frame.id, 2);

    // A long-poll answers as soon as a message comes.
    let poll = {
        let (url, token) = (
            app.url(&format!("/v1/games/{id}/chat?after=2&wait=20")),
            bob.token.clone(),
        );
        tokio::spawn(async move {
            let res = reqwest::Client::new()
                .get(url)
                .bearer_auth(token)
                .send()
                .await
                .expect("answered");
            res.json::<Value>().await.expect("JSON")
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    said(&app, &ann, &id, "third").await;
    let page = tokio::time::timeout(PATIENCE, poll)
        .await
        .expect("the long-poll answers")
        .expect("joined");
    assert_eq!(texts(&page), ["third"]);
}

async fn a_block_keeps_each_sides_words_from_the_other(app: TestApp) {
    let [ann, bob, cat] = players(&app, &["ann", "bob", "cat"])
        .await
        .try_into()
        .ok()
        .expect("three");
    let id = table(&app, &ann, &bob).await;
    said(&app, &bob, &id, "before").await;
    let mut ann_stream = Stream::open(
        &app,
        &format!("/v1/games/{id}/chat/stream"),
        ann.token(),
        None,
    )
    .await;
    assert_eq!(ann_stream.next(PATIENCE).await.expect("a frame").id, 1);

    // Ann blocks Bob while both sit at the table: neither reads the other from then on, the
    // old words included; a watcher reads both.
    block(&app, &ann, "bob").await;
    said(&app, &bob, &id, "from bob").await;
    said(&app, &ann, &id, "from ann").await;
    assert_eq!(texts(&chat(&app, &ann, &id).await), ["from ann"]);
    assert_eq!(texts(&chat(&app, &bob, &id).await), ["before", "from bob"]);
    assert_eq!(
        texts(&chat(&app, &cat, &id).await),
        ["before", "from bob", "from ann"]
    );
    // Ann's stream skips Bob's message and goes on with her own.
    let frame = ann_stream.next(PATIENCE).await.expect("a frame");
    assert_eq!(
        (frame.id, frame.data["text"].clone()),
        (3, json!("from ann"))
    );
}

async fn the_rate_limit_answers_429_with_retry_after(app: TestApp) {
    let [ann, bob] = players(&app, &["ann", "bob"])
        .await
        .try_into()
        .ok()
        .expect("two");
    let id = table(&app, &ann, &bob).await;
    for i in 0..10 {
        said(&app, &ann, &id, &format!("message {i}")).await;
    }
    let res = say(&app, &ann, &id, "one too many").await;
    let wait: u64 = res
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .expect("Retry-After");
    assert!((1..=60).contains(&wait), "{wait}");
    assert_problem(res, StatusCode::TOO_MANY_REQUESTS, "rate_limited").await;
    assert_eq!(
        chat(&app, &bob, &id).await["messages"]
            .as_array()
            .map(Vec::len),
        Some(10)
    );
    // The limit is the author's: Bob still writes.
    said(&app, &bob, &id, "my turn to talk").await;
}

async fn bad_chat_input_gets_its_own_codes(app: TestApp) {
    let [ann, bob] = players(&app, &["ann", "bob"])
        .await
        .try_into()
        .ok()
        .expect("two");
    let id = table(&app, &ann, &bob).await;
    let path = format!("/v1/games/{id}/chat");
    for (body, status, code) in [
        (
            json!({ "text": "   " }),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_chat_message",
        ),
        (
            json!({ "text": "x".repeat(501) }),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_chat_message",
        ),
        (
            json!({ "text": "bell\u{7}" }),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_chat_message",
        ),
        (
            json!({ "text": "hi", "to": "bob" }),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_body",
        ),
        (
            json!({ "text": 7 }),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_body",
        ),
        (json!({}), StatusCode::UNPROCESSABLE_ENTITY, "invalid_body"),
    ] {
        assert_problem(app.post_json(&path, ann.token(), &body).await, status, code).await;
    }
    said(&app, &ann, &id, &"x".repeat(500)).await;
    let res = app
        .request(Method::POST, &path, ann.token())
        .header("content-type", "application/json")
        .body("{\"text\": ")
        .send()
        .await
        .expect("answered");
    assert_problem(res, StatusCode::BAD_REQUEST, "invalid_json").await;
    for (query, code) in [
        ("after=-1", "invalid_after"),
        ("limit=0", "invalid_limit"),
        ("limit=501", "invalid_limit"),
        ("wait=61", "invalid_wait"),
    ] {
        assert_problem(
            app.get(&format!("{path}?{query}"), ann.token()).await,
            StatusCode::BAD_REQUEST,
            code,
        )
        .await;
    }
    assert_problem(
        app.get("/v1/games/not-a-game/chat", ann.token()).await,
        StatusCode::BAD_REQUEST,
        "invalid_path",
    )
    .await;
    assert_problem(
        app.get(&path, None).await,
        StatusCode::UNAUTHORIZED,
        "unauthorized",
    )
    .await;
    let report = |seq: &str, body: Value| {
        let path = format!("/v1/games/{id}/chat/{seq}/report");
        let (app, token) = (&app, bob.token.clone());
        async move { app.post_json(&path, Some(&token), &body).await }
    };
    assert_problem(
        report("9", json!({})).await,
        StatusCode::NOT_FOUND,
        "chat_message_not_found",
    )
    .await;
    assert_problem(
        report("0", json!({})).await,
        StatusCode::NOT_FOUND,
        "chat_message_not_found",
    )
    .await;
    assert_problem(
        report("x", json!({})).await,
        StatusCode::BAD_REQUEST,
        "invalid_path",
    )
    .await;
    assert_problem(
        report("1", json!({ "reason": "y".repeat(301) })).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "invalid_report_reason",
    )
    .await;
    assert_problem(
        report("1", json!({ "why": "no" })).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "invalid_body",
    )
    .await;
}

async fn reports_reach_the_admins_once(app: TestApp) {
    let [ann, bob] = players(&app, &["ann", "bob"])
        .await
        .try_into()
        .ok()
        .expect("two");
    let id = table(&app, &ann, &bob).await;
    said(&app, &ann, &id, "something rude").await;
    said(&app, &ann, &id, "more of it").await;
    let path = |seq: i64| format!("/v1/games/{id}/chat/{seq}/report");
    let res = app
        .post_json(&path(1), bob.token(), &json!({ "reason": "rude" }))
        .await;
    assert_eq!(res.status(), StatusCode::CREATED);
    let res = app
        .post_json(&path(1), bob.token(), &json!({ "reason": "still rude" }))
        .await;
    assert_eq!(res.status(), StatusCode::OK, "once per message");
    let res = app.post_json(&path(2), bob.token(), &json!({})).await;
    assert_eq!(res.status(), StatusCode::CREATED);

    assert_problem(
        app.get("/v1/admin/chat-reports", bob.token()).await,
        StatusCode::FORBIDDEN,
        "admin_only",
    )
    .await;
    let root = admin(&app, "root").await;
    let first = json_body(
        app.get("/v1/admin/chat-reports?limit=1", Some(&root.token))
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(first["reports"][0]["seq"], 1);
    assert_eq!(first["reports"][0]["reporter"], "bob");
    assert_eq!(first["reports"][0]["reason"], "rude");
    assert_eq!(first["reports"][0]["game_id"], json!(id));
    let cursor = first["next_cursor"].as_str().expect("a next page");
    let second = json_body(
        app.get(
            &format!("/v1/admin/chat-reports?limit=1&cursor={cursor}"),
            Some(&root.token),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(second["reports"][0]["seq"], 2);
    assert_problem(
        app.get("/v1/admin/chat-reports?cursor=nonsense", Some(&root.token))
            .await,
        StatusCode::BAD_REQUEST,
        "invalid_cursor",
    )
    .await;
}

async fn a_deleted_accounts_words_go_with_it(app: TestApp) {
    let [ann, bob] = players(&app, &["ann", "bob"])
        .await
        .try_into()
        .ok()
        .expect("two");
    let id = table(&app, &ann, &bob).await;
    said(&app, &ann, &id, "my secret plans").await;
    said(&app, &bob, &id, "hello").await;
    let res = app
        .request(Method::DELETE, "/v1/accounts/me", ann.token())
        .json(&json!({ "password": TEST_PASSWORD }))
        .send()
        .await
        .expect("answered");
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    let page = chat(&app, &bob, &id).await;
    let gone = &page["messages"][0];
    assert_eq!(gone["text"], Value::Null, "the text went with the account");
    let author = gone["author"].as_str().expect("an author");
    assert!(author.starts_with("deleted-player"), "{author}");
    assert_eq!(page["messages"][1]["text"], "hello");
    assert!(!page.to_string().contains("my secret plans"));
}

async fn the_chat_stays_out_of_the_rules_log(app: TestApp) {
    let [ann, bob] = players(&app, &["ann", "bob"])
        .await
        .try_into()
        .ok()
        .expect("two");
    let id = table(&app, &ann, &bob).await;
    let log = format!("/v1/games/{id}/events?limit=500");
    let before = json_body(app.get(&log, ann.token()).await, StatusCode::OK).await;
    said(&app, &ann, &id, "hello").await;
    let after = json_body(app.get(&log, ann.token()).await, StatusCode::OK).await;
    assert_eq!(after, before, "the rules log is the rules' record alone");
    // The game ends (R10.3): the server writes nothing into the chat, then or ever.
    let version = json_body(
        app.get(&format!("/v1/games/{id}"), ann.token()).await,
        StatusCode::OK,
    )
    .await["version"]
        .clone();
    let res = app
        .post_json(
            &format!("/v1/games/{id}/resign"),
            bob.token(),
            &json!({ "version": version }),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    said(&app, &bob, &id, "gg").await;
    assert_eq!(texts(&chat(&app, &ann, &id).await), ["hello", "gg"]);
}

/// Reads `res` until `done` holds of everything read, or `PATIENCE` passes; what was read.
async fn read_until(res: &mut reqwest::Response, done: impl Fn(&str) -> bool) -> String {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    let mut text = String::new();
    while !done(&text) {
        match tokio::time::timeout_at(deadline, res.chunk()).await {
            Ok(Ok(Some(bytes))) => text.push_str(&String::from_utf8_lossy(&bytes)),
            _ => break,
        }
    }
    text
}

async fn open_stream(
    app: &TestApp,
    who: &Player,
    path: &str,
    last: Option<&str>,
) -> reqwest::Response {
    let mut req = app
        .request(Method::GET, path, who.token())
        .header("accept", "text/event-stream");
    if let Some(last) = last {
        req = req.header("Last-Event-ID", last);
    }
    let res = req.send().await.expect("answered");
    assert_eq!(res.status(), StatusCode::OK);
    res
}

async fn the_games_stream_carries_its_table_talk_when_asked(app: TestApp) {
    let [ann, bob] = players(&app, &["ann", "bob"])
        .await
        .try_into()
        .ok()
        .expect("two");
    let id = table(&app, &ann, &bob).await;
    said(&app, &ann, &id, "before").await;
    let events = json_body(
        app.get(&format!("/v1/games/{id}/events?limit=500"), bob.token())
            .await,
        StatusCode::OK,
    )
    .await;
    let last = events["next_after"].as_i64().expect("a seq");
    let path = format!("/v1/games/{id}/stream?chat=true");
    let mut res = open_stream(&app, &bob, &path, None).await;
    // The log as on the plain stream, each id naming the chat's place too, then the message.
    let text = read_until(&mut res, |t| t.contains("before")).await;
    assert!(text.contains(&format!("id: {last}.0\n")), "{text}");
    assert!(
        text.contains(&format!("event: chat\nid: {last}.1\ndata: ")),
        "{text}"
    );
    said(&app, &ann, &id, "live").await;
    let text = read_until(&mut res, |t| t.contains("live")).await;
    assert!(text.contains(&format!("id: {last}.2\n")), "{text}");

    // Resuming after the first message gives the second, not the first again.
    let mut resumed = open_stream(&app, &bob, &path, Some(&format!("{last}.1"))).await;
    let text = read_until(&mut resumed, |t| t.contains("live")).await;
    assert!(text.contains("live") && !text.contains("before"), "{text}");
    let bad = app
        .request(Method::GET, &path, bob.token())
        .header("Last-Event-ID", "7.x")
        .send()
        .await
        .expect("answered");
    assert_problem(bad, StatusCode::BAD_REQUEST, "invalid_after").await;

    // The plain stream carries no chat.
    let mut plain = open_stream(&app, &bob, &format!("/v1/games/{id}/stream"), None).await;
    said(&app, &ann, &id, "unheard").await;
    let text = read_until(&mut plain, |t| t.contains("unheard")).await;
    assert!(
        !text.contains("event: chat") && !text.contains("unheard"),
        "{text}"
    );
    assert!(text.contains(&format!("id: {last}\n")), "{text}");
}
