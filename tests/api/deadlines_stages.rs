//! R10.1-R10.2 at every stage boundary, over HTTP with the test clock: a fresh deadline each
//! time a seat is awaited in a new stage (a new turn, also after a move made for it, a
//! computer's or a resigned seat's; a new round; the dealer's choice; a Blitz deal), one
//! timeout per passed deadline, and the person's stand-in playing the simplest move.

use chrono::{DateTime, Duration, Utc};
use racko_rules::{Card, DeckCounts, StackedDeck};
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::common::app::{json_body, TestApp};
use crate::computer::{log, until_awaited, verified};
use crate::deadlines::{advance, time};
use crate::tables::{act, create, n, players, start_game, view};

both_stores!(
    r10_2_one_missed_deadline_against_a_computer_costs_one_timeout,
    r10_1_a_new_round_gives_the_racko_caller_a_fresh_deadline,
    r10_1_a_blitz_deal_then_the_first_turn_each_have_their_own_deadline,
    r10_1_choosing_blitz_as_dealer_starts_a_fresh_deadline,
    r10_1_after_a_skip_start_card_the_next_seat_has_the_deal_as_its_start,
    r10_3_with_resigned_seats_between_one_late_return_costs_one_timeout,
    r10_1_partner_with_computers_each_seat_times_out_on_its_own_deadline,
);

/// Every `turn_timed_out` of `events` came at least `turn_time` seconds after the stage it
/// ends began, and no two timeouts of one seat share a stage (so no deadline counts twice).
/// Also: the stand-in's moves are the simplest (R10.2: never a Racko call, never placing or
/// taking a card but the R3.6 case).
fn check_timeouts(events: &[Value], turn_time: i64) -> usize {
    let mut begun: Vec<Option<(DateTime<Utc>, bool)>> = vec![None; 4];
    let mut played_for: Option<u64> = None;
    let mut count = 0;
    for entry in events {
        let event = &entry["event"];
        let at = time(&entry["at"]);
        let starts = |seat: usize| match entry["kind"].as_str() {
            Some("round_started" | "blitz_deal_started") => true,
            Some("turn_started") => event["seat"] == seat as u64,
            _ => false,
        };
        if entry["kind"] == "turn_timed_out" {
            let seat = event["seat"].as_u64().expect("a seat");
            let stage = begun[seat as usize].as_mut().expect("awaited before");
            assert!(
                !stage.1,
                "seat {seat} timed out twice on one deadline: {entry}"
            );
            let since = at - stage.0;
            assert!(
                since >= Duration::seconds(turn_time),
                "seat {seat} timed out {since} after its stage began: {entry}"
            );
            stage.1 = true;
            played_for = Some(seat);
            count += 1;
            continue;
        }
        if let Some(seat) = played_for {
            if event["seat"] == seat && entry["actor_seat"].is_null() {
                let kind = entry["kind"].as_str().unwrap_or_default();
                assert!(
                    !["racko_called", "drawn_placed"].contains(&kind),
                    "the stand-in played {kind} for seat {seat}: not the simplest move"
                );
            }
        }
        for (seat, stage) in begun.iter_mut().enumerate() {
            if starts(seat) {
                *stage = Some((at, false));
                if played_for == Some(seat as u64) {
                    played_for = None;
                }
            }
        }
    }
    count
}

fn timeouts_of(events: &[Value], seat: u64) -> usize {
    events
        .iter()
        .filter(|e| e["kind"] == "turn_timed_out" && e["event"]["seat"] == seat)
        .count()
}

/// A deadline that started afresh at most a few seconds before `now` (the sweep that set it
/// ran just before the clock's answer): never one that has passed.
fn assert_fresh(deadline: DateTime<Utc>, now: DateTime<Utc>, turn_time: i64) {
    let left = deadline - now;
    let window = Duration::seconds(turn_time) - Duration::seconds(5)..=Duration::seconds(turn_time);
    assert!(
        window.contains(&left),
        "a fresh deadline, {left} left of a {turn_time} s turn"
    );
}

/// The seat's deadline in a view.
fn deadline(seen: &Value, seat: usize) -> DateTime<Utc> {
    time(&seen["players"][seat]["deadline"])
}

/// A deck of `players` racks, stacked to deal `racks` with `start` first and `top` the start
/// card and the stock's top.
fn deck(players: u8, racks: &[[u16; 12]], start: u8, top: &[Card]) -> StackedDeck {
    let counts = DeckCounts::default_for(players).expect("a deck");
    StackedDeck::from_racks(&counts, racks, start, top)
}

fn ordered(from: u16) -> [u16; 12] {
    std::array::from_fn(|i| from + i as u16)
}

fn unordered(from: u16) -> [u16; 12] {
    let mut rack = ordered(from);
    rack.reverse();
    rack
}

async fn r10_2_one_missed_deadline_against_a_computer_costs_one_timeout(app: TestApp) {
    let table = players(&app, &["ann"]).await;
    let ann = &table[0];
    let body = json!({
        "options": { "players": 2, "turn_time": 60, "timeouts_to_resign": 3 },
        "computer": [{ "seat": 1, "level": "strong" }],
    });
    let id = create(&app, ann, &body).await["id"]
        .as_str()
        .expect("id")
        .to_string();
    for missed in 1..=3 {
        let seen = until_awaited(&app, ann, &id).await;
        assert_eq!(seen["status"], "active", "{seen}");
        assert_eq!(seen["table"]["awaiting"], json!([0]));
        // A fresh deadline: a minute after the change that awaited her, also after the
        // computer's move that followed the one made for her.
        let due = deadline(&seen, 0);
        assert_eq!(due - time(&seen["updated_at"]), Duration::seconds(60));
        advance(&app, 61).await;
        let events = log(&app, ann, &id).await;
        assert_eq!(
            timeouts_of(&events, 0),
            missed,
            "one timeout per passed deadline"
        );
    }
    let seen = view(&app, ann, &id).await;
    assert_eq!(seen["status"], "finished", "{seen}");
    assert_eq!(seen["table"]["resigned"], json!([0]));
    assert_eq!(seen["table"]["winners"], json!([1]));
    let events = log(&app, ann, &id).await;
    assert_eq!(check_timeouts(&events, 60), 3);
    assert_eq!(verified(&app, ann, &id).await["report"]["timeouts"], 3);

    // An export whose last timeout is moved to before its deadline no longer verifies.
    let res = app
        .get(&format!("/v1/games/{id}/export"), ann.token())
        .await;
    let mut doc: Value = json_body(res, StatusCode::OK).await;
    let entries = doc["events"].as_array_mut().expect("events");
    let last = entries
        .iter()
        .rposition(|e| e["kind"] == "turn_timed_out")
        .expect("a timeout");
    let early = time(&entries[last - 1]["at"]) + Duration::seconds(30);
    entries[last]["at"] = json!(early);
    let doc = racko::service::audit::verify::parse(&doc.to_string()).expect("parses");
    let refused = racko::service::audit::verify::verify(&doc).expect_err("tampered");
    assert!(
        refused.message().contains("before its deadline"),
        "{refused}"
    );
}

async fn r10_1_a_new_round_gives_the_racko_caller_a_fresh_deadline(app: TestApp) {
    let table = players(&app, &["ann", "bob"]).await;
    let (ann, bob) = (&table[0], &table[1]);
    let round_1 = deck(2, &[ordered(1), unordered(13)], 1, &[n(45), n(46)]);
    let round_2 = deck(2, &[unordered(1), unordered(13)], 0, &[n(45)]);
    let options = json!({ "players": 2, "turn_time": 3600 });
    let id = start_game(&app, &table, options, &[round_1, round_2]).await;
    // bob starts round 1 (R2.1): he draws and discards.
    act(&app, bob, &id, json!({ "type": "draw" })).await;
    act(&app, bob, &id, json!({ "type": "discard_drawn" })).await;
    let first = deadline(&view(&app, ann, &id).await, 0);

    advance(&app, 1000).await;
    let called = act(&app, ann, &id, json!({ "type": "call_racko" })).await;
    let seen = &called["view"];
    assert_eq!(seen["table"]["round"], 2, "{seen}");
    assert_eq!(seen["table"]["awaiting"], json!([0]), "ann starts round 2");
    let fresh = deadline(seen, 0);
    assert_eq!(fresh - time(&seen["updated_at"]), Duration::seconds(3600));
    let gap = fresh - first;
    assert!(
        (Duration::seconds(1000)..Duration::seconds(1005)).contains(&gap),
        "a deadline from the Racko call on, {gap} after round 1's"
    );

    // Round 1's deadline passes: nothing happens.
    advance(&app, 2601).await;
    assert_eq!(timeouts_of(&log(&app, ann, &id).await, 0), 0);
    advance(&app, 1000).await;
    let events = log(&app, ann, &id).await;
    assert_eq!(timeouts_of(&events, 0), 1);
    assert_eq!(check_timeouts(&events, 3600), 1);
}

async fn r10_1_a_blitz_deal_then_the_first_turn_each_have_their_own_deadline(app: TestApp) {
    let table = players(&app, &["ann", "bob"]).await;
    let options = json!({ "players": 2, "turn_time": 3600, "blitz": "every_round" });
    let id = start_game(&app, &table, options, &[]).await;
    let seen = view(&app, &table[0], &id).await;
    assert_eq!(seen["table"]["awaiting"], json!([0, 1]), "the Blitz deal");

    // One clock move past the Blitz deal's deadline: each seat times out once, and the turn
    // that follows (a new stage) gets a deadline of its own.
    let now = time(&advance(&app, 3601).await["now"]);
    let events = log(&app, &table[0], &id).await;
    assert_eq!((timeouts_of(&events, 0), timeouts_of(&events, 1)), (1, 1));
    assert_eq!(check_timeouts(&events, 3600), 2);
    let seen = view(&app, &table[0], &id).await;
    let awaited = seen["table"]["awaiting"]
        .as_array()
        .expect("awaiting")
        .clone();
    assert!(!awaited.is_empty(), "{seen}");
    for seat in awaited {
        let seat = seat.as_u64().expect("a seat") as usize;
        assert_fresh(deadline(&seen, seat), now, 3600);
    }
}

async fn r10_1_choosing_blitz_as_dealer_starts_a_fresh_deadline(app: TestApp) {
    let table = players(&app, &["ann", "bob"]).await;
    let options = json!({ "players": 2, "turn_time": 3600, "blitz": "dealers_choice" });
    let id = start_game(&app, &table, options, &[]).await;
    let seen = view(&app, &table[0], &id).await;
    assert_eq!(seen["table"]["awaiting"], json!([0]), "ann deals round 1");

    advance(&app, 1800).await;
    let chose = act(
        &app,
        &table[0],
        &id,
        json!({ "type": "choose_deal", "blitz": true }),
    )
    .await;
    let seen = &chose["view"];
    assert_eq!(seen["table"]["awaiting"], json!([0, 1]), "{seen}");
    for seat in [0, 1] {
        let since = deadline(seen, seat) - time(&seen["updated_at"]);
        assert_eq!(since, Duration::seconds(3600), "seat {seat}");
    }
    // Her first deadline passes unnoticed: the Blitz deal is a new stage.
    advance(&app, 1801).await;
    assert_eq!(check_timeouts(&log(&app, &table[0], &id).await, 3600), 0);
    advance(&app, 1800).await;
    let events = log(&app, &table[0], &id).await;
    assert_eq!((timeouts_of(&events, 0), timeouts_of(&events, 1)), (1, 1));
    check_timeouts(&events, 3600);
}

async fn r10_1_after_a_skip_start_card_the_next_seat_has_the_deal_as_its_start(app: TestApp) {
    let table = players(&app, &["ann", "bob", "cid"]).await;
    let racks = [unordered(1), unordered(13), unordered(25)];
    let round_1 = deck(3, &racks, 1, &[Card::Skip, n(40)]);
    let options = json!({ "players": 3, "turn_time": 60 });
    let id = start_game(&app, &table, options, &[round_1]).await;
    let seen = view(&app, &table[0], &id).await;
    // E5: bob's first turn is used up by the skip; cid is on turn from the deal on.
    assert_eq!(seen["table"]["awaiting"], json!([2]), "{seen}");
    let since = deadline(&seen, 2) - time(&seen["updated_at"]);
    assert_eq!(since, Duration::seconds(60));
    assert_eq!(seen["players"][1]["deadline"], Value::Null);

    let now = time(&advance(&app, 61).await["now"]);
    let events = log(&app, &table[0], &id).await;
    assert_eq!(timeouts_of(&events, 2), 1);
    assert_eq!(timeouts_of(&events, 1), 0, "bob was never awaited");
    let seen = view(&app, &table[0], &id).await;
    assert_eq!(seen["table"]["awaiting"], json!([0]), "ann's turn: {seen}");
    assert_fresh(deadline(&seen, 0), now, 60);
    check_timeouts(&events, 60);
}

async fn r10_3_with_resigned_seats_between_one_late_return_costs_one_timeout(app: TestApp) {
    let table = players(&app, &["ann", "bob", "cid"]).await;
    let options = json!({ "players": 3, "turn_time": 60, "timeouts_to_resign": 3 });
    let id = start_game(&app, &table, options, &[]).await;
    for who in &table[1..] {
        let path = format!("/v1/games/{id}/resign");
        // The server may play a resigned seat between the read and the post: read again.
        for _ in 0..20 {
            let version = view(&app, who, &id).await["version"].clone();
            let res = app
                .post_json(&path, who.token(), &json!({ "version": version }))
                .await;
            if res.status() == StatusCode::OK {
                break;
            }
            assert_eq!(res.status(), StatusCode::CONFLICT, "stale at most");
        }
    }
    // The strongest computer plays bob's and cid's seats at once; ann waits.
    for missed in 1..=3 {
        let seen = until_awaited(&app, &table[0], &id).await;
        assert_eq!(seen["status"], "active", "{seen}");
        let now = time(&advance(&app, 61).await["now"]);
        let events = log(&app, &table[0], &id).await;
        assert_eq!(
            timeouts_of(&events, 0),
            missed,
            "one timeout per passed deadline"
        );
        let seen = view(&app, &table[0], &id).await;
        if missed < 3 && seen["table"]["awaiting"] == json!([0]) {
            assert_fresh(deadline(&seen, 0), now, 60);
        }
    }
    // Every seat has resigned: the game ends without a winner.
    let seen = view(&app, &table[0], &id).await;
    assert_eq!(seen["status"], "finished", "{seen}");
    assert_eq!(seen["table"]["winners"], json!([]));
    assert_eq!(check_timeouts(&log(&app, &table[0], &id).await, 60), 3);
    verified(&app, &table[0], &id).await;
}

async fn r10_1_partner_with_computers_each_seat_times_out_on_its_own_deadline(app: TestApp) {
    let table = players(&app, &["ann", "bob"]).await;
    let (ann, bob) = (&table[0], &table[1]);
    let body = json!({
        "options": { "players": 4, "partner": true, "turn_time": 60 },
        "computer": [{ "seat": 1, "level": "basic" }, { "seat": 3, "level": "basic" }],
    });
    let id = create(&app, ann, &body).await["id"]
        .as_str()
        .expect("id")
        .to_string();
    crate::tables::join(&app, bob, &id).await;
    // Seat 1 (a computer) starts; then bob, the computer at seat 3, ann. Each person misses
    // one deadline; the move made for him and the computer's follow in the same sweep, and
    // the partner then has a fresh deadline of his own, not the one just passed.
    let seen = until_awaited(&app, bob, &id).await;
    assert_eq!(seen["table"]["awaiting"], json!([2]), "{seen}");
    for (late, partner) in [(2, 0), (0, 2)] {
        let now = time(&advance(&app, 61).await["now"]);
        let events = log(&app, ann, &id).await;
        assert_eq!(timeouts_of(&events, late), 1, "seat {late} timed out once");
        check_timeouts(&events, 60);
        let after = view(&app, ann, &id).await;
        assert_eq!(after["status"], "active", "{after}");
        if after["table"]["awaiting"] == json!([partner]) {
            assert_fresh(deadline(&after, partner), now, 60);
        }
        let other = &table[usize::from(partner == 2)];
        until_awaited(&app, other, &id).await;
    }
    let events = log(&app, ann, &id).await;
    assert_eq!(timeouts_of(&events, 0), 1, "ann missed one deadline");
    assert_eq!(timeouts_of(&events, 2), 1, "bob missed one deadline");
}
