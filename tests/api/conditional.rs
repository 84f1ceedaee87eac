//! Conditional GETs: an `ETag` on a game, the game lists and a log page; `If-None-Match` with
//! a current tag answers 304 with no body (and the tag), a change answers 200 again, and two
//! players of one game never share a tag for what they see differently.

use racko_rules::View;
use reqwest::{header, Response, StatusCode};
use serde_json::json;

use crate::common::app::{json_body, TestApp};
use crate::tables::{create, join, players, post_action, view, Player};

both_stores!(
    an_unchanged_game_list_or_page_is_not_sent_again,
    if_none_match_takes_stars_lists_and_weak_tags,
    players_of_one_game_have_their_own_tags,
);

/// A GET with `If-None-Match` (when given); returns the status, the `ETag` and the body.
async fn get(app: &TestApp, who: &Player, path: &str, tags: Option<&str>) -> Response {
    let mut req = app.request(reqwest::Method::GET, path, who.token());
    if let Some(tags) = tags {
        req = req.header(header::IF_NONE_MATCH, tags);
    }
    req.send().await.expect("request sent")
}

fn etag(res: &Response) -> String {
    res.headers()
        .get(header::ETAG)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_else(|| panic!("no ETag on {} {}", res.status(), res.url()))
        .to_string()
}

/// Asserts 200 with an ETag; returns the tag.
async fn fresh(app: &TestApp, who: &Player, path: &str, tags: Option<&str>) -> String {
    let res = get(app, who, path, tags).await;
    let tag = etag(&res);
    let vary = res
        .headers()
        .get_all(header::VARY)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect::<Vec<_>>()
        .join(",");
    assert!(vary.contains("Authorization"), "{path}: Vary is {vary:?}");
    json_body(res, StatusCode::OK).await;
    tag
}

/// Asserts 304, with no body and the same tag.
async fn not_modified(app: &TestApp, who: &Player, path: &str, tags: &str, tag: &str) {
    let res = get(app, who, path, Some(tags)).await;
    assert_eq!(res.status(), StatusCode::NOT_MODIFIED, "{path} with {tags}");
    assert_eq!(etag(&res), tag, "{path}: the 304 keeps the ETag");
    let body = res.bytes().await.expect("body");
    assert!(body.is_empty(), "{path}: a 304 has no body, got {body:?}");
}

const PATHS: [&str; 4] = [
    "/v1/games/{id}",
    "/v1/games/{id}/events",
    "/v1/me/games",
    "/v1/games?status=active",
];

async fn an_unchanged_game_list_or_page_is_not_sent_again(app: TestApp) {
    let table = players(&app, &["ann", "bob"]).await;
    let (ann, bob) = (&table[0], &table[1]);
    let game = create(&app, ann, &json!({"options": {"players": 2}})).await;
    let id = game["id"].as_str().expect("id").to_string();
    join(&app, bob, &id).await;
    let paths = PATHS.map(|p| p.replace("{id}", &id));

    let mut tags = Vec::new();
    for path in &paths {
        let tag = fresh(&app, ann, path, None).await;
        not_modified(&app, ann, path, &tag, &tag).await;
        tags.push(tag);
    }
    let version = view(&app, ann, &id).await["version"].clone();
    assert_eq!(
        tags[0],
        format!("\"{version}\""),
        "a game's ETag is its version"
    );

    // Whoever may act plays one legal action: the game, its log and the lists change.
    let mut moved = false;
    for who in [ann, bob] {
        let seen = view(&app, who, &id).await;
        let table_view: View = serde_json::from_value(seen["table"].clone()).expect("a view");
        if let Some(action) = racko_sample::choose(&table_view) {
            let body = json!({"version": version, "action": action});
            json_body(post_action(&app, who, &id, &body).await, StatusCode::OK).await;
            moved = true;
            break;
        }
    }
    assert!(moved, "one of the two players could act");
    for (path, old) in paths.iter().zip(&tags) {
        let new = fresh(&app, ann, path, Some(old)).await;
        assert_ne!(&new, old, "{path}: the tag changes with the game");
        not_modified(&app, ann, path, &new, &new).await;
    }
}

async fn if_none_match_takes_stars_lists_and_weak_tags(app: TestApp) {
    let table = players(&app, &["ann", "bob"]).await;
    let (ann, bob) = (&table[0], &table[1]);
    let game = create(&app, ann, &json!({"options": {"players": 2}})).await;
    let id = game["id"].as_str().expect("id").to_string();
    join(&app, bob, &id).await;
    for path in PATHS.map(|p| p.replace("{id}", &id)) {
        let tag = fresh(&app, ann, &path, None).await;
        not_modified(&app, ann, &path, "*", &tag).await;
        not_modified(&app, ann, &path, &format!("W/{tag}"), &tag).await;
        not_modified(&app, ann, &path, &format!("\"0\", {tag} , \"x\""), &tag).await;
        for other in ["\"0\"", "W/\"0\", \"1\"", "", "\"\""] {
            assert_eq!(
                fresh(&app, ann, &path, Some(other)).await,
                tag,
                "{path} with {other:?}"
            );
        }
    }
    // An unknown game is still 404, whatever the header says.
    let res = get(
        &app,
        ann,
        "/v1/games/00000000-0000-4000-8000-000000000000",
        Some("*"),
    )
    .await;
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
}

async fn players_of_one_game_have_their_own_tags(app: TestApp) {
    let table = players(&app, &["ann", "bob"]).await;
    let (ann, bob) = (&table[0], &table[1]);
    let game = create(&app, ann, &json!({"options": {"players": 2}})).await;
    let id = game["id"].as_str().expect("id").to_string();
    join(&app, bob, &id).await;
    // A log page holds each player's own rack: their bodies differ, and so must their tags,
    // so that no cache can answer one with the other's copy.
    let path = format!("/v1/games/{id}/events");
    let (a, b) = (
        fresh(&app, ann, &path, None).await,
        fresh(&app, bob, &path, None).await,
    );
    assert_ne!(a, b, "each player's page has its own tag");
    // Bob's tag does not validate Ann's copy.
    fresh(&app, ann, &path, Some(&b)).await;
    // The game itself: the same version, but each answer carries `Vary: Authorization`
    // (checked by `fresh`), so a shared cache keeps one copy per token.
    let (a, b) = (
        fresh(&app, ann, &format!("/v1/games/{id}"), None).await,
        fresh(&app, bob, &format!("/v1/games/{id}"), None).await,
    );
    assert_eq!(a, b, "a game's tag is its version");
    let mine = "/v1/me/games";
    assert_ne!(
        fresh(&app, ann, mine, None).await,
        fresh(&app, bob, mine, None).await,
        "each player's inbox has its own tag (my_seat, my_turn)"
    );
}
