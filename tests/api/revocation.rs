//! Open streams and long-polls obey their token: signing out everywhere or deleting the
//! account ends each of them within a second, with a last `revoked` frame on a stream and
//! 401 `unauthorized` on a long-poll, and nothing of the game is sent after it.

use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::common::app::{json_body, TestApp};
use crate::sse::{last_seq, Stream};
use crate::tables::{create, join, players};

both_stores!(
    signing_out_everywhere_ends_open_streams_and_long_polls_at_once,
    deleting_the_account_ends_its_streams_at_once,
);

const WITHIN: Duration = Duration::from_secs(1);

/// The stream ends within a second of `since`, its last frame the revocation.
async fn ends_revoked(stream: &mut Stream, since: Instant, what: &str) {
    let rest = stream
        .rest(WITHIN + Duration::from_millis(500))
        .await
        .unwrap_or_else(|| panic!("the {what} stream was still open"));
    assert!(
        since.elapsed() < WITHIN + Duration::from_millis(500),
        "{what}: {:?}",
        since.elapsed()
    );
    assert!(
        rest.trim_end().ends_with("event: revoked\ndata: {\"code\":\"unauthorized\",\"detail\":\"the token was revoked; sign in again\"}"),
        "the {what} stream's last words: {rest:?}"
    );
}

async fn signing_out_everywhere_ends_open_streams_and_long_polls_at_once(app: TestApp) {
    let table = players(&app, &["ann", "bob"]).await;
    let (ann, bob) = (&table[0], &table[1]);
    let created = create(&app, ann, &json!({ "options": { "players": 2 } })).await;
    let id = created["id"].as_str().expect("id").to_string();
    join(&app, bob, &id).await;
    let seq = last_seq(&app, ann.token(), &id).await;
    let mut game = Stream::open(&app, &format!("/v1/games/{id}/stream"), ann.token(), None).await;
    game.until(seq, Duration::from_secs(5)).await;
    let mut feed = Stream::open(&app, "/v1/me/stream", ann.token(), None).await;
    let feed_page = json_body(app.get("/v1/me/feed", ann.token()).await, StatusCode::OK).await;
    let feed_seq = feed_page["next_after"].as_i64().unwrap_or(0);
    feed.until(feed_seq, Duration::from_secs(5)).await;

    // A long-poll waiting for the next feed item when the token is revoked.
    let client = reqwest::Client::new();
    let poll = client
        .get(app.url(&format!("/v1/me/feed?after={feed_seq}&wait=30")))
        .bearer_auth(&ann.token)
        .send();
    let poll = tokio::spawn(poll);
    tokio::time::sleep(Duration::from_millis(300)).await;

    let res = app
        .request(
            reqwest::Method::DELETE,
            "/v1/accounts/me/tokens",
            ann.token(),
        )
        .send()
        .await
        .expect("answered");
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    let revoked = Instant::now();
    ends_revoked(&mut game, revoked, "game").await;
    ends_revoked(&mut feed, revoked, "account").await;
    let polled = tokio::time::timeout(WITHIN, poll)
        .await
        .expect("the long-poll answered within a second")
        .expect("joined")
        .expect("answered");
    assert_eq!(polled.status(), StatusCode::UNAUTHORIZED);
    let body: Value = polled.json().await.expect("a problem");
    assert_eq!(body["code"], "unauthorized");

    // A stream opened again with the old token is refused.
    let again = app
        .get(&format!("/v1/games/{id}/stream"), ann.token())
        .await;
    assert_eq!(again.status(), StatusCode::UNAUTHORIZED);
}

async fn deleting_the_account_ends_its_streams_at_once(app: TestApp) {
    let (token, _) = app.guest().await;
    let body = json!({
        "options": { "players": 2 },
        "computer": [{ "seat": 1, "level": "basic" }],
    });
    let res = app.post_json("/v1/games", Some(&token), &body).await;
    let id = json_body(res, StatusCode::CREATED).await["id"]
        .as_str()
        .expect("id")
        .to_string();
    let mut game = Stream::open(&app, &format!("/v1/games/{id}/stream"), Some(&token), None).await;
    game.next(Duration::from_secs(5))
        .await
        .expect("the log so far");

    let res = app
        .request(reqwest::Method::DELETE, "/v1/accounts/me", Some(&token))
        .send()
        .await
        .expect("answered");
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    let deleted = Instant::now();
    // The resignation is public (R10.4) and may still come; then the stream ends.
    ends_revoked(&mut game, deleted, "game").await;
}
