//! The lobby: creating, joining (by id and by invite code), leaving, starting when full, the
//! lists, and validation of options.

use racko_rules::{DeckCounts, StackedDeck};
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::common::app::{assert_problem, json_body, spawn_app_with, TestApp};
use crate::common::json::{assert_withheld, assert_without, field};
use crate::tables::{create, join, n, players, view, Player, NUMBERS_ONLY, ONE_OF_EACH};

both_stores!(
    creating_seats_the_creator,
    a_full_table_starts_with_round_one_dealt,
    joining_is_refused_when_it_cannot_seat_you,
    leaving_frees_the_seat_and_the_creator_cancels,
    options_and_stacked_decks_are_validated,
    stacked_decks_need_test_mode,
    lists_page_through_the_lobby_and_the_inbox,
    the_lobby_needs_a_signed_in_user,
    a_registered_guest_sits_under_his_new_name,
);

fn three_players() -> Value {
    json!({ "options": { "players": 3 } })
}

async fn creating_seats_the_creator(app: TestApp) {
    let [ann] = players(&app, &["ann"]).await.try_into().ok().expect("one");
    let game = create(&app, &ann, &three_players()).await;
    assert_eq!(game["status"], "open");
    assert_eq!(game["version"], 1);
    assert_eq!(game["my_seat"], 0);
    assert_eq!(
        game["players"],
        json!([{ "seat": 0, "username": "ann", "awaiting": false, "deadline": null, "computer": null }])
    );
    assert_eq!(game["options"]["players"], 3);
    assert_eq!(game["table"]["round"], 0);
    let code = game["invite_code"]
        .as_str()
        .expect("the creator sees the code");
    assert_eq!(code.len(), 8);
    assert!(code
        .bytes()
        .all(|b| b"ABCDEFGHJKMNPQRSTUVWXYZ23456789".contains(&b)));

    // The log starts with the creation (rules version included) and the creator's seat.
    let id = game["id"].as_str().expect("id");
    let res = app
        .get(&format!("/v1/games/{id}/events"), ann.token())
        .await;
    let log = json_body(res, StatusCode::OK).await;
    assert_eq!(log["events"][0]["kind"], "game_created");
    assert_eq!(
        log["events"][0]["event"]["rules_version"],
        racko_rules::RULES_VERSION
    );
    assert_eq!(log["events"][0]["event"]["created_by"], "ann");
    assert_eq!(
        log["events"][1]["event"],
        json!({ "type": "player_joined", "seat": 0, "username": "ann" })
    );
    assert_eq!(log["next_after"], 2);
}

async fn a_full_table_starts_with_round_one_dealt(app: TestApp) {
    let [ann, bob, cat] = players(&app, &["ann", "bob", "cat"])
        .await
        .try_into()
        .ok()
        .expect("three");
    // A stacked deck with a number for a start card, so that seat 1 surely begins (R2.4).
    let small = DeckCounts {
        max_number: 40,
        ..ONE_OF_EACH
    };
    let racks = [
        [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
        [13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24],
        [25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36],
    ];
    let round = StackedDeck::from_racks(&small, &racks, 1, &[n(37)]);
    let body = json!({ "options": { "players": 3, "deck": small }, "stacked": [round] });
    let game = create(&app, &ann, &body).await;
    let id = game["id"].as_str().expect("id");
    let code = game["invite_code"].as_str().expect("code").to_lowercase();

    let by_id = join(&app, &bob, id).await;
    assert_eq!(by_id["status"], "open");
    assert_eq!(by_id["my_seat"], 1);
    assert!(by_id["invite_code"].is_string());

    // By code, typed carelessly: the last seat starts the game.
    let res = app
        .post_json(
            "/v1/games/join",
            cat.token(),
            &json!({ "invite_code": format!(" {code} ") }),
        )
        .await;
    let started = json_body(res, StatusCode::OK).await;
    assert_eq!(started["status"], "active");
    assert_eq!(started["my_seat"], 2);
    let table = &started["table"];
    assert_eq!(table["round"], 1);
    assert_eq!(table["dealer"], 0);
    assert_eq!(
        table["phase"],
        json!({ "type": "turn", "seat": 1, "stage": "begin" })
    );
    assert_eq!(table["rack"].as_array().map(Vec::len), Some(12));
    assert_eq!(table["seed_commitment"].as_str().map(str::len), Some(64));
    let awaiting: Vec<bool> = started["players"]
        .as_array()
        .expect("players")
        .iter()
        .map(|p| p["awaiting"] == true)
        .collect();
    assert_eq!(awaiting, [false, true, false]);

    // The start is logged; the seed is committed, not shown.
    let log = json_body(
        app.get(&format!("/v1/games/{id}/events"), ann.token())
            .await,
        StatusCode::OK,
    )
    .await;
    let kinds: Vec<&str> = log["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter_map(|e| e["kind"].as_str())
        .collect();
    assert_eq!(
        kinds[..7],
        [
            "game_created",
            "player_joined",
            "player_joined",
            "player_joined",
            "game_started",
            "round_started",
            "dealt"
        ]
    );
    let round_started = &log["events"][5]["event"];
    assert_eq!(round_started["round"], 1);
    assert_withheld(
        round_started,
        "seed",
        "R9.2: no seed while the round is played",
    );
    assert_eq!(
        field(round_started, "seed_commitment"),
        field(table, "seed_commitment")
    );

    // Seat 1 is on turn: the game is in bob's inbox, not in ann's.
    let inbox = "/v1/me/games?filter=my_turn";
    let bobs = json_body(app.get(inbox, bob.token()).await, StatusCode::OK).await;
    assert_eq!(bobs["games"][0]["id"], id);
    assert_eq!(bobs["games"][0]["my_turn"], true);
    let anns = json_body(app.get(inbox, ann.token()).await, StatusCode::OK).await;
    assert_eq!(anns["games"], json!([]));
}

async fn joining_is_refused_when_it_cannot_seat_you(app: TestApp) {
    let [ann, bob, cat] = players(&app, &["ann", "bob", "cat"])
        .await
        .try_into()
        .ok()
        .expect("three");
    let game = create(&app, &ann, &json!({})).await;
    let id = game["id"].as_str().expect("id");

    assert_problem(
        join_res(&app, &ann, id).await,
        StatusCode::CONFLICT,
        "already_joined",
    )
    .await;
    let unknown = uuid::Uuid::new_v4().to_string();
    assert_problem(
        join_res(&app, &bob, &unknown).await,
        StatusCode::NOT_FOUND,
        "game_not_found",
    )
    .await;
    for code in ["ZZZZZZZZ", "\u{0}", "", "toolongforacode"] {
        let body = json!({ "invite_code": code });
        let res = app.post_json("/v1/games/join", bob.token(), &body).await;
        assert_problem(res, StatusCode::NOT_FOUND, "game_not_found").await;
    }
    let res = app
        .post_json("/v1/games/join", bob.token(), &json!({}))
        .await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "invalid_body").await;

    // Two players by default: bob's join fills the table and starts it.
    assert_eq!(join(&app, &bob, id).await["status"], "active");
    assert_problem(
        join_res(&app, &cat, id).await,
        StatusCode::CONFLICT,
        "game_started",
    )
    .await;
    assert_problem(
        join_res(&app, &bob, id).await,
        StatusCode::CONFLICT,
        "already_joined",
    )
    .await;
    assert_eq!(
        view(&app, &cat, id).await["players"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );
}

async fn leaving_frees_the_seat_and_the_creator_cancels(app: TestApp) {
    let [ann, bob, cat] = players(&app, &["ann", "bob", "cat"])
        .await
        .try_into()
        .ok()
        .expect("three");
    let game = create(&app, &ann, &three_players()).await;
    let id = game["id"].as_str().expect("id");

    join(&app, &bob, id).await;
    let left = json_body(leave_res(&app, &bob, id).await, StatusCode::OK).await;
    assert_eq!(left["status"], "open");
    assert_withheld(&left, "my_seat", "bob has left");
    assert_withheld(&left, "invite_code", "no longer seated, no code");
    assert_eq!(
        field(&view(&app, &ann, id).await, "invite_code"),
        field(&game, "invite_code"),
        "the seated creator still sees it"
    );
    assert_eq!(left["players"].as_array().map(Vec::len), Some(1));
    assert_problem(
        leave_res(&app, &bob, id).await,
        StatusCode::FORBIDDEN,
        "not_a_player",
    )
    .await;

    // Seats are refilled from the lowest free one.
    assert_eq!(join(&app, &cat, id).await["my_seat"], 1);
    assert_eq!(join(&app, &bob, id).await["status"], "active");
    assert_problem(
        leave_res(&app, &cat, id).await,
        StatusCode::CONFLICT,
        "game_started",
    )
    .await;

    // The creator leaving an open game cancels it for everyone.
    let other = create(&app, &ann, &three_players()).await;
    let other_id = other["id"].as_str().expect("id");
    join(&app, &bob, other_id).await;
    let res = app
        .post_json(
            &format!("/v1/games/{other_id}/leave"),
            ann.token(),
            &json!({}),
        )
        .await;
    assert_eq!(json_body(res, StatusCode::OK).await["status"], "cancelled");
    let res = app
        .post_json(
            &format!("/v1/games/{other_id}/join"),
            cat.token(),
            &json!({}),
        )
        .await;
    assert_problem(res, StatusCode::CONFLICT, "game_cancelled").await;
    let res = app
        .post_json(
            &format!("/v1/games/{other_id}/leave"),
            bob.token(),
            &json!({}),
        )
        .await;
    assert_problem(res, StatusCode::CONFLICT, "game_cancelled").await;
    let lobby = json_body(app.get("/v1/games", cat.token()).await, StatusCode::OK).await;
    assert!(lobby["games"]
        .as_array()
        .expect("games")
        .iter()
        .all(|g| g["id"] != other_id));

    // A cancelled game has a status of its own: bob finds it among his cancelled games, not
    // among the finished ones.
    let ids = |page: Value| -> Vec<Value> {
        page["games"]
            .as_array()
            .expect("games")
            .iter()
            .map(|g| g["id"].clone())
            .collect()
    };
    let mine = |filter: &'static str| {
        let bob = bob.token();
        let app = &app;
        async move {
            let path = format!("/v1/me/games?filter={filter}");
            json_body(app.get(&path, bob).await, StatusCode::OK).await
        }
    };
    assert_eq!(ids(mine("cancelled").await), [json!(other_id)]);
    assert!(!ids(mine("finished").await).contains(&json!(other_id)));
    let listed = mine("all").await;
    let entry = listed["games"]
        .as_array()
        .expect("games")
        .iter()
        .find(|g| g["id"] == other_id)
        .expect("listed among all of bob's games");
    assert_eq!(entry["status"], "cancelled");
}

/// A 2-player game with a small stacked deck whose start card is a number.
fn two_stacked() -> Value {
    let small = DeckCounts {
        max_number: 25,
        ..ONE_OF_EACH
    };
    let racks = [
        [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
        [13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24],
    ];
    json!({ "options": { "players": 2, "deck": small }, "stacked": [StackedDeck::from_racks(&small, &racks, 1, &[n(25)])] })
}

async fn join_res(app: &TestApp, player: &Player, game: &str) -> reqwest::Response {
    app.post_json(
        &format!("/v1/games/{game}/join"),
        player.token(),
        &json!({}),
    )
    .await
}

async fn leave_res(app: &TestApp, player: &Player, game: &str) -> reqwest::Response {
    app.post_json(
        &format!("/v1/games/{game}/leave"),
        player.token(),
        &json!({}),
    )
    .await
}

async fn options_and_stacked_decks_are_validated(app: TestApp) {
    let [ann] = players(&app, &["ann"]).await.try_into().ok().expect("one");
    let refused = [
        (json!({ "options": { "players": 5 } }), "invalid_options"),
        (json!({ "options": { "players": 1 } }), "invalid_options"),
        (
            json!({ "options": { "players": 3, "partner": true } }),
            "invalid_options",
        ),
        (
            json!({ "options": { "players": 2, "deck": DeckCounts { max_number: 24, ..NUMBERS_ONLY } } }),
            "invalid_options",
        ),
        (
            json!({ "options": { "players": 2, "deck": DeckCounts { max_number: 60, jokers: 100, ..NUMBERS_ONLY } } }),
            "invalid_options",
        ),
        (
            json!({ "options": { "players": 2, "colour": "red" } }),
            "invalid_body",
        ),
        (
            json!({ "options": { "blitz": "sometimes" } }),
            "invalid_body",
        ),
        (json!({ "options": {}, "spectators": true }), "invalid_body"),
        (
            json!({ "options": { "players": 2 }, "stacked": [{ "deal": [1, 2, 3], "stock": [] }] }),
            "invalid_stacked_deck",
        ),
    ];
    for (body, code) in refused {
        let res = app.post_json("/v1/games", ann.token(), &body).await;
        assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, code).await;
    }
    // Every variant and a custom deck are accepted.
    let small = DeckCounts {
        max_number: 25,
        ..ONE_OF_EACH
    };
    let good = StackedDeck::from_racks(
        &small,
        &[
            [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
            [13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24],
        ],
        1,
        &[],
    );
    for body in [
        json!({ "options": { "players": 4, "partner": true, "bonus": true, "blitz": "dealers_choice", "target": 200 } }),
        json!({ "options": { "players": 2, "deck": small, "blitz": "every_round" }, "stacked": [good] }),
    ] {
        create(&app, &ann, &body).await;
    }
}

async fn stacked_decks_need_test_mode(app: TestApp) {
    let live = spawn_app_with(app.backend, |config| config.test_mode = false).await;
    let [ann] = players(&live, &["ann"]).await.try_into().ok().expect("one");
    let small = DeckCounts {
        max_number: 25,
        ..NUMBERS_ONLY
    };
    let good = StackedDeck::from_racks(
        &small,
        &[
            [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
            [13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24],
        ],
        1,
        &[],
    );
    let body = json!({ "options": { "players": 2, "deck": small }, "stacked": [good] });
    let res = live.post_json("/v1/games", ann.token(), &body).await;
    assert_problem(res, StatusCode::FORBIDDEN, "test_mode_disabled").await;
    create(
        &live,
        &ann,
        &json!({ "options": { "players": 2, "deck": small } }),
    )
    .await;
}

async fn lists_page_through_the_lobby_and_the_inbox(app: TestApp) {
    let [ann, bob] = players(&app, &["ann", "bob"])
        .await
        .try_into()
        .ok()
        .expect("two");
    let mut open = Vec::new();
    for _ in 0..3 {
        open.push(create(&app, &ann, &three_players()).await["id"].clone());
    }
    // A number for a start card, so that seat 1 surely begins (R2.4).
    let started = create(&app, &ann, &two_stacked()).await["id"].clone();
    join(&app, &bob, started.as_str().expect("id")).await;

    // Newest activity first, two per page, then the rest.
    let first = json_body(
        app.get("/v1/games?status=open&limit=2", bob.token()).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(first["games"].as_array().map(Vec::len), Some(2));
    assert_eq!(first["games"][0]["id"], open[2]);
    assert_eq!(first["games"][0]["free_seats"], 2);
    assert_withheld(
        &first,
        "games.0.my_seat",
        "bob sits in none of the open games",
    );
    let cursor = first["next_cursor"].as_str().expect("a next page");
    let second = json_body(
        app.get(&format!("/v1/games?limit=2&cursor={cursor}"), bob.token())
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(second["games"].as_array().map(Vec::len), Some(1));
    assert_eq!(second["games"][0]["id"], open[0]);
    assert_withheld(&second, "next_cursor", "the last page");

    let active = json_body(
        app.get("/v1/games?status=active", bob.token()).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(active["games"][0]["id"], started);
    assert_without(
        field(&active, "games.0"),
        "table",
        &["id", "status", "players", "my_seat"],
        "lists carry no cards",
    );

    // The inbox: bob starts round 1 of the started game (seat 1 is left of the dealer).
    for (player, filter, count) in [
        (&bob, "my_turn", 1),
        (&ann, "my_turn", 0),
        (&ann, "open", 3),
        (&ann, "active", 1),
        (&ann, "all", 4),
        (&ann, "finished", 0),
        (&bob, "all", 1),
    ] {
        let res = app
            .get(&format!("/v1/me/games?filter={filter}"), player.token())
            .await;
        let page = json_body(res, StatusCode::OK).await;
        assert_eq!(
            page["games"].as_array().map(Vec::len),
            Some(count),
            "{} {filter}",
            player.name
        );
    }

    for (query, code) in [
        ("/v1/games?limit=0", "invalid_limit"),
        ("/v1/games?limit=101", "invalid_limit"),
        ("/v1/games?cursor=nonsense", "invalid_cursor"),
        ("/v1/games?status=lost", "invalid_query"),
        ("/v1/me/games?filter=mine", "invalid_query"),
        ("/v1/me/games?limit=x", "invalid_query"),
    ] {
        assert_problem(
            app.get(query, ann.token()).await,
            StatusCode::BAD_REQUEST,
            code,
        )
        .await;
    }
}

async fn the_lobby_needs_a_signed_in_user(app: TestApp) {
    for res in [
        app.post_json("/v1/games", None, &json!({})).await,
        app.get("/v1/games", None).await,
        app.get("/v1/me/games", None).await,
        app.post_json(
            "/v1/games/join",
            None,
            &json!({ "invite_code": "ABCDEFGH" }),
        )
        .await,
    ] {
        assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
    }
}

/// A token keeps the name it was issued with; a seat takes the name the account has now.
async fn a_registered_guest_sits_under_his_new_name(app: TestApp) {
    let (old_token, _) = app.guest().await;
    let upgrade = json!({ "username": "gina", "password": "correct horse battery" });
    let res = app
        .post_json("/v1/accounts/me/upgrade", Some(&old_token), &upgrade)
        .await;
    let upgraded = json_body(res, StatusCode::OK).await;
    // The guest's token is revoked by the upgrade; the new one seats him under his name.
    let res = app
        .post_json("/v1/games", Some(&old_token), &three_players())
        .await;
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
    let new_token = upgraded["token"].as_str().expect("a new token");
    let res = app
        .post_json("/v1/games", Some(new_token), &three_players())
        .await;
    let game = json_body(res, StatusCode::CREATED).await;
    assert_eq!(game["players"][0]["username"], "gina");
}
