//! Concurrent writers on one game: exactly one wins each version, and the log stays gapless.

use futures_util::future::join_all;
use reqwest::StatusCode;
use serde_json::json;

use crate::common::app::{assert_problem, json_body, TestApp};
use crate::tables::{create, players, post_action, small_game, view};

both_stores!(
    one_of_twenty_actions_wins,
    one_of_many_joins_takes_the_last_seat
);

async fn one_of_twenty_actions_wins(app: TestApp) {
    let table = players(&app, &["ann", "bob"]).await;
    let bob = &table[1];
    let id = small_game(&app, &table).await;
    let before = view(&app, bob, &id).await;
    let version = before["version"].clone();

    // Twenty legal actions of bob's turn, all at the same version.
    let actions = (1..=12)
        .map(|i| json!({ "type": "take_discard", "slot": 5 * i }))
        .chain(std::iter::repeat_n(json!({ "type": "draw" }), 8));
    let bodies: Vec<_> = actions
        .map(|a| json!({ "version": version, "action": a }))
        .collect();
    let metrics = app.scrape().await;
    let answers = join_all(bodies.iter().map(|b| post_action(&app, bob, &id, b))).await;

    let mut won = 0;
    for res in answers {
        if res.status() == StatusCode::OK {
            won += 1;
            continue;
        }
        let problem = assert_problem(res, StatusCode::CONFLICT, "stale_version").await;
        assert_eq!(
            problem["current_version"],
            version.as_i64().map(|v| v + 1).expect("v")
        );
    }
    assert_eq!(won, 1);

    let res = app
        .get(&format!("/v1/games/{id}/events?limit=500"), bob.token())
        .await;
    let log = json_body(res, StatusCode::OK).await;
    let seqs: Vec<i64> = log["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter_map(|e| e["seq"].as_i64())
        .collect();
    assert_eq!(
        seqs,
        (1..=seqs.len() as i64).collect::<Vec<_>>(),
        "no gap, no duplicate"
    );
    let inputs = log["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["kind"] == "discard_taken" || e["kind"] == "drew")
        .count();
    assert_eq!(inputs, 1);
    // The metrics saw the same: one applied, nineteen refused as stale.
    let after = app.scrape().await;
    assert_eq!(after.rise(&metrics, "racko_actions_applied_total"), 1.0);
    assert_eq!(after.rise(&metrics, "racko_version_conflicts_total"), 19.0);
}

async fn one_of_many_joins_takes_the_last_seat(app: TestApp) {
    let names = ["ann", "bob", "cat", "dan", "eve", "fay"];
    let table = players(&app, &names).await;
    let game = create(&app, &table[0], &json!({})).await;
    let id = game["id"].as_str().expect("id");
    let path = format!("/v1/games/{id}/join");
    let empty = json!({});
    let joins = table[1..]
        .iter()
        .map(|p| app.post_json(&path, p.token(), &empty));
    let answers = join_all(joins).await;
    let mut seated = 0;
    for res in answers {
        if res.status() == StatusCode::OK {
            seated += 1;
        } else {
            assert_problem(res, StatusCode::CONFLICT, "game_started").await;
        }
    }
    assert_eq!(seated, 1);
    let game = view(&app, &table[0], id).await;
    assert_eq!(game["status"], "active");
    assert_eq!(game["players"].as_array().map(Vec::len), Some(2));
}
