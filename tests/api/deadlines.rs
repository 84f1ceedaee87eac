//! Turn time, running out of time and resigning (RULES.md R10, issue 11), over HTTP. Tests
//! move the server's clock (`POST /v1/test/clock`, test mode only) instead of sleeping.

use chrono::{DateTime, Utc};
use racko_rules::View;
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::common::app::{assert_problem, json_body, TestApp};
use crate::computer::{log, until_awaited, verified};
use crate::tables::{create, join, players, post_action, view, Player};

both_stores!(
    r10_1_an_awaited_seat_has_a_deadline_kept_within_its_turn,
    r10_1_turn_time_is_checked,
    r10_2_a_player_who_never_answers_times_out_and_then_resigns,
    r10_3_resigning_ends_a_two_player_game,
    r10_3_a_resigned_seat_of_four_is_played_to_the_end_and_cannot_win,
    r10_3_resigning_in_partner_loses_for_the_team,
    the_clock_moves_only_forward_and_only_in_test_mode,
    r10_4_a_reminder_comes_once_per_deadline_and_nothing_new_shows_a_card,
    r10_1_the_inbox_sorts_by_deadline,
);

pub async fn advance(app: &TestApp, seconds: u64) -> Value {
    let res = app
        .post_json("/v1/test/clock", None, &json!({ "seconds": seconds }))
        .await;
    json_body(res, StatusCode::OK).await
}

pub fn time(v: &Value) -> DateTime<Utc> {
    v.as_str()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("a time: {v}"))
}

/// A started two-player game of the first two players with `options`. Its deck has no skip
/// card, so bob (seat 1) is the first awaited (a skip as the start card would pass his turn).
async fn two_player_game(app: &TestApp, table: &[Player], mut options: Value) -> String {
    options["deck"] = json!({
        "max_number": 50, "jokers": 5, "card_swaps": 3, "skips": 0, "rack_swaps": 2
    });
    let created = create(app, &table[0], &json!({ "options": options })).await;
    let id = created["id"].as_str().expect("id").to_string();
    join(app, &table[1], &id).await;
    id
}

/// Plays the sample player's choice for `who` at the current version.
async fn play_sample(app: &TestApp, who: &Player, id: &str) -> Value {
    let seen = view(app, who, id).await;
    let table: View = serde_json::from_value(seen["table"].clone()).expect("a view");
    let action = racko_sample::choose(&table).expect("a legal action");
    let body = json!({ "version": seen["version"], "action": action });
    json_body(post_action(app, who, id, &body).await, StatusCode::OK).await
}

/// What a POST answered, read at once (so that a stale one can be told apart and retried).
struct Posted {
    status: StatusCode,
    content_type: String,
    body: Value,
}

/// The answer, which must be `status`.
fn answered(posted: Posted, status: StatusCode) -> Value {
    assert_eq!(posted.status, status, "status; body: {}", posted.body);
    posted.body
}

/// A problem answer with `status` and `code`.
fn refused(posted: Posted, status: StatusCode, code: &str) {
    assert_eq!(
        posted.content_type, "application/problem+json",
        "{}",
        posted.body
    );
    assert_eq!(
        posted.body["code"], code,
        "problem code; body: {}",
        posted.body
    );
    assert_eq!(posted.status, status, "status; body: {}", posted.body);
}

/// Posts `body` at the game's current version, again while the answer is `stale_version`:
/// the server's own moves (computer and resigned seats) may come between the read of the
/// version and the post.
async fn post_current(app: &TestApp, who: &Player, id: &str, path: &str, body: Value) -> Posted {
    for _ in 0..20 {
        let mut body = body.clone();
        body["version"] = view(app, who, id).await["version"].clone();
        let res = app.post_json(path, who.token(), &body).await;
        let status = res.status();
        let content_type = res
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string();
        let body: Value = res.json().await.expect("a JSON answer");
        if status != StatusCode::CONFLICT || body["code"] != "stale_version" {
            return Posted {
                status,
                content_type,
                body,
            };
        }
    }
    panic!("the game never stood still");
}

async fn resign(app: &TestApp, who: &Player, id: &str) -> Posted {
    let path = format!("/v1/games/{id}/resign");
    post_current(app, who, id, &path, json!({})).await
}

async fn r10_1_an_awaited_seat_has_a_deadline_kept_within_its_turn(app: TestApp) {
    let table = players(&app, &["ann", "bob"]).await;
    let id = two_player_game(&app, &table, json!({ "players": 2, "turn_time": 3600 })).await;
    let seen = view(&app, &table[1], &id).await;
    // bob starts (R2.1): his deadline is an hour after the change that awaited him.
    let deadline = time(&seen["players"][1]["deadline"]);
    assert_eq!(
        deadline - time(&seen["updated_at"]),
        chrono::Duration::hours(1)
    );
    assert_eq!(seen["players"][0]["deadline"], Value::Null);

    // The inbox shows it too.
    let inbox = app
        .get("/v1/me/games?filter=my_turn", table[1].token())
        .await;
    let inbox = json_body(inbox, StatusCode::OK).await;
    assert_eq!(time(&inbox["games"][0]["my_deadline"]), deadline);

    // Drawing is within the same turn: the deadline stays (R10.1).
    advance(&app, 600).await;
    let drawn = play_sample(&app, &table[1], &id).await;
    if drawn["view"]["table"]["turn"] == 1 {
        assert_eq!(time(&drawn["view"]["players"][1]["deadline"]), deadline);
    }
    // Once bob's turn ends, ann's deadline starts from then.
    let after = until_turn_of(&app, &table, &id, 0).await;
    let ann_deadline = time(&after["players"][0]["deadline"]);
    assert!(ann_deadline > deadline, "{ann_deadline} after {deadline}");
    assert_eq!(after["players"][1]["deadline"], Value::Null);

    // No turn time: no deadline.
    let id = two_player_game(&app, &table, json!({ "players": 2, "turn_time": null })).await;
    let seen = view(&app, &table[1], &id).await;
    assert_eq!(seen["options"]["turn_time"], Value::Null);
    assert_eq!(seen["players"][1]["deadline"], Value::Null);
}

/// Plays bob's turn with the sample player until `seat` is on turn; the view then.
async fn until_turn_of(app: &TestApp, table: &[Player], id: &str, seat: u64) -> Value {
    for _ in 0..20 {
        let seen = view(app, &table[0], id).await;
        if seen["table"]["turn"] == seat {
            return seen;
        }
        let other = &table[1 - seat as usize];
        play_sample(app, other, id).await;
    }
    panic!("seat {seat} never came on turn");
}

async fn r10_1_turn_time_is_checked(app: TestApp) {
    let table = players(&app, &["ann"]).await;
    for turn_time in [json!(59), json!(2_592_001), json!("1h"), json!(-5)] {
        let body = json!({ "options": { "players": 2, "turn_time": turn_time } });
        let res = app.post_json("/v1/games", table[0].token(), &body).await;
        let status = res.status();
        assert!(
            status == StatusCode::UNPROCESSABLE_ENTITY,
            "{turn_time}: {status}"
        );
    }
    // The default is a correspondence turn: three days.
    let created = create(&app, &table[0], &json!({ "options": { "players": 2 } })).await;
    assert_eq!(created["options"]["turn_time"], 259_200);
    assert_eq!(created["options"]["timeouts_to_resign"], 3);
}

async fn r10_2_a_player_who_never_answers_times_out_and_then_resigns(app: TestApp) {
    let table = players(&app, &["ann", "bob"]).await;
    let options = json!({ "players": 2, "turn_time": 60, "timeouts_to_resign": 3 });
    let id = two_player_game(&app, &table, options).await;
    // bob never answers; ann plays whenever she is awaited.
    let mut timeouts = 0;
    for _ in 0..200 {
        let seen = view(&app, &table[0], &id).await;
        if seen["status"] != "active" {
            break;
        }
        if seen["table"]["awaiting"] == json!([0]) {
            play_sample(&app, &table[0], &id).await;
        } else {
            advance(&app, 61).await;
            timeouts += 1;
        }
    }
    let seen = view(&app, &table[0], &id).await;
    assert_eq!(seen["status"], "finished", "{seen}");
    assert_eq!(seen["table"]["winners"], json!([0]));
    assert_eq!(seen["table"]["resigned"], json!([1]));
    assert_eq!(timeouts, 3, "bob resigned after his third timed-out turn");

    let events = log(&app, &table[0], &id).await;
    let timed_out: Vec<usize> = (0..events.len())
        .filter(|i| events[*i]["kind"] == "turn_timed_out")
        .collect();
    assert_eq!(timed_out.len(), 3);
    for i in &timed_out {
        assert_eq!(events[*i]["event"]["seat"], 1);
        // The move made for bob follows: bob's seat acts, no account caused it.
        let next = &events[i + 1];
        assert_eq!(next["event"]["seat"], 1, "{next}");
        assert_eq!(next["actor_seat"], Value::Null);
    }
    let resigned = events
        .iter()
        .find(|e| e["kind"] == "resigned")
        .expect("bob resigned");
    assert_eq!(
        resigned["event"],
        json!({ "type": "resigned", "seat": 1, "reason": "timeouts" })
    );
    verified(&app, &table[0], &id).await;
}

async fn r10_3_resigning_ends_a_two_player_game(app: TestApp) {
    let table = players(&app, &["ann", "bob", "cid"]).await;
    let id = two_player_game(&app, &table, json!({ "players": 2 })).await;
    let path = format!("/v1/games/{id}/resign");
    // Only a seated player of a started game resigns, at the version he saw.
    let version = view(&app, &table[0], &id).await["version"].clone();
    let res = app
        .post_json(&path, table[2].token(), &json!({ "version": version }))
        .await;
    assert_problem(res, StatusCode::FORBIDDEN, "not_a_player").await;
    let res = app
        .post_json(&path, table[0].token(), &json!({ "version": 1 }))
        .await;
    assert_problem(res, StatusCode::CONFLICT, "stale_version").await;

    // ann resigns while it is bob's turn: the game ends, bob wins (R10.3).
    let version = view(&app, &table[0], &id).await["version"].clone();
    let body = json!({ "version": version });
    let key = ("idempotency-key", "resign-1");
    let first = app
        .request(reqwest::Method::POST, &path, table[0].token())
        .header(key.0, key.1)
        .json(&body)
        .send()
        .await
        .expect("sent");
    let first = json_body(first, StatusCode::OK).await;
    assert_eq!(first["view"]["status"], "finished");
    assert_eq!(first["view"]["table"]["winners"], json!([1]));
    let kinds: Vec<&str> = first["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter_map(|e| e["kind"].as_str())
        .collect();
    assert_eq!(kinds, ["resigned", "game_ended"]);
    assert_eq!(first["events"][0]["actor_seat"], 0);
    // R8.2: the game is over, so the round's racks are public now.
    let retry = app
        .request(reqwest::Method::POST, &path, table[0].token())
        .header(key.0, key.1)
        .json(&body)
        .send()
        .await
        .expect("sent");
    assert_eq!(
        json_body(retry, StatusCode::OK).await,
        first,
        "a retry gets the first answer"
    );
    let res = resign(&app, &table[1], &id).await;
    refused(res, StatusCode::UNPROCESSABLE_ENTITY, "game_over");
    let verify = verified(&app, &table[2], &id).await;
    assert_eq!(verify["report"]["winners"], json!([1]));
}

async fn r10_3_a_resigned_seat_of_four_is_played_to_the_end_and_cannot_win(app: TestApp) {
    let table = players(&app, &["ann", "bob"]).await;
    let body = json!({
        "options": { "players": 4, "target": 75 },
        "computer": [{ "seat": 2, "level": "basic" }, { "seat": 3, "level": "basic" }],
    });
    let created = create(&app, &table[0], &body).await;
    let id = created["id"].as_str().expect("id").to_string();
    join(&app, &table[1], &id).await;
    // bob (seat 1) resigns at once: the game goes on, his seat is played by the server.
    let resigned = answered(resign(&app, &table[1], &id).await, StatusCode::OK);
    assert_eq!(resigned["view"]["status"], "active");
    assert_eq!(resigned["view"]["table"]["resigned"], json!([1]));
    let res = resign(&app, &table[1], &id).await;
    refused(res, StatusCode::CONFLICT, "seat_resigned");
    let actions = format!("/v1/games/{id}/actions");
    let body = json!({ "action": { "type": "draw" } });
    let res = post_current(&app, &table[1], &id, &actions, body).await;
    refused(res, StatusCode::CONFLICT, "seat_resigned");

    // ann plays to the end; everyone else is the server's.
    for _ in 0..3000 {
        let seen = until_awaited(&app, &table[0], &id).await;
        if seen["status"] != "active" {
            break;
        }
        let table_view: View = serde_json::from_value(seen["table"].clone()).expect("a view");
        let Some(action) = racko_sample::choose(&table_view) else {
            continue;
        };
        let body = json!({ "version": seen["version"], "action": action });
        let res = post_action(&app, &table[0], &id, &body).await;
        if res.status() != StatusCode::CONFLICT {
            json_body(res, StatusCode::OK).await;
        }
    }
    let seen = view(&app, &table[0], &id).await;
    assert_eq!(seen["status"], "finished", "{seen}");
    let winners = seen["table"]["winners"].as_array().expect("winners");
    assert!(
        !winners.contains(&json!(1)),
        "a resigned seat cannot win: {winners:?}"
    );
    let events = log(&app, &table[0], &id).await;
    let played_for_bob = events
        .iter()
        .filter(|e| e["kind"] == "drew" && e["event"]["seat"] == 1)
        .count();
    assert!(played_for_bob > 0, "the server played bob's seat");
    verified(&app, &table[0], &id).await;
}

async fn r10_3_resigning_in_partner_loses_for_the_team(app: TestApp) {
    let table = players(&app, &["ann"]).await;
    let body = json!({
        "options": { "players": 4, "partner": true },
        "computer": [
            { "seat": 1, "level": "basic" },
            { "seat": 2, "level": "basic" },
            { "seat": 3, "level": "basic" },
        ],
    });
    let created = create(&app, &table[0], &body).await;
    let id = created["id"].as_str().expect("id").to_string();
    let resigned = answered(resign(&app, &table[0], &id).await, StatusCode::OK);
    assert_eq!(resigned["view"]["status"], "finished");
    assert_eq!(resigned["view"]["table"]["winners"], json!([1, 3]));
}

async fn the_clock_moves_only_forward_and_only_in_test_mode(app: TestApp) {
    let before = advance(&app, 10).await;
    let after = advance(&app, 20).await;
    assert!(time(&after["now"]) >= time(&before["now"]) + chrono::Duration::seconds(20));
    assert!(after["offset_seconds"].as_f64().expect("offset") >= 30.0);
    for body in [json!({ "seconds": 0 }), json!({ "seconds": -1 }), json!({})] {
        let res = app.post_json("/v1/test/clock", None, &body).await;
        assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    }
    let production = crate::common::app::spawn_app_with(app.backend, |c| c.test_mode = false).await;
    let res = production
        .post_json("/v1/test/clock", None, &json!({ "seconds": 10 }))
        .await;
    assert_problem(res, StatusCode::FORBIDDEN, "test_mode_disabled").await;
}

async fn r10_4_a_reminder_comes_once_per_deadline_and_nothing_new_shows_a_card(app: TestApp) {
    let table = players(&app, &["ann", "bob", "cid"]).await;
    let id = two_player_game(&app, &table, json!({ "players": 2, "turn_time": 3600 })).await;
    let feed = |who: usize| {
        let app = &app;
        let token = table[who].token().map(str::to_string);
        async move {
            let res = app.get("/v1/me/feed?limit=500", token.as_deref()).await;
            let page = json_body(res, StatusCode::OK).await;
            page["items"]
                .as_array()
                .expect("items")
                .iter()
                .filter(|i| i["kind"] == "deadline_near")
                .cloned()
                .collect::<Vec<Value>>()
        }
    };
    // An hour's turn: bob is reminded half an hour before his deadline (the lead is 6 hours
    // by default, at most half the turn), once.
    advance(&app, 29 * 60).await;
    assert!(feed(1).await.is_empty(), "not yet");
    advance(&app, 2 * 60).await;
    let reminders = feed(1).await;
    assert_eq!(reminders.len(), 1, "{reminders:?}");
    let deadline = view(&app, &table[1], &id).await["players"][1]["deadline"].clone();
    assert_eq!(reminders[0]["data"]["deadline"], deadline);
    assert_eq!(reminders[0]["data"]["seat"], 1);
    assert_eq!(reminders[0]["game_id"], json!(id));
    advance(&app, 10 * 60).await;
    assert_eq!(feed(1).await.len(), 1, "once per deadline");
    assert!(feed(0).await.is_empty(), "ann is not awaited");

    // Time runs out: what a spectator sees of it names seats only (R10.4).
    advance(&app, 30 * 60).await;
    let events = log(&app, &table[2], &id).await;
    let timed_out = events
        .iter()
        .find(|e| e["kind"] == "turn_timed_out")
        .expect("bob timed out");
    assert_eq!(
        timed_out["event"],
        json!({ "type": "turn_timed_out", "seat": 1 })
    );
    answered(resign(&app, &table[0], &id).await, StatusCode::OK);
    let events = log(&app, &table[2], &id).await;
    let resigned = events
        .iter()
        .find(|e| e["kind"] == "resigned")
        .expect("resigned");
    assert_eq!(
        resigned["event"],
        json!({ "type": "resigned", "seat": 0, "reason": "player" })
    );
}

async fn r10_1_the_inbox_sorts_by_deadline(app: TestApp) {
    let table = players(&app, &["ann", "bob"]).await;
    // bob is awaited in each: an hour, no turn time, a minute, a day.
    let mut ids = Vec::new();
    for turn_time in [json!(3600), json!(null), json!(60), json!(86_400)] {
        let options = json!({ "players": 2, "turn_time": turn_time });
        ids.push(two_player_game(&app, &table, options).await);
    }
    let expected = [&ids[2], &ids[0], &ids[3], &ids[1]];
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut path = "/v1/me/games?filter=my_turn&sort=deadline&limit=3".to_string();
        if let Some(c) = &cursor {
            path.push_str(&format!("&cursor={c}"));
        }
        let page = json_body(app.get(&path, table[1].token()).await, StatusCode::OK).await;
        for game in page["games"].as_array().expect("games") {
            seen.push(game["id"].as_str().expect("id").to_string());
        }
        match page["next_cursor"].as_str() {
            Some(next) => cursor = Some(next.to_string()),
            None => break,
        }
    }
    let seen: Vec<&String> = seen.iter().collect();
    assert_eq!(
        seen, expected,
        "the nearest deadline first, none last, across pages"
    );
    let res = app
        .get("/v1/me/games?filter=all&sort=deadline", table[1].token())
        .await;
    assert_problem(res, StatusCode::BAD_REQUEST, "invalid_query").await;
    let res = app
        .get(
            "/v1/me/games?filter=my_turn&sort=deadline&cursor=zz",
            table[1].token(),
        )
        .await;
    assert_problem(res, StatusCode::BAD_REQUEST, "invalid_cursor").await;
}
