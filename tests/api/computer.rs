//! Computer seats (issue 12, item 3): a game created with `computer` seats, played by the
//! sweeper through the one write path, outside the player's requests; the log names the
//! computer as the actor; an ordered computer rack calls Racko off turn (R4.2).

use std::time::{Duration, Instant};

use racko_rules::{DeckCounts, StackedDeck, View};
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::common::app::{assert_problem, json_body, TestApp};
use crate::tables::{create, join, n, players, post_action, view, Player, ONE_OF_EACH};

both_stores!(
    one_player_alone_plays_a_whole_game_against_the_computer,
    a_full_table_of_three_levels_plays_its_turns_at_once,
    r4_2_an_ordered_computer_rack_calls_racko_off_turn,
    computer_seats_are_checked,
);

const PATIENCE: Duration = Duration::from_secs(20);

/// The log of a game as `who` reads it (every page).
pub async fn log(app: &TestApp, who: &Player, id: &str) -> Vec<Value> {
    let mut all = Vec::new();
    let mut after = 0;
    loop {
        let path = format!("/v1/games/{id}/events?after={after}&limit=500");
        let page = json_body(app.get(&path, who.token()).await, StatusCode::OK).await;
        let events = page["events"].as_array().expect("events").clone();
        if events.is_empty() {
            return all;
        }
        after = page["next_after"].as_i64().expect("next_after");
        all.extend(events);
    }
}

/// `GET …/verify` of a finished game as `who`: the result, asserted verified.
pub async fn verified(app: &TestApp, who: &Player, id: &str) -> Value {
    let res = app
        .get(&format!("/v1/games/{id}/verify"), who.token())
        .await;
    let verify = json_body(res, StatusCode::OK).await;
    assert_eq!(verify["verified"], true, "{verify}");
    verify
}

/// Waits (long-polling the log) until `who` may act or the game is no longer active; returns
/// the view then.
pub async fn until_awaited(app: &TestApp, who: &Player, id: &str) -> Value {
    let start = Instant::now();
    loop {
        let seen = view(app, who, id).await;
        let legal = seen["table"]["legal_actions"]
            .as_array()
            .map_or(0, Vec::len);
        if seen["status"] != "active" || legal > 0 {
            return seen;
        }
        assert!(
            start.elapsed() < PATIENCE,
            "the computer never moved: {seen}"
        );
        let after = log(app, who, id).await.len();
        let path = format!("/v1/games/{id}/events?after={after}&wait=2");
        app.get(&path, who.token()).await;
    }
}

async fn one_player_alone_plays_a_whole_game_against_the_computer(app: TestApp) {
    let table = players(&app, &["ann"]).await;
    let ann = &table[0];
    let body = json!({
        "options": { "players": 2, "target": 50 },
        "computer": [{ "seat": 1, "level": "strong" }],
    });
    let created = create(&app, ann, &body).await;
    assert_eq!(
        created["status"], "active",
        "computers fill the table: {created}"
    );
    assert_eq!(created["players"][1]["computer"], "strong");
    assert_eq!(created["players"][1]["username"], "computer-strong-1");
    assert_eq!(created["players"][0]["computer"], Value::Null);
    let id = created["id"].as_str().expect("id").to_string();

    let mut moves = 0;
    loop {
        let seen = until_awaited(&app, ann, &id).await;
        if seen["status"] != "active" {
            assert_eq!(seen["status"], "finished");
            break;
        }
        let table_view: View = serde_json::from_value(seen["table"].clone()).expect("a view");
        let action = racko_sample::choose(&table_view).expect("ann may act");
        let res = post_action(
            &app,
            ann,
            &id,
            &json!({ "version": seen["version"], "action": action }),
        )
        .await;
        // The computer may have moved in between (an off-turn Racko call): read again.
        if res.status() == StatusCode::CONFLICT {
            continue;
        }
        json_body(res, StatusCode::OK).await;
        moves += 1;
        assert!(moves < 2000, "the game does not end");
    }

    // The computer's actions are in the log under its seat, and ann's under hers.
    let events = log(&app, ann, &id).await;
    let by_seat = |seat: u64| {
        events
            .iter()
            .filter(|e| e["actor_seat"] == seat && e["kind"] != "player_joined")
            .count()
    };
    assert!(by_seat(1) > 0, "the computer acted");
    assert!(by_seat(0) > 0, "ann acted");
    actors_follow_the_rule(&events);
    // The export names the same actors as the log.
    let path = format!("/v1/games/{id}/export");
    let export = json_body(app.get(&path, ann.token()).await, StatusCode::OK).await;
    let actors = |events: &[Value]| -> Vec<(Value, Value)> {
        events
            .iter()
            .map(|e| (e["seq"].clone(), e["actor_seat"].clone()))
            .collect()
    };
    let exported = export["events"].as_array().expect("events");
    assert_eq!(actors(exported), actors(&events));
    verified(&app, ann, &id).await;
}

/// An event that follows from the rules names no actor, whoever's move it followed; a move
/// names its seat, a person's and the computer's alike.
fn actors_follow_the_rule(events: &[Value]) {
    const FOLLOW: [&str; 8] = [
        "round_started",
        "dealt",
        "blitz_deal_started",
        "start_card",
        "turn_started",
        "stock_reshuffled",
        "round_ended",
        "game_ended",
    ];
    const MOVES: [&str; 5] = [
        "drew",
        "drawn_placed",
        "drawn_discarded",
        "discard_taken",
        "racko_called",
    ];
    let mut after_seat = [0, 0];
    for (i, e) in events.iter().enumerate() {
        let kind = e["kind"].as_str().expect("kind");
        if FOLLOW.contains(&kind) {
            assert_eq!(e["actor_seat"], Value::Null, "{e}");
            // Which seat's move this turn_started followed.
            let before = events[..i]
                .iter()
                .rev()
                .find_map(|p| p["actor_seat"].as_u64());
            if let (Some(seat @ 0..=1), "turn_started") = (before, kind) {
                after_seat[seat as usize] += 1;
            }
        }
        if MOVES.contains(&kind) {
            assert_eq!(e["actor_seat"], e["event"]["seat"], "{e}");
        }
    }
    assert!(
        after_seat.iter().all(|&n| n > 0),
        "turn_started after both seats' moves: {after_seat:?}"
    );
}

async fn a_full_table_of_three_levels_plays_its_turns_at_once(app: TestApp) {
    let table = players(&app, &["ann"]).await;
    let ann = &table[0];
    let body = json!({
        "options": { "players": 4 },
        "computer": [
            { "seat": 3, "level": "random" },
            { "seat": 1, "level": "basic" },
            { "seat": 2, "level": "strong" },
        ],
    });
    let created = create(&app, ann, &body).await;
    assert_eq!(created["status"], "active");
    let levels: Vec<&Value> = (0..4).map(|s| &created["players"][s]["computer"]).collect();
    assert_eq!(
        levels,
        [
            &Value::Null,
            &json!("basic"),
            &json!("strong"),
            &json!("random")
        ]
    );
    let id = created["id"].as_str().expect("id").to_string();

    // Seat 1 starts (left of the dealer, R2.1): the three computers play, then ann is awaited.
    let seen = until_awaited(&app, ann, &id).await;
    assert_eq!(seen["table"]["turn"], 0, "{}", seen["table"]);
    let events = log(&app, ann, &id).await;
    for seat in 1..4u64 {
        let turns = events
            .iter()
            .filter(|e| e["kind"] == "turn_started" && e["event"]["seat"] == seat)
            .count();
        let acted = events.iter().filter(|e| e["actor_seat"] == seat).count();
        assert!(acted >= turns, "seat {seat} played each of its turns");
    }
    // R8: ann's log shows no other rack.
    let dealt = events
        .iter()
        .find(|e| e["kind"] == "dealt")
        .expect("a deal");
    for seat in 1..4 {
        assert_eq!(dealt["event"]["racks"][seat], Value::Null);
    }
}

async fn r4_2_an_ordered_computer_rack_calls_racko_off_turn(app: TestApp) {
    let table = players(&app, &["ann", "bob"]).await;
    let cards = DeckCounts {
        max_number: 40,
        ..ONE_OF_EACH
    };
    // Seat 2, the computer, is dealt an ordered rack; bob (seat 1) starts.
    let racks = [
        [33, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 1],
        [34, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 2],
        [23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 35, 36],
    ];
    let round = StackedDeck::from_racks(&cards, &racks, 1, &[n(37), n(38)]);
    let body = json!({
        "options": { "players": 3, "deck": cards },
        "stacked": [round],
        "computer": [{ "seat": 2, "level": "basic" }],
    });
    let created = create(&app, &table[0], &body).await;
    assert_eq!(created["status"], "open");
    let id = created["id"].as_str().expect("id").to_string();
    join(&app, &table[1], &id).await;

    let start = Instant::now();
    loop {
        let events = log(&app, &table[0], &id).await;
        if let Some(call) = events.iter().find(|e| e["kind"] == "racko_called") {
            assert_eq!(call["event"]["seat"], 2);
            assert_eq!(call["actor_seat"], 2);
            let ended = events
                .iter()
                .find(|e| e["kind"] == "round_ended")
                .expect("the round ended");
            assert_eq!(ended["event"]["end"], json!({ "type": "racko", "seat": 2 }));
            break;
        }
        assert!(start.elapsed() < PATIENCE, "no off-turn call: {events:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn computer_seats_are_checked(app: TestApp) {
    let table = players(&app, &["ann"]).await;
    let ann = &table[0];
    let app = &app;
    let post = |computer: Value| {
        let body = json!({ "options": { "players": 3 }, "computer": computer });
        async move { app.post_json("/v1/games", ann.token(), &body).await }
    };
    for computer in [
        json!([{ "seat": 0, "level": "strong" }]),
        json!([{ "seat": 3, "level": "strong" }]),
        json!([{ "seat": 1, "level": "strong" }, { "seat": 1, "level": "basic" }]),
    ] {
        let res = post(computer.clone()).await;
        assert_problem(
            res,
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_computer_seat",
        )
        .await;
    }
    let res = post(json!([{ "seat": 1, "level": "genius" }])).await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "invalid_body").await;
    let res = post(json!([{ "seat": 1, "level": "basic", "x": 1 }])).await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "invalid_body").await;
    // One computer in a three-seat game: open, waiting for one more person.
    let res = post(json!([{ "seat": 2, "level": "basic" }])).await;
    let open = json_body(res, StatusCode::CREATED).await;
    assert_eq!(open["status"], "open");
    assert_eq!(open["players"].as_array().map(Vec::len), Some(2));
}
