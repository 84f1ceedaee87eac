//! Who may see, join and watch a game: public, unlisted and private games, spectators, and
//! invitations. A stranger gets exactly the answer for a game that does not exist, on every
//! path.

use reqwest::{header, StatusCode};
use serde_json::{json, Value};

use crate::common::app::{assert_problem, json_body, TestApp, TEST_PASSWORD};
use crate::sse::Stream;
use crate::tables::{players, Player};

both_stores!(
    new_games_are_unlisted_without_spectators,
    strangers_neither_see_nor_join_unlisted_or_private_games,
    the_invite_code_opens_an_unlisted_game_but_not_a_private_one,
    spectators_decide_who_watches_a_game_in_play,
    finished_games_are_open_to_auditors_when_public_or_watched,
    invitations_are_the_creators_and_bounded,
    a_rematch_keeps_the_table_and_invites_its_players,
    an_account_leaving_for_good_is_taken_off_every_invitation,
);

/// Creates a game with exactly this body (no defaults added, unlike `tables::create`).
pub(crate) async fn create_as(app: &TestApp, who: &Player, body: Value) -> Value {
    let res = app.post_json("/v1/games", who.token(), &body).await;
    json_body(res, StatusCode::CREATED).await
}

pub(crate) fn id_of(game: &Value) -> String {
    game["id"].as_str().expect("game id").to_string()
}

pub(crate) async fn join_by_id(app: &TestApp, who: &Player, id: &str) -> reqwest::Response {
    app.post_json(&format!("/v1/games/{id}/join"), who.token(), &json!({}))
        .await
}

pub(crate) async fn join_by_code(app: &TestApp, who: &Player, code: &Value) -> reqwest::Response {
    app.post_json(
        "/v1/games/join",
        who.token(),
        &json!({ "invite_code": code }),
    )
    .await
}

/// The answer's status, code and detail: what a stranger may compare with an unknown game's.
pub(crate) async fn refusal(res: reqwest::Response) -> (StatusCode, Value, Value) {
    let status = res.status();
    let body: Value = res.json().await.expect("a problem body");
    (status, body["code"].clone(), body["detail"].clone())
}

/// Every read and write a non-player can try on game `id`, each answered as for a game that
/// does not exist (the same status, code and detail as for an unknown id).
pub(crate) async fn assert_hidden(app: &TestApp, who: &Player, id: &str) {
    let unknown = uuid::Uuid::new_v4();
    let reads = [
        "",
        "/events",
        "/events?wait=1",
        "/hint",
        "/replay",
        "/export",
        "/verify",
    ];
    for path in reads {
        let expected = refusal(
            app.get(&format!("/v1/games/{unknown}{path}"), who.token())
                .await,
        )
        .await;
        assert_eq!(expected.0, StatusCode::NOT_FOUND, "{path}");
        let got = refusal(app.get(&format!("/v1/games/{id}{path}"), who.token()).await).await;
        assert_eq!(got, expected, "GET /v1/games/{{id}}{path}");
    }
    let writes = [
        ("/join", json!({})),
        ("/leave", json!({})),
        ("/rematch", json!({})),
        ("/resign", json!({ "version": 1 })),
        ("/invitations", json!({ "usernames": ["ann"] })),
        (
            "/actions",
            json!({ "version": 1, "action": { "type": "draw" } }),
        ),
    ];
    for (path, body) in writes {
        let expected = refusal(
            app.post_json(&format!("/v1/games/{unknown}{path}"), who.token(), &body)
                .await,
        )
        .await;
        assert_eq!(expected.0, StatusCode::NOT_FOUND, "{path}");
        let got = refusal(
            app.post_json(&format!("/v1/games/{id}{path}"), who.token(), &body)
                .await,
        )
        .await;
        assert_eq!(got, expected, "POST /v1/games/{{id}}{path}");
    }
    // The stream is refused before it opens.
    let res = app
        .request(
            reqwest::Method::GET,
            &format!("/v1/games/{id}/stream"),
            who.token(),
        )
        .header(header::ACCEPT, "text/event-stream")
        .send()
        .await
        .expect("answered");
    assert_problem(res, StatusCode::NOT_FOUND, "game_not_found").await;
}

/// The ids of the games a lobby page lists.
async fn lobby(app: &TestApp, who: &Player, status: &str) -> Vec<String> {
    let res = app
        .get(&format!("/v1/games?status={status}&limit=100"), who.token())
        .await;
    let page = json_body(res, StatusCode::OK).await;
    page["games"]
        .as_array()
        .expect("games")
        .iter()
        .map(id_of)
        .collect()
}

/// The ids of the open games that invite `who` (`/v1/me/games?filter=invited`).
async fn invited_to(app: &TestApp, who: &Player) -> Vec<String> {
    let res = app.get("/v1/me/games?filter=invited", who.token()).await;
    let page = json_body(res, StatusCode::OK).await;
    page["games"]
        .as_array()
        .expect("games")
        .iter()
        .map(id_of)
        .collect()
}

/// Resigns `who`'s seat at the game's current version (a two-player game then ends).
pub(crate) async fn resign(app: &TestApp, who: &Player, id: &str) {
    let view = json_body(
        app.get(&format!("/v1/games/{id}"), who.token()).await,
        StatusCode::OK,
    )
    .await;
    let res = app
        .post_json(
            &format!("/v1/games/{id}/resign"),
            who.token(),
            &json!({ "version": view["version"] }),
        )
        .await;
    json_body(res, StatusCode::OK).await;
}

async fn new_games_are_unlisted_without_spectators(app: TestApp) {
    let [ann] = players(&app, &["ann"]).await.try_into().ok().expect("one");
    let game = create_as(&app, &ann, json!({ "options": { "players": 2 } })).await;
    assert_eq!(game["visibility"], "unlisted");
    assert_eq!(game["spectators"], "nobody");
    assert_eq!(game["invited"], json!([]));
    let listed = create_as(
        &app,
        &ann,
        json!({ "options": { "players": 2 }, "visibility": "public", "spectators": "anyone" }),
    )
    .await;
    assert_eq!(listed["visibility"], "public");
    assert_eq!(listed["spectators"], "anyone");
    // The lobby lists the public game only; the creator's own list has both.
    assert_eq!(lobby(&app, &ann, "open").await, vec![id_of(&listed)]);
    let mine = json_body(app.get("/v1/me/games", ann.token()).await, StatusCode::OK).await;
    assert_eq!(mine["games"].as_array().map(Vec::len), Some(2));
    assert_eq!(mine["games"][1]["visibility"], "unlisted");
    // Values outside the enums are refused.
    for body in [
        json!({ "visibility": "secret" }),
        json!({ "spectators": "friends_of_friends" }),
        json!({ "invite": "bob" }),
    ] {
        let res = app.post_json("/v1/games", ann.token(), &body).await;
        assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "invalid_body").await;
    }
}

async fn strangers_neither_see_nor_join_unlisted_or_private_games(app: TestApp) {
    let [ann, ivy, sam] = players(&app, &["ann", "ivy", "sam"])
        .await
        .try_into()
        .ok()
        .expect("three");
    let unlisted = id_of(&create_as(&app, &ann, json!({ "options": { "players": 3 } })).await);
    let private = create_as(
        &app,
        &ann,
        json!({ "options": { "players": 3 }, "visibility": "private", "invite": ["IVY"] }),
    )
    .await;
    assert_eq!(private["invited"], json!(["ivy"]));
    let private = id_of(&private);
    let public = id_of(
        &create_as(
            &app,
            &ann,
            json!({ "options": { "players": 3 }, "visibility": "public" }),
        )
        .await,
    );
    assert_eq!(lobby(&app, &sam, "open").await, vec![public.clone()]);
    for id in [&unlisted, &private] {
        assert_hidden(&app, &sam, id).await;
    }
    // The public game is seen and joined as before.
    let res = app.get(&format!("/v1/games/{public}"), sam.token()).await;
    assert_eq!(json_body(res, StatusCode::OK).await["my_seat"], Value::Null);
    let res = join_by_id(&app, &sam, &public).await;
    assert_eq!(json_body(res, StatusCode::OK).await["my_seat"], 1);

    // The invited account sees the private game (but not its invite code) and joins it by id.
    let res = app.get(&format!("/v1/games/{private}"), ivy.token()).await;
    let seen = json_body(res, StatusCode::OK).await;
    assert_eq!(seen["invite_code"], Value::Null);
    assert_eq!(seen["invited"], json!([]), "the list is for the players");
    let res = join_by_id(&app, &ivy, &private).await;
    assert_eq!(json_body(res, StatusCode::OK).await["my_seat"], 1);
    // Still hidden from the stranger, whose feed knows nothing of either game.
    assert_hidden(&app, &sam, &private).await;
    let feed = json_body(app.get("/v1/me/feed", sam.token()).await, StatusCode::OK).await;
    let named: Vec<&Value> = feed["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|item| &item["game_id"])
        .collect();
    for id in [&unlisted, &private] {
        assert!(!named.contains(&&json!(id)), "{feed}");
    }
}

async fn the_invite_code_opens_an_unlisted_game_but_not_a_private_one(app: TestApp) {
    let [ann, ben, sam] = players(&app, &["ann", "ben", "sam"])
        .await
        .try_into()
        .ok()
        .expect("three");
    let unlisted = create_as(&app, &ann, json!({ "options": { "players": 3 } })).await;
    let res = join_by_code(&app, &ben, &unlisted["invite_code"]).await;
    let joined = json_body(res, StatusCode::OK).await;
    assert_eq!(joined["my_seat"], 1);
    // Seated, ben sees the game; the stranger still does not.
    let res = app
        .get(&format!("/v1/games/{}", id_of(&unlisted)), ben.token())
        .await;
    json_body(res, StatusCode::OK).await;
    assert_hidden(&app, &sam, &id_of(&unlisted)).await;

    // A private game's code admits nobody uninvited: the answer of an unknown code.
    let private = create_as(
        &app,
        &ann,
        json!({ "options": { "players": 2 }, "visibility": "private", "invite": ["ben"] }),
    )
    .await;
    let expected = refusal(join_by_code(&app, &sam, &json!("ZZZZ-ZZZZ")).await).await;
    assert_eq!(expected.0, StatusCode::NOT_FOUND);
    let got = refusal(join_by_code(&app, &sam, &private["invite_code"]).await).await;
    assert_eq!(got, expected);
    let res = join_by_code(&app, &ben, &private["invite_code"]).await;
    assert_eq!(json_body(res, StatusCode::OK).await["status"], "active");
}

async fn spectators_decide_who_watches_a_game_in_play(app: TestApp) {
    let [ann, bob, sam] = players(&app, &["ann", "bob", "sam"])
        .await
        .try_into()
        .ok()
        .expect("three");
    let start = |visibility: &'static str, spectators: &'static str| {
        let (app, ann, bob) = (&app, &ann, &bob);
        async move {
            let body = json!({
                "options": { "players": 2 },
                "visibility": visibility,
                "spectators": spectators,
                "invite": ["bob"],
            });
            let id = id_of(&create_as(app, ann, body).await);
            json_body(join_by_id(app, bob, &id).await, StatusCode::OK).await;
            id
        }
    };
    let closed = start("public", "nobody").await;
    let watched = start("public", "anyone").await;
    let watched_private = start("private", "anyone").await;

    // Nobody watches: the game in play is hidden from a stranger on every path.
    assert_hidden(&app, &sam, &closed).await;
    // Anyone watches: the public view (no rack), the log, the stream and the long-poll.
    for id in [&watched, &watched_private] {
        let res = app.get(&format!("/v1/games/{id}"), sam.token()).await;
        let seen = json_body(res, StatusCode::OK).await;
        assert_eq!(seen["status"], "active");
        assert_eq!(seen["my_seat"], Value::Null);
        assert_eq!(seen["invite_code"], Value::Null);
        assert_eq!(
            seen["table"]["rack"],
            Value::Null,
            "a spectator has no rack"
        );
        let res = app
            .get(&format!("/v1/games/{id}/events?wait=1"), sam.token())
            .await;
        let page = json_body(res, StatusCode::OK).await;
        assert_eq!(page["events"][0]["kind"], "game_created");
        let mut stream =
            Stream::open(&app, &format!("/v1/games/{id}/stream"), sam.token(), None).await;
        let first = stream
            .next(std::time::Duration::from_secs(5))
            .await
            .expect("the log so far");
        assert_eq!(first.id, 1);
        // A watcher is no player: he cannot act or ask for a hint.
        let res = app.get(&format!("/v1/games/{id}/hint"), sam.token()).await;
        assert_problem(res, StatusCode::FORBIDDEN, "not_a_player").await;
    }
    // The lobby of games to watch lists the public, watched one only.
    assert_eq!(lobby(&app, &sam, "active").await, vec![watched.clone()]);
}

async fn finished_games_are_open_to_auditors_when_public_or_watched(app: TestApp) {
    let [ann, bob, sam] = players(&app, &["ann", "bob", "sam"])
        .await
        .try_into()
        .ok()
        .expect("three");
    let mut games = Vec::new();
    for (visibility, spectators) in [
        ("public", "nobody"),
        ("unlisted", "anyone"),
        ("unlisted", "nobody"),
        ("private", "nobody"),
    ] {
        let body = json!({
            "options": { "players": 2 },
            "visibility": visibility,
            "spectators": spectators,
            "invite": ["bob"],
        });
        let id = id_of(&create_as(&app, &ann, body).await);
        json_body(join_by_id(&app, &bob, &id).await, StatusCode::OK).await;
        resign(&app, &ann, &id).await;
        games.push(id);
    }
    for id in &games[..2] {
        for path in ["", "/events", "/replay", "/export", "/verify"] {
            let res = app.get(&format!("/v1/games/{id}{path}"), sam.token()).await;
            assert_eq!(res.status(), StatusCode::OK, "{path}");
        }
    }
    for id in &games[2..] {
        assert_hidden(&app, &sam, id).await;
        // Its players still read its record.
        let res = app
            .get(&format!("/v1/games/{id}/export"), bob.token())
            .await;
        json_body(res, StatusCode::OK).await;
    }
    assert_eq!(lobby(&app, &sam, "finished").await, vec![games[0].clone()]);
}

async fn invitations_are_the_creators_and_bounded(app: TestApp) {
    let names = [
        "ann", "ivy", "joe", "sam", "inv1", "inv2", "inv3", "inv4", "inv5",
    ];
    let table = players(&app, &names).await;
    let (ann, ivy, joe, sam) = (&table[0], &table[1], &table[2], &table[3]);
    let game = create_as(
        &app,
        ann,
        json!({ "options": { "players": 3 }, "visibility": "private", "invite": ["ivy"] }),
    )
    .await;
    let id = id_of(&game);
    let invite = |who: &Player, usernames: Value| {
        let path = format!("/v1/games/{id}/invitations");
        let body = json!({ "usernames": usernames });
        let token = who.token.clone();
        let app = &app;
        async move { app.post_json(&path, Some(&token), &body).await }
    };
    // The creator adds joe; inviting again (or a seated player, or himself) changes nothing.
    let res = invite(ann, json!(["joe", "Ivy", "ann"])).await;
    let version = res.headers().get(header::ETAG).cloned();
    let invited = json_body(res, StatusCode::OK).await;
    assert_eq!(invited["invited"], json!(["ivy", "joe"]));
    assert_eq!(invited["version"], 2);
    assert_eq!(
        version.as_ref().map(|v| v.to_str().ok()),
        Some(Some("\"2\""))
    );
    let res = invite(ann, json!(["nobody_here"])).await;
    assert_problem(res, StatusCode::NOT_FOUND, "player_not_found").await;
    let res = invite(ann, json!([])).await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "invalid_body").await;
    let seven = json!(["inv1", "inv2", "inv3", "inv4", "inv5", "sam", "joe"]);
    let res = invite(ann, seven).await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "invalid_body").await;
    // Six in all: ivy, joe and four more; a seventh is refused.
    let res = invite(ann, json!(["inv1", "inv2", "inv3", "inv4"])).await;
    json_body(res, StatusCode::OK).await;
    let res = invite(ann, json!(["inv5"])).await;
    assert_problem(res, StatusCode::CONFLICT, "too_many_invitations").await;
    // Invited accounts find the game in their list; nobody else does.
    assert_eq!(invited_to(&app, &table[4]).await, vec![id.clone()]);
    assert_eq!(invited_to(&app, sam).await, Vec::<String>::new());
    // A stranger cannot invite (nor learn the game exists); a seated player who is not the
    // creator is told so.
    let res = invite(sam, json!(["sam"])).await;
    assert_problem(res, StatusCode::NOT_FOUND, "game_not_found").await;
    json_body(join_by_id(&app, ivy, &id).await, StatusCode::OK).await;
    let res = invite(ivy, json!(["inv5"])).await;
    assert_problem(res, StatusCode::FORBIDDEN, "not_the_creator").await;
    assert_eq!(invited_to(&app, ivy).await, Vec::<String>::new(), "joined");
    // joe, invited later, joins with the code; the table is full and the game starts.
    let res = join_by_code(&app, joe, &game["invite_code"]).await;
    assert_eq!(json_body(res, StatusCode::OK).await["status"], "active");
    let res = invite(ann, json!(["inv5"])).await;
    assert_problem(res, StatusCode::CONFLICT, "game_started").await;
    assert_eq!(
        invited_to(&app, &table[4]).await,
        Vec::<String>::new(),
        "started"
    );
    // An account invited to the table still sees the game it did not join; a stranger not.
    let res = app.get(&format!("/v1/games/{id}"), table[4].token()).await;
    json_body(res, StatusCode::OK).await;
    assert_hidden(&app, sam, &id).await;
}

async fn a_rematch_keeps_the_table_and_invites_its_players(app: TestApp) {
    let [ann, bob, sam] = players(&app, &["ann", "bob", "sam"])
        .await
        .try_into()
        .ok()
        .expect("three");
    let body = json!({ "options": { "players": 2 }, "visibility": "private", "invite": ["bob"] });
    let old = id_of(&create_as(&app, &ann, body).await);
    json_body(join_by_id(&app, &bob, &old).await, StatusCode::OK).await;
    resign(&app, &ann, &old).await;
    // The stranger cannot ask for (or into) the rematch of a game he may not see.
    assert_hidden(&app, &sam, &old).await;
    let res = app
        .post_json(&format!("/v1/games/{old}/rematch"), bob.token(), &json!({}))
        .await;
    let rematch = json_body(res, StatusCode::CREATED).await;
    assert_eq!(rematch["visibility"], "private");
    assert_eq!(rematch["spectators"], "nobody");
    assert_eq!(rematch["invited"], json!(["ann"]));
    let new = id_of(&rematch);
    assert_hidden(&app, &sam, &new).await;
    let res = join_by_code(&app, &sam, &rematch["invite_code"]).await;
    assert_problem(res, StatusCode::NOT_FOUND, "game_not_found").await;
    // The old game's other player takes his seat, by the rematch call (or by id).
    let res = app
        .post_json(&format!("/v1/games/{old}/rematch"), ann.token(), &json!({}))
        .await;
    let seated = json_body(res, StatusCode::OK).await;
    assert_eq!(seated["id"], json!(new));
    assert_eq!(seated["status"], "active");
}

async fn an_account_leaving_for_good_is_taken_off_every_invitation(app: TestApp) {
    let [ann, ivy, joe] = players(&app, &["ann", "ivy", "joe"])
        .await
        .try_into()
        .ok()
        .expect("three");
    let body =
        json!({ "options": { "players": 3 }, "visibility": "private", "invite": ["ivy", "joe"] });
    let id = id_of(&create_as(&app, &ann, body).await);
    let res = app
        .request(reqwest::Method::DELETE, "/v1/accounts/me", ivy.token())
        .json(&json!({ "password": TEST_PASSWORD }))
        .send()
        .await
        .expect("answered");
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    // Her name is gone from the list; the game waits for joe alone.
    let res = app.get(&format!("/v1/games/{id}"), ann.token()).await;
    assert_eq!(
        json_body(res, StatusCode::OK).await["invited"],
        json!(["joe"])
    );
    assert_eq!(invited_to(&app, &joe).await, vec![id]);
}
