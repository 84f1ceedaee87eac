//! Vacations (RULES.md R10.5, worked example E9), over HTTP: a player's turn time stops while
//! away, the deadline never passes then, and the clock runs on with the time that was left.
//! Tests move the server's clock (`POST /v1/test/clock`) instead of sleeping.

use chrono::{DateTime, Datelike, Duration, TimeZone, Utc};
use racko_rules::View;
use reqwest::{Method, Response, StatusCode};
use serde_json::{json, Value};

use crate::common::app::{assert_problem, json_body, TestApp, TEST_PASSWORD};
use crate::computer::{log, verified};
use crate::deadlines::{advance, time};
use crate::tables::{create, join, players, post_action, view, Player};

both_stores!(
    r10_5_e9_the_deadline_waits_while_away_and_runs_on_with_the_time_left,
    r10_5_coming_back_early_restarts_the_clock_with_the_time_left,
    r10_5_a_turn_that_comes_while_away_gets_its_whole_turn_time_from_the_return,
    r10_5_the_sweeper_moves_a_seat_taken_while_away_before_it_reminds_or_times_out,
    r10_5_limits_and_errors,
    r10_5_a_deleted_account_leaves_no_vacation,
);

const DAY: i64 = 86_400;

async fn put(app: &TestApp, who: &Player, body: &Value) -> Response {
    app.request(Method::PUT, "/v1/me/vacation", who.token())
        .json(body)
        .send()
        .await
        .expect("answered")
}

async fn end(app: &TestApp, who: &Player) -> Response {
    app.request(Method::DELETE, "/v1/me/vacation", who.token())
        .send()
        .await
        .expect("answered")
}

async fn status(app: &TestApp, who: &Player) -> Value {
    json_body(
        app.get("/v1/me/vacation", who.token()).await,
        StatusCode::OK,
    )
    .await
}

/// A started two-player game of `table[0]` (creator) and `table[1]`, who is awaited first
/// (no skip card in the deck).
async fn two_player_game(app: &TestApp, table: &[&Player], turn_time: i64) -> String {
    let options = json!({
        "players": 2, "turn_time": turn_time,
        "deck": { "max_number": 50, "jokers": 5, "card_swaps": 3, "skips": 0, "rack_swaps": 2 }
    });
    let created = create(app, table[0], &json!({ "options": options })).await;
    let id = created["id"].as_str().expect("id").to_string();
    join(app, table[1], &id).await;
    id
}

fn seconds(d: Duration) -> i64 {
    d.num_seconds()
}

async fn timeouts(app: &TestApp, who: &Player, id: &str) -> usize {
    log(app, who, id)
        .await
        .iter()
        .filter(|e| e["kind"] == "turn_timed_out")
        .count()
}

async fn reminders(app: &TestApp, who: &Player) -> usize {
    let page = json_body(
        app.get("/v1/me/feed?limit=500", who.token()).await,
        StatusCode::OK,
    )
    .await;
    page["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter(|i| i["kind"] == "deadline_near")
        .count()
}

/// Plays `who`'s turns with the sample player until `who` is no longer awaited.
async fn play_turn(app: &TestApp, who: &Player, seat: u64, id: &str) {
    for _ in 0..10 {
        let seen = view(app, who, id).await;
        if !seen["table"]["awaiting"]
            .as_array()
            .is_some_and(|a| a.contains(&json!(seat)))
        {
            return;
        }
        let table: View = serde_json::from_value(seen["table"].clone()).expect("a view");
        let action = racko_sample::choose(&table).expect("a legal action");
        let body = json!({ "version": seen["version"], "action": action });
        json_body(post_action(app, who, id, &body).await, StatusCode::OK).await;
    }
    panic!("the turn never ended");
}

async fn r10_5_e9_the_deadline_waits_while_away_and_runs_on_with_the_time_left(app: TestApp) {
    let table = players(&app, &["ann", "bob"]).await;
    let (ann, bob) = (&table[0], &table[1]);
    // E9: a 3-day turn time; bob is awaited and has used 2 days of it.
    let id = two_player_game(&app, &[ann, bob], 3 * DAY).await;
    let before = view(&app, ann, &id).await;
    let deadline = time(&before["players"][1]["deadline"]);
    advance(&app, 2 * DAY as u64).await;

    let taken = json_body(
        put(&app, bob, &json!({ "days": 7 })).await,
        StatusCode::CREATED,
    )
    .await;
    let starts = time(&taken["vacation"]["starts_at"]);
    let ends = time(&taken["vacation"]["ends_at"]);
    assert_eq!(ends - starts, Duration::days(7));
    assert_eq!(taken["days_taken"], 7);
    assert_eq!(taken["days_left"], 23);

    // ann sees it on bob's seat at once (a new version), and the deadline moved by the week.
    let seen = view(&app, ann, &id).await;
    assert!(
        seen["version"].as_i64() > before["version"].as_i64(),
        "{seen}"
    );
    assert_eq!(time(&seen["players"][1]["away_until"]), ends);
    assert_eq!(seen["players"][0].get("away_until"), None);
    let moved = time(&seen["players"][1]["deadline"]);
    assert_eq!(
        moved,
        ends + (deadline - starts),
        "the day left, after the vacation"
    );
    // Public, and no card: a list entry shows it the same way.
    let inbox = app.get("/v1/me/games?filter=my_turn", bob.token()).await;
    let inbox = json_body(inbox, StatusCode::OK).await;
    assert_eq!(time(&inbox["games"][0]["my_deadline"]), moved);

    // The old deadline and the whole week pass: no timeout, no reminder, bob still awaited.
    advance(&app, 7 * DAY as u64 - 60).await;
    assert_eq!(timeouts(&app, ann, &id).await, 0);
    assert_eq!(reminders(&app, bob).await, 0);
    // Back: his clock runs on with the day he had left, and then it runs out, once.
    advance(&app, DAY as u64 - 120).await;
    assert_eq!(timeouts(&app, ann, &id).await, 0);
    assert_eq!(reminders(&app, bob).await, 1, "reminded once back");
    advance(&app, 240).await;
    assert_eq!(
        timeouts(&app, ann, &id).await,
        1,
        "R10.2 once the day left is used"
    );
    // The timeout follows a passed deadline of its own, as `verify` checks once it is over.
    let version = view(&app, ann, &id).await["version"].clone();
    let path = format!("/v1/games/{id}/resign");
    let res = app
        .post_json(&path, ann.token(), &json!({ "version": version }))
        .await;
    json_body(res, StatusCode::OK).await;
    verified(&app, ann, &id).await;
}

async fn r10_5_coming_back_early_restarts_the_clock_with_the_time_left(app: TestApp) {
    let table = players(&app, &["ann", "bob"]).await;
    let (ann, bob) = (&table[0], &table[1]);
    let id = two_player_game(&app, &[ann, bob], 3 * DAY).await;
    advance(&app, 2 * DAY as u64).await;
    let deadline = time(&view(&app, ann, &id).await["players"][1]["deadline"]);
    let taken = json_body(
        put(&app, bob, &json!({ "days": 7 })).await,
        StatusCode::CREATED,
    )
    .await;
    let starts = time(&taken["vacation"]["starts_at"]);
    let left = deadline - starts;

    // Back after two days: the unused days return, the clock restarts with the day left.
    advance(&app, 2 * DAY as u64).await;
    let back = json_body(end(&app, bob).await, StatusCode::OK).await;
    assert_eq!(back["vacation"], Value::Null);
    assert_eq!(back["days_taken"], 3, "whole days begun");
    assert_eq!(back["days_left"], 27);
    let seen = view(&app, ann, &id).await;
    let returned = time(&seen["players"][1]["away_until"]);
    assert!(returned - starts >= Duration::days(2), "{returned}");
    assert!(returned - starts < Duration::days(3), "{returned}");
    assert_eq!(time(&seen["players"][1]["deadline"]), returned + left);
    assert_eq!(status(&app, bob).await["vacation"], Value::Null);

    advance(&app, seconds(left) as u64 - 60).await;
    assert_eq!(timeouts(&app, ann, &id).await, 0);
    advance(&app, 120).await;
    assert_eq!(timeouts(&app, ann, &id).await, 1);
    // Nothing left to end.
    assert_problem(
        end(&app, bob).await,
        StatusCode::NOT_FOUND,
        "vacation_not_found",
    )
    .await;
}

async fn r10_5_a_turn_that_comes_while_away_gets_its_whole_turn_time_from_the_return(app: TestApp) {
    let table = players(&app, &["ann", "bob"]).await;
    let (ann, bob) = (&table[0], &table[1]);
    let id = two_player_game(&app, &[ann, bob], DAY).await;
    // ann goes away while bob is on turn; his clock runs on.
    let taken = json_body(
        put(&app, ann, &json!({ "days": 3 })).await,
        StatusCode::CREATED,
    )
    .await;
    let ends = time(&taken["vacation"]["ends_at"]);
    let seen = view(&app, bob, &id).await;
    assert_eq!(time(&seen["players"][0]["away_until"]), ends);
    assert_eq!(
        seen["players"][0]["deadline"],
        Value::Null,
        "ann is not awaited"
    );
    play_turn(&app, bob, 1, &id).await;

    // ann's turn came while she is away: a whole day from her return.
    let seen = view(&app, bob, &id).await;
    assert_eq!(seen["table"]["awaiting"], json!([0]), "{seen}");
    assert_eq!(
        time(&seen["players"][0]["deadline"]),
        ends + Duration::days(1)
    );
    advance(&app, 4 * DAY as u64 - 120).await;
    assert_eq!(timeouts(&app, bob, &id).await, 0);
    advance(&app, 240).await;
    assert_eq!(timeouts(&app, bob, &id).await, 1);
}

async fn r10_5_the_sweeper_moves_a_seat_taken_while_away_before_it_reminds_or_times_out(
    app: TestApp,
) {
    let table = players(&app, &["ann", "bob"]).await;
    let (ann, bob) = (&table[0], &table[1]);
    // bob goes away for 3 days, then joins a game with a 1-day turn time, and is awaited: the
    // write path gives him a day from now; the sweeper looks before the reminder would go.
    let taken = json_body(
        put(&app, bob, &json!({ "days": 3 })).await,
        StatusCode::CREATED,
    )
    .await;
    let ends = time(&taken["vacation"]["ends_at"]);
    let id = two_player_game(&app, &[ann, bob], DAY).await;
    advance(&app, 20 * 3600).await;
    let seen = view(&app, ann, &id).await;
    assert_eq!(
        time(&seen["players"][1]["deadline"]),
        ends + Duration::days(1)
    );
    assert_eq!(time(&seen["players"][1]["away_until"]), ends);
    assert_eq!(reminders(&app, bob).await, 0);
    advance(&app, 4 * DAY as u64 - 20 * 3600 - 120).await;
    assert_eq!(timeouts(&app, ann, &id).await, 0);
    advance(&app, 240).await;
    assert_eq!(timeouts(&app, ann, &id).await, 1);
}

async fn r10_5_limits_and_errors(app: TestApp) {
    let table = players(&app, &["ann"]).await;
    let ann = &table[0];
    // The whole allowance of a fresh year: start the clock an hour into the next one.
    let now = time(&advance(&app, 1).await["now"]);
    let next_year = Utc
        .with_ymd_and_hms(now.year() + 1, 1, 1, 1, 0, 0)
        .single()
        .expect("a time");
    advance(&app, seconds(next_year - now) as u64).await;

    let fresh = status(&app, ann).await;
    assert_eq!(fresh["vacation"], Value::Null);
    assert_eq!(fresh["days_left"], 30);
    assert_eq!(fresh["year"], now.year() + 1);

    // Guests may not.
    let (guest, _) = app.guest().await;
    let guest = Player {
        name: "guest".into(),
        token: guest,
    };
    let res = put(&app, &guest, &json!({ "days": 3 })).await;
    assert_problem(res, StatusCode::FORBIDDEN, "vacation_needs_account").await;

    // The bounds, each with its own code.
    for (body, status, code) in [
        (json!({ "days": 0 }), 422, "vacation_too_short"),
        (json!({ "days": 15 }), 422, "vacation_too_long"),
        (json!({ "days": -3 }), 422, "vacation_too_short"),
        (json!({}), 422, "invalid_body"),
        (
            json!({ "days": 2, "until": "2030-01-01T00:00:00Z" }),
            422,
            "invalid_body",
        ),
        (json!({ "days": "two" }), 422, "invalid_body"),
        (json!({ "weeks": 1 }), 422, "invalid_body"),
    ] {
        let res = put(&app, ann, &body).await;
        let status = StatusCode::from_u16(status).expect("a status");
        assert_problem(res, status, code).await;
    }
    let clock = time(&advance(&app, 1).await["now"]);
    for (ahead, code) in [
        (Duration::hours(2), "vacation_too_short"),
        (Duration::days(-1), "vacation_too_short"),
        (Duration::days(20), "vacation_too_long"),
    ] {
        let body = json!({ "until": (clock + ahead).to_rfc3339() });
        let res = put(&app, ann, &body).await;
        assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, code).await;
    }
    assert_problem(
        end(&app, ann).await,
        StatusCode::NOT_FOUND,
        "vacation_not_found",
    )
    .await;

    // Until a time: counted in whole days begun.
    let body = json!({ "until": (clock + Duration::days(13) + Duration::hours(1)).to_rfc3339() });
    let taken = json_body(put(&app, ann, &body).await, StatusCode::CREATED).await;
    assert_eq!(taken["days_taken"], 14);
    // One at a time.
    let res = put(&app, ann, &json!({ "days": 1 })).await;
    assert_problem(res, StatusCode::CONFLICT, "already_on_vacation").await;
    // Back ten minutes before 13 days are up: 13 days begun are charged, one returns.
    advance(&app, 13 * DAY as u64 - 600).await;
    let back = json_body(end(&app, ann).await, StatusCode::OK).await;
    assert_eq!(back["days_taken"], 13);
    // Another 14 days, over by itself.
    json_body(
        put(&app, ann, &json!({ "days": 14 })).await,
        StatusCode::CREATED,
    )
    .await;
    advance(&app, 14 * DAY as u64 + 60).await;
    let over = status(&app, ann).await;
    assert_eq!(over["vacation"], Value::Null);
    assert_eq!(over["days_taken"], 27);
    assert_eq!(over["days_left"], 3);
    // 30 days a year.
    let res = put(&app, ann, &json!({ "days": 4 })).await;
    let problem = assert_problem(res, StatusCode::CONFLICT, "vacation_allowance_exhausted").await;
    assert!(
        problem["detail"]
            .as_str()
            .is_some_and(|d| d.contains("3 of")),
        "{problem}"
    );
    let last = json_body(
        put(&app, ann, &json!({ "days": 3 })).await,
        StatusCode::CREATED,
    )
    .await;
    assert_eq!(last["days_left"], 0);
}

async fn r10_5_a_deleted_account_leaves_no_vacation(app: TestApp) {
    let (token, id) = app.register("ann").await;
    let ann = Player {
        name: "ann".into(),
        token: token.clone(),
    };
    json_body(
        put(&app, &ann, &json!({ "days": 5 })).await,
        StatusCode::CREATED,
    )
    .await;
    let store = racko::store::Store::open(&app.db.url, 1).expect("store");
    let since = DateTime::<Utc>::UNIX_EPOCH;
    assert_eq!(store.vacations_of(id, since).expect("read").len(), 1);
    let res = app
        .request(Method::DELETE, "/v1/accounts/me", Some(&token))
        .json(&json!({ "password": TEST_PASSWORD }))
        .send()
        .await
        .expect("answered");
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    assert!(store.vacations_of(id, since).expect("read").is_empty());
}
