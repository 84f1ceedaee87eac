//! Every way an action can be refused answers problem+json with its status and code, and
//! writes nothing. Also the ETag/If-Match contract and the event log's paging.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::common::app::{assert_problem, json_body, TestApp};
use crate::common::json::{assert_withheld, field};
use crate::tables::{create, number_cards, players, post_action, post_with, small_game, view};

both_stores!(
    refused_actions_have_a_status_and_a_code,
    the_version_comes_from_the_body_or_if_match,
    the_event_log_pages_and_projects,
);

async fn refused_actions_have_a_status_and_a_code(app: TestApp) {
    let table = players(&app, &["ann", "bob", "cat"]).await;
    let (ann, bob, cat) = (&table[0], &table[1], &table[2]);
    let id = small_game(&app, &table[..2]).await;
    let version = view(&app, bob, &id).await["version"].clone();
    let draw = |version: &Value| json!({ "version": version, "action": { "type": "draw" } });

    let refusals: Vec<(&crate::tables::Player, Value, StatusCode, &str)> = vec![
        (
            ann,
            draw(&version),
            StatusCode::UNPROCESSABLE_ENTITY,
            "not_your_turn",
        ),
        (
            bob,
            json!({ "version": version, "action": { "type": "take_discard", "slot": 7 } }),
            StatusCode::UNPROCESSABLE_ENTITY,
            "slot_out_of_range",
        ),
        (
            ann,
            json!({ "version": version, "action": { "type": "call_racko" } }),
            StatusCode::UNPROCESSABLE_ENTITY,
            "rack_not_in_order",
        ),
        (
            bob,
            json!({ "version": version, "action": { "type": "place_drawn", "slot": 5 } }),
            StatusCode::UNPROCESSABLE_ENTITY,
            "no_card_drawn",
        ),
        (
            bob,
            json!({ "version": version, "action": { "type": "swap_racks", "with": 0 } }),
            StatusCode::UNPROCESSABLE_ENTITY,
            "wrong_phase",
        ),
        (
            bob,
            json!({ "version": version, "action": { "type": "fold" } }),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_body",
        ),
        (
            bob,
            json!({ "version": version, "action": { "type": "draw" }, "force": true }),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_body",
        ),
        (
            bob,
            json!({ "action": { "type": "draw" } }),
            StatusCode::PRECONDITION_REQUIRED,
            "version_required",
        ),
        // serde would read a struct from an array of its fields: a body must be an object.
        (
            bob,
            json!([version, { "type": "draw" }]),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_body",
        ),
        (cat, draw(&version), StatusCode::FORBIDDEN, "not_a_player"),
    ];
    for (player, body, status, code) in refusals {
        let res = post_action(&app, player, &id, &body).await;
        assert_problem(res, status, code).await;
    }

    // A stale version names the current one.
    let res = post_action(&app, bob, &id, &draw(&json!(0))).await;
    let problem = assert_problem(res, StatusCode::CONFLICT, "stale_version").await;
    assert_eq!(problem["current_version"], version);

    let unknown = uuid::Uuid::new_v4();
    let res = post_action(&app, bob, &unknown.to_string(), &draw(&version)).await;
    assert_problem(res, StatusCode::NOT_FOUND, "game_not_found").await;
    let res = app.get(&format!("/v1/games/{unknown}"), bob.token()).await;
    assert_problem(res, StatusCode::NOT_FOUND, "game_not_found").await;
    let res = app
        .post_json(&format!("/v1/games/{id}/actions"), None, &draw(&version))
        .await;
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
    let res = app
        .request(
            Method::POST,
            &format!("/v1/games/{id}/actions"),
            bob.token(),
        )
        .header("content-type", "application/json")
        .body("{\"version\": ")
        .send()
        .await
        .expect("sent");
    assert_problem(res, StatusCode::BAD_REQUEST, "invalid_json").await;

    // An open game cannot be played; a cancelled one neither.
    let open = create(&app, ann, &json!({})).await;
    let open_id = open["id"].as_str().expect("id");
    let res = post_action(&app, ann, open_id, &draw(&open["version"])).await;
    assert_problem(res, StatusCode::CONFLICT, "game_not_started").await;
    let res = app
        .post_json(
            &format!("/v1/games/{open_id}/leave"),
            ann.token(),
            &json!({}),
        )
        .await;
    let cancelled = json_body(res, StatusCode::OK).await;
    let res = post_action(&app, ann, open_id, &draw(&cancelled["version"])).await;
    assert_problem(res, StatusCode::CONFLICT, "game_cancelled").await;

    // Nothing was written by any of it.
    let after = view(&app, bob, &id).await;
    assert_eq!(after["version"], version);
    assert_eq!(after["table"]["stock_size"], 9);
}

async fn the_version_comes_from_the_body_or_if_match(app: TestApp) {
    let table = players(&app, &["ann", "bob"]).await;
    let bob = &table[1];
    let id = small_game(&app, &table).await;
    let path = format!("/v1/games/{id}/actions");

    let res = app.get(&format!("/v1/games/{id}"), bob.token()).await;
    let etag = res
        .headers()
        .get("etag")
        .and_then(|v| v.to_str().ok())
        .expect("an ETag")
        .to_string();
    let game = json_body(res, StatusCode::OK).await;
    assert_eq!(etag, format!("\"{}\"", game["version"]));

    let draw = json!({ "action": { "type": "draw" } });
    for (if_match, code) in [
        ("soon", "invalid_if_match"),
        ("\"999\"", "version_mismatch"),
    ] {
        let body = json!({ "version": game["version"], "action": { "type": "draw" } });
        let body = if code == "invalid_if_match" {
            draw.clone()
        } else {
            body
        };
        let res = post_with(&app, &path, bob.token(), &[("if-match", if_match)], &body).await;
        assert_problem(res, StatusCode::BAD_REQUEST, code).await;
    }

    let res = post_with(&app, &path, bob.token(), &[("if-match", &etag)], &draw).await;
    let new_etag = res
        .headers()
        .get("etag")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let answer = json_body(res, StatusCode::OK).await;
    assert_eq!(
        answer["view"]["version"],
        game["version"].as_i64().map(|v| v + 1).expect("version")
    );
    assert_eq!(new_etag, Some(format!("\"{}\"", answer["view"]["version"])));

    // The old ETag is stale now.
    let res = post_with(&app, &path, bob.token(), &[("if-match", &etag)], &draw).await;
    assert_problem(res, StatusCode::CONFLICT, "stale_version").await;
    let res = app.get(&path, bob.token()).await;
    assert_eq!(res.status(), StatusCode::METHOD_NOT_ALLOWED);
}

async fn the_event_log_pages_and_projects(app: TestApp) {
    let table = players(&app, &["ann", "bob", "cat"]).await;
    let (ann, bob, cat) = (&table[0], &table[1], &table[2]);
    let id = small_game(&app, &table[..2]).await;
    let log = |after: i64, limit: i64| format!("/v1/games/{id}/events?after={after}&limit={limit}");

    let all = json_body(app.get(&log(0, 100), bob.token()).await, StatusCode::OK).await;
    let events = all["events"].as_array().expect("events");
    let seqs: Vec<i64> = events.iter().filter_map(|e| e["seq"].as_i64()).collect();
    assert_eq!(seqs, (1..=seqs.len() as i64).collect::<Vec<_>>());
    assert_eq!(all["next_after"], seqs.len());

    // Pages of two join up to the whole log.
    let mut after = 0;
    let mut paged = Vec::new();
    loop {
        let page = json_body(app.get(&log(after, 2), bob.token()).await, StatusCode::OK).await;
        let batch = page["events"].as_array().expect("events").clone();
        if batch.is_empty() {
            assert_eq!(page["next_after"], after);
            break;
        }
        after = page["next_after"].as_i64().expect("next_after");
        paged.extend(batch);
    }
    assert_eq!(&paged, events);

    // The deal: each player sees his own rack only, a spectator none (R8).
    let dealt = |page: &Value| {
        let dealt = page["events"]
            .as_array()
            .expect("events")
            .iter()
            .find(|e| e["kind"] == "dealt")
            .expect("dealt");
        field(dealt, "event.racks").clone()
    };
    let values = |rack: &Value| {
        let mut found = Vec::new();
        number_cards(rack, &mut found);
        found
    };
    // What `small_game` deals, slot 5 first.
    let anns_rack = [23, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 1];
    let bobs_rack = [24, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 2];
    let racks = dealt(&all);
    assert_withheld(&racks, "0", "bob does not see ann's rack");
    assert_eq!(values(field(&racks, "1")), bobs_rack, "bob sees his rack");
    let anns = json_body(app.get(&log(0, 100), ann.token()).await, StatusCode::OK).await;
    let racks = dealt(&anns);
    assert_eq!(values(field(&racks, "0")), anns_rack, "ann sees her rack");
    assert_withheld(&racks, "1", "ann does not see bob's rack");
    let cats = json_body(app.get(&log(0, 100), cat.token()).await, StatusCode::OK).await;
    assert_eq!(
        dealt(&cats),
        json!([null, null]),
        "a spectator sees no rack"
    );

    for (query, code) in [
        (log(0, 0), "invalid_limit"),
        (log(0, 501), "invalid_limit"),
        (log(-1, 10), "invalid_after"),
        (format!("/v1/games/{id}/events?after=x"), "invalid_query"),
    ] {
        assert_problem(
            app.get(&query, bob.token()).await,
            StatusCode::BAD_REQUEST,
            code,
        )
        .await;
    }
    let res = app
        .get(
            &format!("/v1/games/{}/events", uuid::Uuid::new_v4()),
            bob.token(),
        )
        .await;
    assert_problem(res, StatusCode::NOT_FOUND, "game_not_found").await;
}
