//! Invitations are pushed by default, in the device's language, naming who invited and
//! nothing hidden: at a game's creation and when its creator invites more later.

use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::common::app::json_body;
use crate::common::db::TestBackend;
use crate::peer_fcm::{FcmPeer, Sent};
use crate::push::{assert_public, push_app, register, PATIENCE};
use crate::tables::{create, players};

/// The `invited` messages delivered to `token`.
fn invitations(sent: &[Sent], token: &str) -> Vec<Value> {
    sent.iter()
        .filter(|s| s.answered == 200)
        .map(|s| s.message["message"].clone())
        .filter(|m| m["token"] == token && m["data"]["kind"] == "invited")
        .collect()
}

async fn run(backend: TestBackend) {
    let peer = FcmPeer::start();
    let Some(app) = push_app(backend, None, Some(&peer)).await else {
        return;
    };
    let table = players(&app, &["ann", "bob", "cyd"]).await;
    let (ann, bob, cyd) = (&table[0], &table[1], &table[2]);
    // Default kinds: invitations are among them.
    let phone = register(&app, bob, json!({ "fcm": { "token": "bob-phone" } })).await;
    assert!(
        phone["kinds"]
            .as_array()
            .is_some_and(|k| k.contains(&json!("invited"))),
        "{phone}"
    );
    register(
        &app,
        bob,
        json!({ "fcm": { "token": "bob-tablet" }, "language": "de" }),
    )
    .await;
    register(
        &app,
        cyd,
        json!({ "fcm": { "token": "cyd-phone" }, "language": "de" }),
    )
    .await;

    // Invited at the game's creation.
    let game = create(
        &app,
        ann,
        &json!({ "options": { "players": 3 }, "visibility": "private", "invite": ["bob"] }),
    )
    .await;
    let id = game["id"].as_str().expect("id").to_string();
    let sent = peer
        .wait_for(PATIENCE, |s| {
            !invitations(s, "bob-phone").is_empty() && !invitations(s, "bob-tablet").is_empty()
        })
        .await;
    let en = &invitations(&sent, "bob-phone")[0];
    assert_eq!(en["notification"]["title"], "New invitation");
    assert_eq!(en["notification"]["body"], "ann invited you to a game.");
    assert_eq!(en["data"]["game_id"], id.as_str());
    let de = &invitations(&sent, "bob-tablet")[0];
    assert_eq!(de["notification"]["title"], "Neue Einladung");
    assert_eq!(
        de["notification"]["body"],
        "ann hat dich zu einem Spiel eingeladen."
    );
    // The feed item it pushes is the one the stream shows.
    let feed = json_body(app.get("/v1/me/feed", bob.token()).await, StatusCode::OK).await;
    let item = feed["items"]
        .as_array()
        .and_then(|items| items.iter().find(|i| i["kind"] == "invited"))
        .cloned()
        .expect("an invited item");
    assert_eq!(en["data"]["seq"], item["seq"].to_string().as_str());

    // Invited later by the creator.
    let res = app
        .post_json(
            &format!("/v1/games/{id}/invitations"),
            ann.token(),
            &json!({ "usernames": ["cyd"] }),
        )
        .await;
    assert!(res.status().is_success(), "{}", res.status());
    let sent = peer
        .wait_for(PATIENCE, |s| !invitations(s, "cyd-phone").is_empty())
        .await;
    let later = &invitations(&sent, "cyd-phone")[0];
    assert_eq!(
        later["notification"]["body"],
        "ann hat dich zu einem Spiel eingeladen."
    );
    assert_eq!(later["data"]["game_id"], id.as_str());
    assert_public(&format!("{:?}", peer.sent()));
    // bob was told once per device: inviting cyd did not tell him again.
    assert_eq!(invitations(&peer.sent(), "bob-phone").len(), 1);
}

#[actix_web::test]
async fn invitations_are_pushed_in_the_devices_language_postgres() {
    run(TestBackend::Postgres).await
}

#[actix_web::test]
async fn invitations_are_pushed_in_the_devices_language_sqlite() {
    run(TestBackend::Sqlite).await
}
