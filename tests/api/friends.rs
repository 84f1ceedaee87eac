//! Friends (with acceptance), blocks, games the players' friends may watch, the `invited` feed
//! item and withdrawn invitations. A blocked account reaches the blocker on no path: no
//! friend request, no invitation, no seat at a table the blocker sits at (by id, by code,
//! by rematch), no watching as a friend.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::common::app::{assert_problem, json_body, TestApp, TEST_PASSWORD};
use crate::common::db::TestBackend;
use crate::sse::Stream;
use crate::tables::{players, Player};
use crate::visibility::{
    assert_hidden, create_as, id_of, join_by_code, join_by_id, refusal, resign,
};

both_stores!(
    a_friend_request_is_accepted_declined_withdrawn_or_removed,
    friend_requests_refuse_bad_names_and_repeats,
    a_block_ends_the_friendship_and_keeps_the_blocked_out_of_every_path,
    the_players_friends_watch_a_game_that_lets_them,
    an_invitation_puts_an_invited_item_in_the_feed,
    a_withdrawn_invitation_takes_its_access_away,
    an_account_leaving_for_good_leaves_no_friendship_or_block_behind,
);

async fn send(
    app: &TestApp,
    method: Method,
    path: &str,
    who: &Player,
    body: Option<Value>,
) -> reqwest::Response {
    let mut req = app.request(method, path, who.token());
    if let Some(body) = body {
        req = req.json(&body);
    }
    req.send().await.expect("answered")
}

async fn befriend(app: &TestApp, who: &Player, name: &str) -> reqwest::Response {
    send(
        app,
        Method::POST,
        "/v1/me/friends",
        who,
        Some(json!({ "username": name })),
    )
    .await
}

async fn accept(app: &TestApp, who: &Player, name: &str) -> reqwest::Response {
    let path = format!("/v1/me/friends/requests/{name}/accept");
    send(app, Method::POST, &path, who, None).await
}

async fn block(app: &TestApp, who: &Player, name: &str) -> reqwest::Response {
    send(
        app,
        Method::POST,
        "/v1/me/blocks",
        who,
        Some(json!({ "username": name })),
    )
    .await
}

/// The usernames in each of `who`'s lists: (friends, incoming, outgoing).
async fn circle(app: &TestApp, who: &Player) -> (Vec<String>, Vec<String>, Vec<String>) {
    let body = json_body(app.get("/v1/me/friends", who.token()).await, StatusCode::OK).await;
    let names = |list: &str| -> Vec<String> {
        body[list]
            .as_array()
            .unwrap_or_else(|| panic!("{list} in {body}"))
            .iter()
            .map(|p| p["username"].as_str().expect("a name").to_string())
            .collect()
    };
    (names("friends"), names("incoming"), names("outgoing"))
}

async fn friends_of(app: &TestApp, a: &Player, b: &Player) {
    json_body(befriend(app, a, &b.name).await, StatusCode::CREATED).await;
    assert_eq!(
        accept(app, b, &a.name).await.status(),
        StatusCode::NO_CONTENT
    );
}

fn none() -> Vec<String> {
    Vec::new()
}

async fn a_friend_request_is_accepted_declined_withdrawn_or_removed(app: TestApp) {
    let [ann, bob, cat] = players(&app, &["ann", "bob", "cat"])
        .await
        .try_into()
        .ok()
        .expect("three");
    let asked = json_body(befriend(&app, &ann, "BOB").await, StatusCode::CREATED).await;
    assert_eq!(asked, json!({ "username": "bob", "status": "requested" }));
    assert_eq!(
        circle(&app, &ann).await,
        (none(), none(), vec!["bob".into()])
    );
    assert_eq!(
        circle(&app, &bob).await,
        (none(), vec!["ann".into()], none())
    );
    assert_eq!(
        accept(&app, &bob, "ann").await.status(),
        StatusCode::NO_CONTENT
    );
    assert_eq!(
        circle(&app, &ann).await,
        (vec!["bob".into()], none(), none())
    );
    assert_eq!(
        circle(&app, &bob).await,
        (vec!["ann".into()], none(), none())
    );
    // Accepting twice: there is no request left.
    let res = accept(&app, &bob, "ann").await;
    assert_problem(res, StatusCode::NOT_FOUND, "friend_request_not_found").await;

    // Asking back an account that asked first is accepting its request.
    json_body(befriend(&app, &cat, "ann").await, StatusCode::CREATED).await;
    let both = json_body(befriend(&app, &ann, "cat").await, StatusCode::OK).await;
    assert_eq!(both["status"], "friends");
    assert_eq!(circle(&app, &ann).await.0, vec!["bob", "cat"]);

    // Removing: either side; then it is gone for both.
    let res = send(&app, Method::DELETE, "/v1/me/friends/ann", &cat, None).await;
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    assert_eq!(circle(&app, &ann).await.0, vec!["bob"]);
    let res = send(&app, Method::DELETE, "/v1/me/friends/ann", &cat, None).await;
    assert_problem(res, StatusCode::NOT_FOUND, "friend_not_found").await;

    // Declining (the addressee) and withdrawing (the asker) both end a request.
    json_body(befriend(&app, &cat, "bob").await, StatusCode::CREATED).await;
    let res = send(
        &app,
        Method::DELETE,
        "/v1/me/friends/requests/cat",
        &bob,
        None,
    )
    .await;
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    assert_eq!(circle(&app, &cat).await, (none(), none(), none()));
    json_body(befriend(&app, &cat, "bob").await, StatusCode::CREATED).await;
    let res = send(
        &app,
        Method::DELETE,
        "/v1/me/friends/requests/bob",
        &cat,
        None,
    )
    .await;
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    assert_eq!(
        circle(&app, &bob).await,
        (vec!["ann".into()], none(), none())
    );
    let res = send(
        &app,
        Method::DELETE,
        "/v1/me/friends/requests/bob",
        &cat,
        None,
    )
    .await;
    assert_problem(res, StatusCode::NOT_FOUND, "friend_request_not_found").await;
    // A request is not a friendship to remove, nor a friendship a request to decline.
    let res = send(
        &app,
        Method::DELETE,
        "/v1/me/friends/requests/bob",
        &ann,
        None,
    )
    .await;
    assert_problem(res, StatusCode::NOT_FOUND, "friend_request_not_found").await;
}

async fn friend_requests_refuse_bad_names_and_repeats(app: TestApp) {
    let [ann, bob] = players(&app, &["ann", "bob"])
        .await
        .try_into()
        .ok()
        .expect("two");
    assert_problem(
        befriend(&app, &ann, "ann").await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "own_account",
    )
    .await;
    assert_problem(
        block(&app, &ann, "Ann").await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "own_account",
    )
    .await;
    assert_problem(
        befriend(&app, &ann, "nobody_here").await,
        StatusCode::NOT_FOUND,
        "player_not_found",
    )
    .await;
    let res = send(
        &app,
        Method::POST,
        "/v1/me/friends",
        &ann,
        Some(json!({ "name": "bob" })),
    )
    .await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "invalid_body").await;
    let res = send(
        &app,
        Method::POST,
        "/v1/me/friends",
        &ann,
        Some(json!({ "username": "b".repeat(65) })),
    )
    .await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "invalid_body").await;
    json_body(befriend(&app, &ann, "bob").await, StatusCode::CREATED).await;
    assert_problem(
        befriend(&app, &ann, "bob").await,
        StatusCode::CONFLICT,
        "friend_request_exists",
    )
    .await;
    assert_eq!(
        accept(&app, &bob, "ann").await.status(),
        StatusCode::NO_CONTENT
    );
    assert_problem(
        befriend(&app, &bob, "ann").await,
        StatusCode::CONFLICT,
        "already_friends",
    )
    .await;
    let res = send(&app, Method::DELETE, "/v1/me/blocks/bob", &ann, None).await;
    assert_problem(res, StatusCode::NOT_FOUND, "block_not_found").await;
    // Without a token: 401, as everywhere.
    let res = app.get("/v1/me/friends", None).await;
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
}

async fn a_block_ends_the_friendship_and_keeps_the_blocked_out_of_every_path(app: TestApp) {
    let [ann, bob, cat] = players(&app, &["ann", "bob", "cat"])
        .await
        .try_into()
        .ok()
        .expect("three");
    friends_of(&app, &ann, &bob).await;
    // A game ann and bob played, for the rematch below.
    let body = json!({ "options": { "players": 2 }, "visibility": "public", "invite": ["bob"] });
    let old = id_of(&create_as(&app, &ann, body).await);
    json_body(join_by_id(&app, &bob, &old).await, StatusCode::OK).await;
    resign(&app, &bob, &old).await;

    let blocked = json_body(block(&app, &ann, "bob").await, StatusCode::OK).await;
    assert_eq!(blocked["username"], "bob");
    json_body(block(&app, &ann, "bob").await, StatusCode::OK).await;
    let list = json_body(app.get("/v1/me/blocks", ann.token()).await, StatusCode::OK).await;
    assert_eq!(list["blocked"].as_array().map(Vec::len), Some(1), "{list}");
    // The friendship ended, for both.
    assert_eq!(circle(&app, &ann).await, (none(), none(), none()));
    assert_eq!(circle(&app, &bob).await, (none(), none(), none()));

    // Neither may ask the other to be friends.
    assert_problem(
        befriend(&app, &bob, "ann").await,
        StatusCode::FORBIDDEN,
        "blocked",
    )
    .await;
    assert_problem(
        befriend(&app, &ann, "bob").await,
        StatusCode::FORBIDDEN,
        "blocked",
    )
    .await;
    // Nor invite the other: at creation, or later.
    let res = app
        .post_json("/v1/games", bob.token(), &json!({ "invite": ["ann"] }))
        .await;
    assert_problem(res, StatusCode::FORBIDDEN, "blocked").await;
    let theirs = id_of(&create_as(&app, &bob, json!({ "options": { "players": 3 } })).await);
    let res = app
        .post_json(
            &format!("/v1/games/{theirs}/invitations"),
            bob.token(),
            &json!({ "usernames": ["ann"] }),
        )
        .await;
    assert_problem(res, StatusCode::FORBIDDEN, "blocked").await;

    // Nor join ann's open games: public by id, unlisted by code, the rematch; each answered as
    // a game that does not exist.
    let public = create_as(
        &app,
        &ann,
        json!({ "options": { "players": 3 }, "visibility": "public" }),
    )
    .await;
    let unknown = refusal(join_by_id(&app, &bob, &uuid::Uuid::new_v4().to_string()).await).await;
    assert_eq!(
        refusal(join_by_id(&app, &bob, &id_of(&public)).await).await,
        unknown
    );
    let unknown_code = refusal(join_by_code(&app, &bob, &json!("ZZZZZZZZ")).await).await;
    let got = refusal(join_by_code(&app, &bob, &public["invite_code"]).await).await;
    assert_eq!(got, unknown_code);
    let unlisted = create_as(&app, &ann, json!({ "options": { "players": 3 } })).await;
    let got = refusal(join_by_code(&app, &bob, &unlisted["invite_code"]).await).await;
    assert_eq!(got, unknown_code);
    let rematch = app
        .post_json(&format!("/v1/games/{old}/rematch"), ann.token(), &json!({}))
        .await;
    let rematch = json_body(rematch, StatusCode::CREATED).await;
    assert_eq!(
        rematch["invited"],
        json!([]),
        "bob is not invited to ann's rematch"
    );
    let res = app
        .post_json(&format!("/v1/games/{old}/rematch"), bob.token(), &json!({}))
        .await;
    assert_problem(res, StatusCode::NOT_FOUND, "game_not_found").await;
    // Nor may ann sit at bob's table.
    assert_eq!(
        refusal(join_by_id(&app, &ann, &theirs).await).await.0,
        StatusCode::NOT_FOUND
    );
    // Someone else still joins.
    json_body(
        join_by_id(&app, &cat, &id_of(&public)).await,
        StatusCode::OK,
    )
    .await;

    // Lifted, the paths open again.
    let res = send(&app, Method::DELETE, "/v1/me/blocks/bob", &ann, None).await;
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    json_body(
        join_by_id(&app, &bob, &id_of(&public)).await,
        StatusCode::OK,
    )
    .await;
    json_body(befriend(&app, &bob, "ann").await, StatusCode::CREATED).await;
}

/// Starts a two-player game of ann and bob with these spectators; its id.
async fn start_with(app: &TestApp, ann: &Player, bob: &Player, spectators: &str) -> String {
    let body = json!({
        "options": { "players": 2 },
        "visibility": "private",
        "spectators": spectators,
        "invite": [bob.name],
    });
    let id = id_of(&create_as(app, ann, body).await);
    json_body(join_by_id(app, bob, &id).await, StatusCode::OK).await;
    id
}

async fn the_players_friends_watch_a_game_that_lets_them(app: TestApp) {
    let [ann, bob, fay, sam] = players(&app, &["ann", "bob", "fay", "sam"])
        .await
        .try_into()
        .ok()
        .expect("four");
    // fay is bob's friend (not ann's); sam is nobody's.
    friends_of(&app, &fay, &bob).await;
    let watched = start_with(&app, &ann, &bob, "friends").await;
    let closed = start_with(&app, &ann, &bob, "nobody").await;
    let game = json_body(
        app.get(&format!("/v1/games/{watched}"), ann.token()).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(game["spectators"], "friends");

    // fay watches as a spectator: the view without a rack, the log, the stream.
    let seen = json_body(
        app.get(&format!("/v1/games/{watched}"), fay.token()).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(seen["status"], "active");
    assert_eq!(seen["my_seat"], Value::Null);
    assert_eq!(
        seen["table"]["rack"],
        Value::Null,
        "a spectator has no rack"
    );
    let page = json_body(
        app.get(&format!("/v1/games/{watched}/events"), fay.token())
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(page["events"][0]["kind"], "game_created");
    let mut stream = Stream::open(
        &app,
        &format!("/v1/games/{watched}/stream"),
        fay.token(),
        None,
    )
    .await;
    let first = stream
        .next(std::time::Duration::from_secs(5))
        .await
        .expect("the log so far");
    assert_eq!(first.id, 1);
    drop(stream);
    // A friend is no player: no hint, no action (as for a stranger).
    let res = app
        .get(&format!("/v1/games/{watched}/hint"), fay.token())
        .await;
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    // Not the game that lets nobody watch; and a stranger sees neither.
    assert_hidden(&app, &fay, &closed).await;
    assert_hidden(&app, &sam, &watched).await;
    assert_hidden(&app, &sam, &closed).await;

    // The friendship ends: so does the watching.
    let res = send(&app, Method::DELETE, "/v1/me/friends/fay", &bob, None).await;
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    assert_hidden(&app, &fay, &watched).await;
    // Friends again, then bob blocks fay: the block ends the friendship, and the watching.
    friends_of(&app, &fay, &bob).await;
    json_body(
        app.get(&format!("/v1/games/{watched}"), fay.token()).await,
        StatusCode::OK,
    )
    .await;
    json_body(block(&app, &bob, "fay").await, StatusCode::OK).await;
    assert_hidden(&app, &fay, &watched).await;

    // Finished, the game stays for the players' friends (as for auditors).
    friends_of(&app, &sam, &ann).await;
    resign(&app, &ann, &watched).await;
    for path in ["", "/events", "/replay", "/export", "/verify"] {
        let res = app
            .get(&format!("/v1/games/{watched}{path}"), sam.token())
            .await;
        assert_eq!(res.status(), StatusCode::OK, "{path}");
    }
}

/// `who`'s feed items of this kind.
async fn feed_items(app: &TestApp, who: &Player, kind: &str) -> Vec<Value> {
    let feed = json_body(app.get("/v1/me/feed", who.token()).await, StatusCode::OK).await;
    feed["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter(|item| item["kind"] == kind)
        .cloned()
        .collect()
}

async fn an_invitation_puts_an_invited_item_in_the_feed(app: TestApp) {
    let [ann, bob, cat] = players(&app, &["ann", "bob", "cat"])
        .await
        .try_into()
        .ok()
        .expect("three");
    friends_of(&app, &ann, &bob).await;
    let mut stream = Stream::open(&app, "/v1/me/stream", bob.token(), None).await;
    let game = create_as(
        &app,
        &ann,
        json!({ "options": { "players": 3 }, "visibility": "private", "invite": ["bob"] }),
    )
    .await;
    let id = id_of(&game);
    let frame = stream
        .next(std::time::Duration::from_secs(5))
        .await
        .expect("an item");
    assert_eq!(frame.data["kind"], "invited", "{frame:?}");
    assert_eq!(frame.data["game_id"], json!(id));
    assert_eq!(frame.data["data"]["by"], "ann");
    assert_eq!(
        frame.data["data"]["seats"],
        json!([{ "seat": 0, "username": "ann" }])
    );
    assert_eq!(feed_items(&app, &bob, "invited").await.len(), 1);
    // Invited later: the item then; inviting again tells nobody twice.
    let path = format!("/v1/games/{id}/invitations");
    for _ in 0..2 {
        let res = app
            .post_json(&path, ann.token(), &json!({ "usernames": ["cat", "bob"] }))
            .await;
        json_body(res, StatusCode::OK).await;
    }
    let items = feed_items(&app, &cat, "invited").await;
    assert_eq!(items.len(), 1, "{items:?}");
    assert_eq!(items[0]["game_id"], json!(id));
    assert_eq!(feed_items(&app, &bob, "invited").await.len(), 1);
    // The creator is told nothing of her own invitations.
    assert!(feed_items(&app, &ann, "invited").await.is_empty());
}

async fn a_withdrawn_invitation_takes_its_access_away(app: TestApp) {
    let names = [
        "ann", "bob", "cat", "joe", "inv1", "inv2", "inv3", "inv4", "inv5", "inv6",
    ];
    let table = players(&app, &names).await;
    let (ann, bob, cat, joe) = (&table[0], &table[1], &table[2], &table[3]);
    let game = create_as(
        &app,
        ann,
        json!({ "options": { "players": 4 }, "visibility": "private", "invite": ["bob", "cat"] }),
    )
    .await;
    let id = id_of(&game);
    json_body(
        app.get(&format!("/v1/games/{id}"), bob.token()).await,
        StatusCode::OK,
    )
    .await;
    let withdraw = |who: &Player, name: &str| {
        let path = format!("/v1/games/{id}/invitations/{name}");
        let (app, token) = (&app, who.token.clone());
        async move {
            app.request(Method::DELETE, &path, Some(&token))
                .send()
                .await
                .expect("answered")
        }
    };
    // Only the creator; a stranger learns nothing of the game.
    json_body(join_by_id(&app, cat, &id).await, StatusCode::OK).await;
    assert_problem(
        withdraw(cat, "bob").await,
        StatusCode::FORBIDDEN,
        "not_the_creator",
    )
    .await;
    assert_problem(
        withdraw(joe, "bob").await,
        StatusCode::NOT_FOUND,
        "game_not_found",
    )
    .await;
    // Withdrawn: bob no longer sees the private game, nor joins it.
    let res = withdraw(ann, "BOB").await;
    let game = json_body(res, StatusCode::OK).await;
    assert_eq!(game["invited"], json!(["cat"]));
    assert_hidden(&app, bob, &id).await;
    assert_problem(
        withdraw(ann, "bob").await,
        StatusCode::NOT_FOUND,
        "invitation_not_found",
    )
    .await;
    assert_problem(
        withdraw(ann, "nobody_here").await,
        StatusCode::NOT_FOUND,
        "invitation_not_found",
    )
    .await;
    // cat has taken her seat: nothing to withdraw.
    assert_problem(
        withdraw(ann, "cat").await,
        StatusCode::CONFLICT,
        "invitee_seated",
    )
    .await;

    // The bound counts invitations not taken up: cat's seat leaves room for six more.
    let path = format!("/v1/games/{id}/invitations");
    let six = json!({ "usernames": ["inv1", "inv2", "inv3", "inv4", "inv5", "inv6"] });
    json_body(
        app.post_json(&path, ann.token(), &six).await,
        StatusCode::OK,
    )
    .await;
    let res = app
        .post_json(&path, ann.token(), &json!({ "usernames": ["joe"] }))
        .await;
    assert_problem(res, StatusCode::CONFLICT, "too_many_invitations").await;
    json_body(withdraw(ann, "inv5").await, StatusCode::OK).await;
    let res = app
        .post_json(&path, ann.token(), &json!({ "usernames": ["joe"] }))
        .await;
    let game = json_body(res, StatusCode::OK).await;
    assert_eq!(
        game["invited"],
        json!(["cat", "inv1", "inv2", "inv3", "inv4", "inv6", "joe"])
    );

    // Once the game has started there is nothing to withdraw.
    json_body(join_by_id(&app, &table[4], &id).await, StatusCode::OK).await;
    json_body(join_by_id(&app, &table[5], &id).await, StatusCode::OK).await;
    assert_problem(
        withdraw(ann, "inv3").await,
        StatusCode::CONFLICT,
        "game_started",
    )
    .await;
}

async fn an_account_leaving_for_good_leaves_no_friendship_or_block_behind(app: TestApp) {
    let [ann, bob, cat] = players(&app, &["ann", "bob", "cat"])
        .await
        .try_into()
        .ok()
        .expect("three");
    friends_of(&app, &ann, &bob).await;
    json_body(befriend(&app, &ann, "cat").await, StatusCode::CREATED).await;
    json_body(block(&app, &cat, "bob").await, StatusCode::OK).await;
    json_body(block(&app, &bob, "ann").await, StatusCode::OK).await;
    assert_eq!(
        accept(&app, &cat, "ann").await.status(),
        StatusCode::NO_CONTENT
    );
    let res = app
        .request(Method::DELETE, "/v1/accounts/me", bob.token())
        .json(&json!({ "password": TEST_PASSWORD }))
        .send()
        .await
        .expect("answered");
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    // bob is gone from every list: ann's, cat's (friends, requests, blocks).
    assert_eq!(
        circle(&app, &ann).await,
        (vec!["cat".into()], none(), none())
    );
    let list = json_body(app.get("/v1/me/blocks", cat.token()).await, StatusCode::OK).await;
    assert_eq!(list["blocked"], json!([]));
    // No row is left of bob's: ann and cat's friendship only.
    assert_eq!(count(&app, "friendships"), 1);
    assert_eq!(count(&app, "blocks"), 0);
}

/// The rows of `table`, read from the database itself.
fn count(app: &TestApp, table: &str) -> i64 {
    use diesel::{sql_types::BigInt, Connection, PgConnection, RunQueryDsl, SqliteConnection};
    let query = diesel::select(diesel::dsl::sql::<BigInt>(&format!(
        "(SELECT COUNT(*) FROM {table})"
    )));
    match app.backend {
        TestBackend::Postgres => {
            let mut conn = PgConnection::establish(&app.db.url).expect("connect");
            query.get_result(&mut conn).expect("counted")
        }
        TestBackend::Sqlite => {
            let path = app.db.url.trim_start_matches("sqlite://");
            let mut conn = SqliteConnection::establish(path).expect("connect");
            query.get_result(&mut conn).expect("counted")
        }
    }
}
