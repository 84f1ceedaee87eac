//! Complete games through HTTP with stacked decks: every kind of action, each event card, a
//! Racko call, scoring, the next round and the end of the game (plain, Bonus, Partner, Blitz).

use reqwest::StatusCode;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::common::app::{assert_problem, json_body, TestApp};
use crate::common::json::assert_withheld;
use crate::tables::{
    act, card, events_of, kinds, my_rack, n, numbers, players, post_action, start_game, view,
    NUMBERS_ONLY, ONE_OF_EACH,
};
use racko_rules::{Card, DeckCounts, StackedDeck};

both_stores!(
    a_two_round_game_with_every_event_card,
    a_bonus_game_scores_the_sequence,
    a_partner_game_is_won_by_a_team,
    a_blitz_game_deals_by_the_dealers_choice,
);

fn seats(answer: &Value) -> Vec<Value> {
    answer["events"]
        .as_array()
        .expect("events")
        .iter()
        .map(|e| e["actor_seat"].clone())
        .collect()
}

async fn a_two_round_game_with_every_event_card(app: TestApp) {
    let table = players(&app, &["ann", "bob"]).await;
    let (ann, bob) = (&table[0], &table[1]);
    let cards = DeckCounts {
        max_number: 30,
        ..ONE_OF_EACH
    };
    // Round 1: seat 0 deals, bob (seat 1) starts.
    let round1 = StackedDeck::from_racks(
        &cards,
        &[
            [1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 2],
            [24, 6, 8, 10, 12, 14, 16, 18, 20, 22, 23, 4],
        ],
        1,
        &[
            n(26),
            Card::Skip,
            n(27),
            n(28),
            Card::CardSwap,
            Card::RackSwap,
            n(25),
        ],
    );
    // Round 2: bob deals, ann starts in order; bob's prefix is two cards.
    let round2 = StackedDeck::from_racks(
        &cards,
        &[
            [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
            [14, 15, 13, 16, 17, 18, 19, 20, 21, 22, 23, 24],
        ],
        0,
        &[n(25)],
    );
    let options = json!({ "players": 2, "deck": cards, "target": 100 });
    let id = start_game(&app, &table, options, &[round1, round2]).await;
    let id = id.as_str();

    // R3.1a: bob takes the start card into slot 60; the 4 there goes onto the pile.
    let answer = act(&app, bob, id, json!({ "type": "take_discard", "slot": 60 })).await;
    assert_eq!(kinds(&answer), ["discard_taken", "turn_started"]);
    // The answer is the game as stored: a later read shows the same version and times, and
    // the new events carry the time of the change.
    let later = view(&app, bob, id).await;
    assert_eq!(answer["view"]["version"], later["version"]);
    assert_eq!(answer["view"]["updated_at"], later["updated_at"]);
    for event in answer["events"].as_array().expect("events") {
        assert_eq!(event["at"], later["updated_at"], "{event}");
    }
    assert_eq!(seats(&answer)[0], 1);
    assert_eq!(
        events_of(&answer, "discard_taken")[0],
        &json!({ "type": "discard_taken", "seat": 1, "slot": 60, "card": card(26), "replaced": card(4) })
    );
    assert_eq!(
        my_rack(&answer["view"]),
        numbers(&[24, 6, 8, 10, 12, 14, 16, 18, 20, 22, 23, 26])
    );

    // R3.4 skip: ann draws it and her turn is over.
    let answer = act(&app, ann, id, json!({ "type": "draw" })).await;
    assert_eq!(kinds(&answer), ["drew", "skipped", "turn_started"]);
    assert_eq!(
        events_of(&answer, "drew")[0]["card"],
        json!({ "kind": "skip" })
    );
    assert_eq!(answer["view"]["table"]["turn"], 1);

    // R3.2: bob draws 27 (only he sees it) and puts it into slot 5.
    let answer = act(&app, bob, id, json!({ "type": "draw" })).await;
    assert_eq!(events_of(&answer, "drew")[0]["card"], card(27));
    assert_eq!(answer["view"]["table"]["drawn"], card(27));
    let seen_by_ann = view(&app, ann, id).await;
    assert_withheld(&seen_by_ann, "table.drawn", "ann does not see bob's card");
    let answer = act(&app, bob, id, json!({ "type": "place_drawn", "slot": 5 })).await;
    assert_eq!(events_of(&answer, "drawn_placed")[0]["replaced"], card(24));

    // R3.2: ann draws 28 and discards it.
    act(&app, ann, id, json!({ "type": "draw" })).await;
    let answer = act(&app, ann, id, json!({ "type": "discard_drawn" })).await;
    assert_eq!(events_of(&answer, "drawn_discarded")[0]["card"], card(28));

    // R3.4 card swap: bob takes ann's 2 (slot 60) for his 6 (slot 10).
    act(&app, bob, id, json!({ "type": "draw" })).await;
    let swap = json!({ "type": "swap_card", "with": 0, "their_slot": 60, "my_slot": 10 });
    let answer = act(&app, bob, id, swap).await;
    let swapped = events_of(&answer, "cards_swapped")[0];
    assert_eq!((&swapped["given"], &swapped["taken"]), (&card(6), &card(2)));
    let ann_rack = my_rack(&view(&app, ann, id).await);
    assert_eq!(
        ann_rack,
        numbers(&[1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 6])
    );

    // R3.4 rack swap: ann draws it and trades racks with bob.
    act(&app, ann, id, json!({ "type": "draw" })).await;
    let answer = act(&app, ann, id, json!({ "type": "swap_racks", "with": 1 })).await;
    assert_eq!(
        events_of(&answer, "racks_swapped")[0],
        &json!({ "type": "racks_swapped", "seat": 0, "with": 1 })
    );
    assert_eq!(
        my_rack(&answer["view"]),
        numbers(&[27, 2, 8, 10, 12, 14, 16, 18, 20, 22, 23, 26])
    );

    // Bob completes his order with 25, then calls Racko on ann's turn (R4.2, any moment).
    act(&app, bob, id, json!({ "type": "draw" })).await;
    act(&app, bob, id, json!({ "type": "place_drawn", "slot": 60 })).await;
    let in_order = numbers(&[1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 25]);
    assert_eq!(my_rack(&view(&app, bob, id).await), in_order);
    let answer = act(&app, bob, id, json!({ "type": "call_racko" })).await;
    assert_eq!(
        kinds(&answer)[..3],
        ["racko_called", "round_ended", "round_started"]
    );

    // R5: 90 for the caller, ann's prefix is one card. R9.2: the seed matches its commitment.
    let ended = events_of(&answer, "round_ended")[0];
    assert_eq!(ended["scores"], json!([5, 90]));
    assert_eq!(ended["totals"], json!([5, 90]));
    assert_eq!(ended["end"], json!({ "type": "racko", "seat": 1 }));
    let log = json_body(
        app.get(&format!("/v1/games/{id}/events"), ann.token())
            .await,
        StatusCode::OK,
    )
    .await;
    let committed = log["events"]
        .as_array()
        .expect("events")
        .iter()
        .find(|e| e["kind"] == "round_started" && e["round"] == 1)
        .expect("round 1 started")["event"]
        .clone();
    let seed = hex::decode(ended["seed"].as_str().expect("revealed seed")).expect("hex");
    assert_eq!(
        hex::encode(Sha256::digest(seed)),
        committed["seed_commitment"]
    );
    assert_eq!(committed["seed"], ended["seed"], "an ended round is public");

    // Round 2 was dealt in the same transaction: bob deals, ann starts.
    let next = &answer["view"]["table"];
    assert_eq!(
        (next["round"].clone(), next["dealer"].clone()),
        (json!(2), json!(1))
    );
    assert_eq!(
        next["phase"],
        json!({ "type": "turn", "seat": 0, "stage": "begin" })
    );

    // Ann's rack is dealt in order: her Racko ends the game, but bob has reached the target.
    let answer = act(&app, ann, id, json!({ "type": "call_racko" })).await;
    let ended = events_of(&answer, "round_ended")[0];
    assert_eq!(ended["scores"], json!([90, 10]));
    assert_eq!(
        events_of(&answer, "game_ended")[0],
        &json!({ "type": "game_ended", "winners": [1], "totals": [95, 100] })
    );
    let done = view(&app, ann, id).await;
    assert_eq!(done["status"], "finished");
    assert_eq!(done["table"]["winners"], json!([1]));
    assert_eq!(done["table"]["viewer"], json!({ "type": "everyone" }));
    assert!(done["players"]
        .as_array()
        .expect("players")
        .iter()
        .all(|p| p["awaiting"] == false));
    let res = post_action(
        &app,
        ann,
        id,
        &json!({ "version": done["version"], "action": { "type": "draw" } }),
    )
    .await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "game_over").await;
    let finished = json_body(
        app.get("/v1/me/games?filter=finished", bob.token()).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(finished["games"][0]["id"], id);
}

async fn a_bonus_game_scores_the_sequence(app: TestApp) {
    let table = players(&app, &["ann", "bob"]).await;
    let cards = DeckCounts {
        max_number: 25,
        ..NUMBERS_ONLY
    };
    // Bob's 12 13 14 is a direct sequence of three (R7.2: +60).
    let round = StackedDeck::from_racks(
        &cards,
        &[
            [1, 3, 5, 7, 9, 11, 15, 16, 17, 19, 21, 23],
            [2, 4, 6, 8, 10, 12, 13, 14, 18, 20, 22, 24],
        ],
        1,
        &[n(25)],
    );
    let options = json!({ "players": 2, "deck": cards, "bonus": true, "target": 150 });
    let id = start_game(&app, &table, options, &[round]).await;
    let answer = act(&app, &table[1], &id, json!({ "type": "call_racko" })).await;
    let ended = events_of(&answer, "round_ended")[0];
    assert_eq!(ended["scores"], json!([60, 150]));
    assert_eq!(events_of(&answer, "game_ended")[0]["winners"], json!([1]));
    assert_eq!(answer["view"]["status"], "finished");
}

async fn a_partner_game_is_won_by_a_team(app: TestApp) {
    let table = players(&app, &["ann", "bob", "cat", "dan"]).await;
    let cards = DeckCounts {
        max_number: 49,
        ..NUMBERS_ONLY
    };
    let round = StackedDeck::from_racks(
        &cards,
        &[
            [36, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35],
            [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
            [48, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47],
            [20, 21, 13, 14, 15, 16, 17, 18, 19, 22, 23, 24],
        ],
        1,
        &[n(49)],
    );
    let options = json!({ "players": 4, "partner": true, "deck": cards, "target": 100 });
    let id = start_game(&app, &table, options, &[round]).await;
    let answer = act(&app, &table[1], &id, json!({ "type": "call_racko" })).await;
    // R7.1: seats 1 and 3 add 90 and 10; seats 0 and 2 have one card of prefix each.
    assert_eq!(
        events_of(&answer, "round_ended")[0]["scores"],
        json!([5, 90, 5, 10])
    );
    assert_eq!(
        events_of(&answer, "game_ended")[0]["winners"],
        json!([1, 3])
    );
    let done = view(&app, &table[2], &id).await;
    assert_eq!(done["table"]["team_totals"], json!([10, 100]));
}

async fn a_blitz_game_deals_by_the_dealers_choice(app: TestApp) {
    let table = players(&app, &["ann", "bob"]).await;
    let (ann, bob) = (&table[0], &table[1]);
    let cards = DeckCounts {
        max_number: 25,
        ..NUMBERS_ONLY
    };
    let bobs_rack = [13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24];
    let round = StackedDeck::from_racks(
        &cards,
        &[[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], bobs_rack],
        1,
        &[n(25)],
    );
    let options = json!({ "players": 2, "deck": cards, "blitz": "dealers_choice", "target": 100 });
    let id = start_game(&app, &table, options, &[round]).await;
    let id = id.as_str();

    let first = view(&app, ann, id).await;
    assert_eq!(
        first["table"]["phase"],
        json!({ "type": "choosing_deal", "dealer": 0 })
    );
    let answer = act(
        &app,
        ann,
        id,
        json!({ "type": "choose_deal", "blitz": true }),
    )
    .await;
    assert_eq!(kinds(&answer)[0], "deal_chosen");

    // R7.3: each places the card he is dealt; ann fills from slot 5 (so her rack descends), bob
    // puts each card where his ordered rack has it.
    for k in 0..12u16 {
        act(
            &app,
            ann,
            id,
            json!({ "type": "place_blitz_card", "slot": 5 + 5 * k }),
        )
        .await;
        let card = view(&app, bob, id).await["table"]["blitz_card"]["value"]
            .as_u64()
            .expect("bob's next card");
        let at = bobs_rack
            .iter()
            .position(|&v| u64::from(v) == card)
            .expect("in the rack");
        let answer = act(
            &app,
            bob,
            id,
            json!({ "type": "place_blitz_card", "slot": 5 * (at + 1) }),
        )
        .await;
        if k == 11 {
            let ended = events_of(&answer, "round_ended")[0];
            assert_eq!(ended["end"], json!({ "type": "blitz_racko", "seat": 1 }));
            assert_eq!(ended["scores"], json!([5, 100]));
            assert_eq!(events_of(&answer, "game_ended")[0]["winners"], json!([1]));
        }
    }
}
