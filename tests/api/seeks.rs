//! The seek pool over real HTTP, on each store: a seek waits, pairs with the oldest
//! compatible seek into a started game (`game_started` in each feed), never with a blocked
//! account, one outside its rating range, an expired or a cancelled seek; bad input gets its
//! own code.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::common::app::{assert_problem, json_body, TestApp};
use crate::deadlines::advance;

both_stores!(
    a_seek_waits_then_pairs_with_the_next_seeker_into_a_started_game,
    four_seekers_fill_a_table_of_four,
    the_oldest_compatible_seek_is_served_first_and_never_a_seekers_own,
    blocked_seekers_are_never_paired_either_way,
    rating_ranges_must_accept_both_ways,
    a_seek_expires_or_is_cancelled_and_then_never_pairs,
    open_seeks_are_bounded_per_account,
    bad_seeks_get_their_own_codes,
    a_deleted_account_seeks_no_more,
);

pub(crate) fn two_player(target: u32) -> Value {
    json!({ "options": { "players": 2, "target": target, "turn_time": 86_400 } })
}

pub(crate) async fn seek(app: &TestApp, token: &str, body: &Value) -> Value {
    json_body(
        app.post_json("/v1/seeks", Some(token), body).await,
        StatusCode::CREATED,
    )
    .await
}

pub(crate) async fn seek_of(app: &TestApp, token: &str, id: &Value) -> Value {
    let path = format!("/v1/seeks/{}", id.as_str().expect("an id"));
    json_body(app.get(&path, Some(token)).await, StatusCode::OK).await
}

async fn cancel(app: &TestApp, token: &str, id: &Value) -> reqwest::Response {
    let path = format!("/v1/seeks/{}", id.as_str().expect("an id"));
    app.request(Method::DELETE, &path, Some(token))
        .send()
        .await
        .expect("answered")
}

pub(crate) async fn feed_kinds(app: &TestApp, token: &str, game: &Value) -> Vec<String> {
    let feed = json_body(
        app.get("/v1/me/feed?limit=500", Some(token)).await,
        StatusCode::OK,
    )
    .await;
    feed["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter(|item| item["game_id"] == *game)
        .map(|item| item["kind"].as_str().unwrap_or_default().to_string())
        .collect()
}

async fn a_seek_waits_then_pairs_with_the_next_seeker_into_a_started_game(app: TestApp) {
    let (ann, ann_id) = app.guest().await;
    let (bob, bob_id) = app.guest().await;
    let first = seek(&app, &ann, &two_player(500)).await;
    assert_eq!(first["status"], "open", "nobody else seeks yet");
    assert_eq!(first["rating"], 1500, "everyone starts at 1500");
    assert_eq!(first["rated"], false);
    assert!(first.get("game_id").is_none());
    let listed = json_body(app.get("/v1/seeks", Some(&ann)).await, StatusCode::OK).await;
    assert_eq!(listed["seeks"][0]["id"], first["id"]);

    let second = seek(&app, &bob, &two_player(500)).await;
    assert_eq!(second["status"], "matched", "ann was waiting");
    let game = second["game_id"].clone();
    let first = seek_of(&app, &ann, &first["id"]).await;
    assert_eq!(first["status"], "matched");
    assert_eq!(first["game_id"], game, "both seeks in the one game");
    assert!(first["ended_at"].is_string());

    let path = format!("/v1/games/{}", game.as_str().expect("a game id"));
    let view = json_body(app.get(&path, Some(&ann)).await, StatusCode::OK).await;
    assert_eq!(view["status"], "active", "the game starts at once");
    assert_eq!(view["options"]["target"], 500, "with the seeks' options");
    let seats: Vec<(u64, String)> = view["players"]
        .as_array()
        .expect("seats")
        .iter()
        .map(|s| (s["seat"].as_u64().unwrap_or(9), s["username"].to_string()))
        .collect();
    assert_eq!(seats.len(), 2, "exactly its two seekers: {view}");
    let me = json_body(app.get("/v1/accounts/me", Some(&ann)).await, StatusCode::OK).await;
    assert_eq!(
        seats[0].1,
        me["username"].to_string(),
        "the oldest seek sits first"
    );
    assert_eq!(me["id"], json!(ann_id));
    for token in [&ann, &bob] {
        let kinds = feed_kinds(&app, token, &game).await;
        assert!(kinds.contains(&"game_started".to_string()), "{kinds:?}");
        assert!(!kinds.contains(&"player_joined".to_string()), "{kinds:?}");
    }
    // Bob sees the game from his own seat (R8: his rack, nobody else's).
    let path = format!("/v1/games/{}", game.as_str().expect("a game id"));
    let bobs = json_body(app.get(&path, Some(&bob)).await, StatusCode::OK).await;
    assert_eq!(bobs["my_seat"], 1, "{bobs}");
    let _ = bob_id;
    // Another's seek is not there for anyone else.
    let path = format!("/v1/seeks/{}", second["id"].as_str().expect("an id"));
    assert_problem(
        app.get(&path, Some(&ann)).await,
        StatusCode::NOT_FOUND,
        "seek_not_found",
    )
    .await;
}

async fn four_seekers_fill_a_table_of_four(app: TestApp) {
    let body = json!({ "options": { "players": 4 } });
    let mut tokens = Vec::new();
    for n in 0..4 {
        let (token, _) = app.guest().await;
        let answer = seek(&app, &token, &body).await;
        let expected = if n < 3 { "open" } else { "matched" };
        assert_eq!(answer["status"], expected, "seeker {n}");
        tokens.push((token, answer));
    }
    let game = tokens[3].1["game_id"].clone();
    for (token, answer) in &tokens {
        let now = seek_of(&app, token, &answer["id"]).await;
        assert_eq!(now["game_id"], game);
        let kinds = feed_kinds(&app, token, &game).await;
        assert!(kinds.contains(&"game_started".to_string()), "{kinds:?}");
    }
    let path = format!("/v1/games/{}", game.as_str().expect("a game id"));
    let view = json_body(app.get(&path, Some(&tokens[0].0)).await, StatusCode::OK).await;
    assert_eq!(view["players"].as_array().map(Vec::len), Some(4));
}

async fn the_oldest_compatible_seek_is_served_first_and_never_a_seekers_own(app: TestApp) {
    let (ann, _) = app.guest().await;
    let (bob, _) = app.guest().await;
    let (cat, _) = app.guest().await;
    let old = seek(&app, &ann, &two_player(500)).await;
    let own = seek(&app, &ann, &two_player(500)).await;
    assert_eq!(own["status"], "open", "a seeker never pairs with itself");
    let other_pool = seek(&app, &bob, &two_player(300)).await;
    assert_eq!(other_pool["status"], "open", "other options: another pool");
    let cats = seek(&app, &cat, &two_player(500)).await;
    assert_eq!(cats["status"], "matched");
    let old = seek_of(&app, &ann, &old["id"]).await;
    assert_eq!(
        old["game_id"], cats["game_id"],
        "the oldest seek is served first"
    );
    let own = seek_of(&app, &ann, &own["id"]).await;
    assert_eq!(own["status"], "open", "the newer one still waits");
}

async fn blocked_seekers_are_never_paired_either_way(app: TestApp) {
    let (ann, _) = app.register("seek_ann").await;
    let (bob, _) = app.register("seek_bob").await;
    let (cat, _) = app.guest().await;
    let (dan, _) = app.guest().await;
    let res = app
        .post_json(
            "/v1/me/blocks",
            Some(&ann),
            &json!({ "username": "seek_bob" }),
        )
        .await;
    assert!(res.status().is_success(), "{}", res.status());
    let a = seek(&app, &ann, &two_player(500)).await;
    let b = seek(&app, &bob, &two_player(500)).await;
    assert_eq!(
        b["status"], "open",
        "ann blocks bob: bob is not paired with her"
    );
    let c = seek(&app, &cat, &two_player(500)).await;
    assert_eq!(c["status"], "matched");
    assert_eq!(seek_of(&app, &ann, &a["id"]).await["game_id"], c["game_id"]);
    // The other way round: the blocked account's seek waits for someone else.
    let (eve, _) = app.register("seek_eve").await;
    let res = app
        .post_json(
            "/v1/me/blocks",
            Some(&eve),
            &json!({ "username": "seek_bob" }),
        )
        .await;
    assert!(res.status().is_success(), "{}", res.status());
    let e = seek(&app, &eve, &two_player(500)).await;
    assert_eq!(e["status"], "open", "eve blocks bob: not paired with him");
    let d = seek(&app, &dan, &two_player(500)).await;
    assert_eq!(d["status"], "matched");
    let b = seek_of(&app, &bob, &b["id"]).await;
    assert_eq!(b["game_id"], d["game_id"], "bob, the oldest, with dan");
    assert_eq!(seek_of(&app, &eve, &e["id"]).await["status"], "open");
}

async fn rating_ranges_must_accept_both_ways(app: TestApp) {
    let (ann, _) = app.guest().await;
    let (bob, _) = app.guest().await;
    let (cat, _) = app.guest().await;
    let (dan, _) = app.guest().await;
    let mut picky = two_player(500);
    picky["rating_range"] = json!({ "min": 1600 });
    let a = seek(&app, &ann, &picky).await;
    assert_eq!(a["rating_range"]["min"], 1600);
    let b = seek(&app, &bob, &two_player(500)).await;
    assert_eq!(b["status"], "open", "ann accepts 1600 and up; bob is 1500");
    let mut low = two_player(500);
    low["rating_range"] = json!({ "min": 0, "max": 1400 });
    let c = seek(&app, &cat, &low).await;
    assert_eq!(c["status"], "open", "cat accepts up to 1400 only");
    let d = seek(&app, &dan, &two_player(500)).await;
    assert_eq!(d["status"], "matched");
    assert_eq!(seek_of(&app, &bob, &b["id"]).await["game_id"], d["game_id"]);
    assert_eq!(seek_of(&app, &ann, &a["id"]).await["status"], "open");
    assert_eq!(seek_of(&app, &cat, &c["id"]).await["status"], "open");
}

async fn a_seek_expires_or_is_cancelled_and_then_never_pairs(app: TestApp) {
    let (ann, _) = app.guest().await;
    let (bob, _) = app.guest().await;
    let (cat, _) = app.guest().await;
    let mut short = two_player(500);
    short["expires_in"] = json!(60);
    let a = seek(&app, &ann, &short).await;
    advance(&app, 61).await;
    assert_eq!(seek_of(&app, &ann, &a["id"]).await["status"], "expired");
    let b = seek(&app, &bob, &two_player(500)).await;
    assert_eq!(b["status"], "open", "an expired seek never pairs");
    assert_problem(
        cancel(&app, &ann, &a["id"]).await,
        StatusCode::CONFLICT,
        "seek_closed",
    )
    .await;

    let cancelled = json_body(cancel(&app, &bob, &b["id"]).await, StatusCode::OK).await;
    assert_eq!(cancelled["status"], "cancelled");
    assert_problem(
        cancel(&app, &bob, &b["id"]).await,
        StatusCode::CONFLICT,
        "seek_closed",
    )
    .await;
    assert_problem(
        cancel(&app, &cat, &b["id"]).await,
        StatusCode::NOT_FOUND,
        "seek_not_found",
    )
    .await;
    let c = seek(&app, &cat, &two_player(500)).await;
    assert_eq!(c["status"], "open", "a cancelled seek never pairs");
    // A matched seek is not cancelled either.
    let d = seek(&app, &ann, &two_player(500)).await;
    assert_eq!(d["status"], "matched");
    assert_problem(
        cancel(&app, &ann, &d["id"]).await,
        StatusCode::CONFLICT,
        "seek_closed",
    )
    .await;
}

async fn open_seeks_are_bounded_per_account(app: TestApp) {
    let (ann, _) = app.guest().await;
    let mut ids = Vec::new();
    for target in 1..=5 {
        ids.push(seek(&app, &ann, &two_player(target)).await["id"].clone());
    }
    let res = app.post_json("/v1/seeks", Some(&ann), &two_player(6)).await;
    assert_problem(res, StatusCode::CONFLICT, "too_many_seeks").await;
    json_body(cancel(&app, &ann, &ids[0]).await, StatusCode::OK).await;
    seek(&app, &ann, &two_player(6)).await;
    let listed = json_body(app.get("/v1/seeks", Some(&ann)).await, StatusCode::OK).await;
    assert_eq!(
        listed["seeks"].as_array().map(Vec::len),
        Some(6),
        "newest first, ended too"
    );
    assert_eq!(listed["seeks"][5]["status"], "cancelled");
}

async fn bad_seeks_get_their_own_codes(app: TestApp) {
    let (guest, _) = app.guest().await;
    let cases = [
        (
            json!({ "options": { "players": 5 } }),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_options",
        ),
        (
            json!({ "options": { "players": 2, "turn_time": 5 } }),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_options",
        ),
        (
            json!({ "rating_range": { "min": 1800, "max": 1200 } }),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_rating_range",
        ),
        (
            json!({ "rating_range": { "min": -1 } }),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_rating_range",
        ),
        (
            json!({ "rating_range": { "max": 4001 } }),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_rating_range",
        ),
        (
            json!({ "expires_in": 59 }),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_seek_expiry",
        ),
        (
            json!({ "expires_in": 604_801 }),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_seek_expiry",
        ),
        (
            json!({ "computer": [] }),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_body",
        ),
        (
            json!({ "rated": "yes" }),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_body",
        ),
        (
            json!({ "rated": true }),
            StatusCode::FORBIDDEN,
            "rated_needs_account",
        ),
    ];
    for (body, status, code) in cases {
        let res = app.post_json("/v1/seeks", Some(&guest), &body).await;
        assert_problem(res, status, code).await;
    }
    let res = app
        .request(Method::POST, "/v1/seeks", Some(&guest))
        .header("content-type", "application/json")
        .body("{")
        .send()
        .await
        .expect("answered");
    assert_problem(res, StatusCode::BAD_REQUEST, "invalid_json").await;
    let res = app.post_json("/v1/seeks", None, &json!({})).await;
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
    let unknown = json!(uuid::Uuid::new_v4().to_string());
    let path = format!("/v1/seeks/{}", unknown.as_str().expect("an id"));
    assert_problem(
        app.get(&path, Some(&guest)).await,
        StatusCode::NOT_FOUND,
        "seek_not_found",
    )
    .await;
    assert_problem(
        cancel(&app, &guest, &unknown).await,
        StatusCode::NOT_FOUND,
        "seek_not_found",
    )
    .await;
    // Nothing refused was stored.
    let listed = json_body(app.get("/v1/seeks", Some(&guest)).await, StatusCode::OK).await;
    assert_eq!(listed["seeks"], json!([]));
    // An account may seek a rated game (its rating is the seam's 1500 for now).
    let (ann, _) = app.register("rated_ann").await;
    let rated = seek(&app, &ann, &json!({ "rated": true })).await;
    assert_eq!(rated["rated"], true);
}

async fn a_deleted_account_seeks_no_more(app: TestApp) {
    let (ann, _) = app.guest().await;
    let (bob, _) = app.guest().await;
    seek(&app, &ann, &two_player(500)).await;
    let res = app
        .request(Method::DELETE, "/v1/accounts/me", Some(&ann))
        .send()
        .await
        .expect("answered");
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    let b = seek(&app, &bob, &two_player(500)).await;
    assert_eq!(b["status"], "open", "the deleted account's seek is gone");
}
