//! The lifecycle around a game (issue 11.5 and 11.6), over HTTP: a rematch of a finished game,
//! and an account leaving for good.

use reqwest::{Method, Response, StatusCode};
use serde_json::{json, Value};

use crate::common::app::{assert_problem, json_body, TestApp, TEST_PASSWORD};
use crate::tables::{create, join, players, view, Player};

both_stores!(
    a_rematch_asked_twice_by_anyone_is_one_game,
    a_rematch_seats_its_computers_at_once,
    leaving_for_good_resigns_cancels_leaves_and_frees_the_name,
    a_guest_leaves_for_good_with_its_token_alone,
);

fn id_of(game: &Value) -> String {
    game["id"].as_str().expect("a game id").to_string()
}

/// A started 2-player game of `table[0]` (seat 0) and `table[1]`.
async fn two_player_game(app: &TestApp, table: [&Player; 2], options: Value) -> String {
    let created = create(app, table[0], &json!({ "options": options })).await;
    let id = id_of(&created);
    join(app, table[1], &id).await;
    id
}

/// `who` resigns at the version he sees: a 2-player game ends (R10.3). A computer seat may
/// move between the read and the post: then the version is read again.
async fn resign(app: &TestApp, who: &Player, id: &str) -> Value {
    for _ in 0..20 {
        let version = view(app, who, id).await["version"].clone();
        let res = app
            .post_json(
                &format!("/v1/games/{id}/resign"),
                who.token(),
                &json!({ "version": version }),
            )
            .await;
        if res.status() != StatusCode::CONFLICT {
            return json_body(res, StatusCode::OK).await;
        }
    }
    panic!("the game never stood still");
}

async fn rematch(app: &TestApp, who: &Player, id: &str) -> Response {
    app.post_json(&format!("/v1/games/{id}/rematch"), who.token(), &json!({}))
        .await
}

async fn a_rematch_asked_twice_by_anyone_is_one_game(app: TestApp) {
    let table = players(&app, &["ann", "bob", "cid"]).await;
    let (ann, bob, cid) = (&table[0], &table[1], &table[2]);
    let options = json!({ "players": 2, "turn_time": 7200, "timeouts_to_resign": 2 });
    let first = two_player_game(&app, [ann, bob], options).await;

    // Only after the game ends.
    let res = rematch(&app, bob, &first).await;
    assert_problem(res, StatusCode::CONFLICT, "game_not_finished").await;
    let ended = resign(&app, ann, &first).await;
    assert_eq!(ended["view"]["status"], "finished");
    assert_eq!(ended["view"]["rematch"], Value::Null);
    // Only its players.
    let res = rematch(&app, cid, &first).await;
    assert_problem(res, StatusCode::FORBIDDEN, "not_a_player").await;
    let res = rematch(&app, cid, "00000000-0000-0000-0000-000000000001").await;
    assert_problem(res, StatusCode::NOT_FOUND, "game_not_found").await;

    // bob asks first: a new open game with the same options, bob at seat 0.
    let created = json_body(rematch(&app, bob, &first).await, StatusCode::CREATED).await;
    let second = id_of(&created);
    assert_ne!(second, first);
    let old = view(&app, cid, &first).await;
    assert_eq!(created["options"], old["options"]);
    assert_eq!(created["status"], "open");
    assert_eq!(created["my_seat"], 0);
    assert_eq!(
        old["rematch"],
        second.as_str(),
        "the finished game links it"
    );
    // Asking again, with or without a key, gives the same game.
    let again = json_body(rematch(&app, bob, &first).await, StatusCode::OK).await;
    assert_eq!(id_of(&again), second);
    let keyed = || {
        app.request(
            Method::POST,
            &format!("/v1/games/{first}/rematch"),
            bob.token(),
        )
        .header("idempotency-key", "rematch-1")
        .json(&json!({}))
        .send()
    };
    let once = json_body(keyed().await.expect("sent"), StatusCode::OK).await;
    let twice = json_body(keyed().await.expect("sent"), StatusCode::OK).await;
    assert_eq!(
        (id_of(&once), id_of(&twice)),
        (second.clone(), second.clone())
    );

    // ann joins it with the plain join: it starts.
    let joined = join(&app, ann, &second).await;
    assert_eq!(joined["status"], "active");
    assert_eq!(joined["my_seat"], 1);
    // Her own rematch request now answers the same game, seated.
    let same = json_body(rematch(&app, ann, &first).await, StatusCode::OK).await;
    assert_eq!(
        (id_of(&same), same["my_seat"].clone()),
        (second.clone(), json!(1))
    );

    // The rematch of the rematch: ann asks first, bob joins by asking too.
    let res = rematch(&app, ann, &second).await;
    assert_problem(res, StatusCode::CONFLICT, "game_not_finished").await;
    resign(&app, bob, &second).await;
    let third = json_body(rematch(&app, ann, &second).await, StatusCode::CREATED).await;
    let third_id = id_of(&third);
    assert_eq!(third["options"], old["options"]);
    let seated = json_body(rematch(&app, bob, &second).await, StatusCode::OK).await;
    assert_eq!(id_of(&seated), third_id);
    assert_eq!(seated["status"], "active");
    assert_eq!(seated["my_seat"], 1);
    let players: Vec<&Value> = seated["players"]
        .as_array()
        .expect("players")
        .iter()
        .map(|p| &p["username"])
        .collect();
    assert_eq!(players, ["ann", "bob"]);
    let again = json_body(rematch(&app, bob, &second).await, StatusCode::OK).await;
    assert_eq!(
        (id_of(&again), again["version"].clone()),
        (third_id.clone(), seated["version"].clone()),
        "asking again changes nothing"
    );
    assert_eq!(view(&app, cid, &second).await["rematch"], third_id.as_str());
}

async fn a_rematch_seats_its_computers_at_once(app: TestApp) {
    let table = players(&app, &["ann"]).await;
    let ann = &table[0];
    let body = json!({
        "options": { "players": 2 },
        "computer": [{ "seat": 1, "level": "random" }],
    });
    let first = id_of(&create(&app, ann, &body).await);
    resign(&app, ann, &first).await;
    let created = json_body(rematch(&app, ann, &first).await, StatusCode::CREATED).await;
    assert_eq!(
        created["status"], "active",
        "the computer sits down at once"
    );
    assert_eq!(created["my_seat"], 0);
    assert_eq!(created["players"][1]["computer"], "random");
    assert_eq!(created["players"][0]["computer"], Value::Null);
}

async fn delete_me(app: &TestApp, token: &str, body: Option<Value>) -> Response {
    let req = app.request(Method::DELETE, "/v1/accounts/me", Some(token));
    match body {
        Some(body) => req.json(&body),
        None => req,
    }
    .send()
    .await
    .expect("sent")
}

/// The export of game `id` as `who` reads it, verified like `racko verify` does.
async fn verified_export(
    app: &TestApp,
    who: &Player,
    id: &str,
) -> racko::service::audit::verify::VerifyReport {
    let res = app
        .get(&format!("/v1/games/{id}/export"), who.token())
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let text = res.text().await.expect("export body");
    let doc = racko::service::audit::verify::parse(&text).expect("the export parses");
    assert!(doc.complete);
    racko::service::audit::verify::verify(&doc).expect("the export verifies")
}

async fn leaving_for_good_resigns_cancels_leaves_and_frees_the_name(app: TestApp) {
    let table = players(&app, &["ann", "bob", "cid"]).await;
    let (ann, bob, cid) = (&table[0], &table[1], &table[2]);
    // A finished game (bob resigned: ann won), an active one, one ann created and one she
    // joined, both still open.
    let finished = two_player_game(&app, [ann, bob], json!({ "players": 2 })).await;
    resign(&app, bob, &finished).await;
    let before = verified_export(&app, bob, &finished).await;
    let active = two_player_game(&app, [ann, bob], json!({ "players": 2 })).await;
    let hers = id_of(&create(&app, ann, &json!({ "options": { "players": 2 } })).await);
    let joined = id_of(&create(&app, cid, &json!({ "options": { "players": 3 } })).await);
    join(&app, ann, &joined).await;

    // A registered account proves it with its password.
    let res = delete_me(&app, &ann.token, None).await;
    assert_problem(res, StatusCode::UNAUTHORIZED, "invalid_credentials").await;
    let res = delete_me(
        &app,
        &ann.token,
        Some(json!({ "password": "wrong password" })),
    )
    .await;
    assert_problem(res, StatusCode::UNAUTHORIZED, "invalid_credentials").await;
    assert_eq!(
        view(&app, bob, &active).await["status"],
        "active",
        "nothing done"
    );

    let res = delete_me(&app, &ann.token, Some(json!({ "password": TEST_PASSWORD }))).await;
    assert_eq!(res.status(), StatusCode::NO_CONTENT);

    // Her token is refused, for reading and for signing in again.
    let res = app.get("/v1/accounts/me", ann.token()).await;
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
    let res = app
        .post_json(
            "/v1/sessions",
            None,
            &json!({ "username": "ann", "password": TEST_PASSWORD }),
        )
        .await;
    assert_problem(res, StatusCode::UNAUTHORIZED, "invalid_credentials").await;

    // The active game: she resigned, bob won (R10.3); her seat shows her pseudonym now.
    let game = view(&app, bob, &active).await;
    assert_eq!(game["status"], "finished");
    assert_eq!(game["table"]["winners"], json!([1]));
    let pseudonym = game["players"][0]["username"]
        .as_str()
        .expect("a name")
        .to_string();
    assert!(pseudonym.starts_with("deleted-player-"), "{pseudonym}");
    verified_export(&app, bob, &active).await;
    // Her name is gone from everything the others read: views, logs, exports, lists, feeds.
    for path in [
        format!("/v1/games/{finished}"),
        format!("/v1/games/{finished}/events"),
        format!("/v1/games/{finished}/export"),
        format!("/v1/games/{active}/events"),
        format!("/v1/games/{joined}"),
        format!("/v1/games/{joined}/events"),
        "/v1/me/games".to_string(),
        "/v1/me/feed".to_string(),
    ] {
        for who in [bob, cid] {
            let text = app
                .get(&path, who.token())
                .await
                .text()
                .await
                .expect("a body");
            assert!(
                !text.contains("\"ann\""),
                "{path} as {} names her: {text}",
                who.name
            );
        }
    }
    let export = app
        .get(&format!("/v1/games/{finished}/export"), bob.token())
        .await
        .text()
        .await
        .expect("a body");
    assert!(
        export.contains(&pseudonym),
        "the export names her seat by the pseudonym"
    );
    // Her own open game is cancelled; the one she joined is open without her.
    assert_eq!(view(&app, bob, &hers).await["status"], "cancelled");
    let game = view(&app, cid, &joined).await;
    assert_eq!(game["status"], "open");
    assert_eq!(game["players"].as_array().map(Vec::len), Some(1));
    // The finished game is as it was: its export still verifies, the same.
    let after = verified_export(&app, bob, &finished).await;
    assert_eq!(
        (after.actions, after.rounds, after.winners),
        (before.actions, before.rounds, before.winners)
    );

    // The name is free again, for someone new.
    let (token, _) = app.register("ann").await;
    let me = json_body(
        app.get("/v1/accounts/me", Some(&token)).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(me["username"], "ann");
    // Nobody may take a deleted account's kind of name.
    let res = app
        .post_json(
            "/v1/accounts",
            None,
            &json!({ "username": "deleted-player-7f3a", "password": TEST_PASSWORD }),
        )
        .await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "invalid_username").await;
}

async fn a_guest_leaves_for_good_with_its_token_alone(app: TestApp) {
    // A server that takes a loopback webhook URL, to show the endpoint goes with the account.
    let app =
        crate::common::app::spawn_app_with(app.backend, |c| c.webhooks_allow_private = true).await;
    let (token, guest_id) = app.guest().await;
    let guest = Player {
        name: "guest".into(),
        token,
    };
    let table = players(&app, &["bob"]).await;
    let active = two_player_game(&app, [&guest, &table[0]], json!({ "players": 2 })).await;
    let hook = json!({ "url": "http://127.0.0.1:9/hook" });
    let res = app.post_json("/v1/me/webhooks", guest.token(), &hook).await;
    assert_eq!(res.status(), StatusCode::CREATED);
    let res = delete_me(&app, &guest.token, None).await;
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    let res = app.get("/v1/accounts/me", guest.token()).await;
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
    let game = view(&app, &table[0], &active).await;
    assert_eq!(game["status"], "finished");
    assert_eq!(game["table"]["winners"], json!([1]));
    let store = racko::store::Store::open(&app.db.url, 1).expect("the store opens");
    let hooks = store.webhooks(guest_id).expect("a read");
    assert!(hooks.is_empty(), "its webhook endpoints are deleted");
}
