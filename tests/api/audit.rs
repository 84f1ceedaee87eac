//! Replay, export, verify and the admin's audit queries over HTTP (see `audit/*`), and the
//! audit queries' index plans on PostgreSQL.

mod admin;
mod partitioned;
mod plans;
pub mod stacked;
mod versions;

use racko_rules::{Card, DeckCounts, StackedDeck};
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::common::app::{json_body, TestApp, TEST_PASSWORD};

/// A signed-in account.
pub struct Who {
    pub name: &'static str,
    pub token: String,
}

pub async fn account(app: &TestApp, name: &'static str) -> Who {
    let (token, _) = app.register(name).await;
    Who { name, token }
}

/// An admin account made through the store (as `racko admin create` does), then signed in.
pub async fn admin(app: &TestApp, name: &'static str) -> Who {
    let store = racko::store::Store::open(&app.db.url, 1).expect("store");
    let username = racko::service::accounts::Username::parse(name).expect("username");
    let password =
        racko::service::accounts::Password::parse(TEST_PASSWORD.into()).expect("password");
    racko::service::accounts::register(&store, username, password, racko::store::Role::Admin)
        .await
        .expect("admin registered");
    let res = app
        .post_json(
            "/v1/sessions",
            None,
            &json!({"username": name, "password": TEST_PASSWORD}),
        )
        .await;
    let body = json_body(res, StatusCode::OK).await;
    Who {
        name,
        token: body["token"].as_str().expect("token").to_string(),
    }
}

pub async fn get(app: &TestApp, who: &Who, path: &str) -> Value {
    json_body(app.get(path, Some(&who.token)).await, StatusCode::OK).await
}

/// The 2-player default deck (R1.4: 1–50, 5 jokers, 3 card swaps, 3 skips, 2 rack swaps),
/// stacked to deal `racks` (by seat, slot 5 first) with `start` as the start player, and whose
/// stock begins with `top`.
pub fn deck(racks: [[u16; 12]; 2], start: u8, top: &[Card]) -> StackedDeck {
    let counts = DeckCounts::default_for(2).expect("2 players have a deck");
    StackedDeck::from_racks(&counts, &racks, start, top)
}

/// Creates a 2-player test-mode game of `creator` with stacked decks; `other` joins (the game
/// starts). Returns its id.
pub async fn stacked_game(
    app: &TestApp,
    creator: &Who,
    other: &Who,
    target: u32,
    decks: &[StackedDeck],
) -> String {
    let body = json!({
        "options": {"players": 2, "target": target},
        "stacked": decks,
        "visibility": "public",
        "spectators": "anyone",
    });
    let res = app
        .post_json("/v1/games", Some(&creator.token), &body)
        .await;
    let game = json_body(res, StatusCode::CREATED).await;
    let id = game["id"].as_str().expect("id").to_string();
    let res = app
        .post_json(
            &format!("/v1/games/{id}/join"),
            Some(&other.token),
            &json!({}),
        )
        .await;
    json_body(res, StatusCode::OK).await;
    id
}

/// Plays `action` as `who` at the game's current version.
pub async fn act(app: &TestApp, who: &Who, id: &str, action: Value) -> Value {
    let view = get(app, who, &format!("/v1/games/{id}")).await;
    let body = json!({"version": view["version"], "action": action});
    let res = app
        .post_json(&format!("/v1/games/{id}/actions"), Some(&who.token), &body)
        .await;
    json_body(res, StatusCode::OK).await
}

/// The seq of the game's last event now.
pub async fn last_seq(app: &TestApp, who: &Who, id: &str) -> i64 {
    let page = get(app, who, &format!("/v1/games/{id}/events?limit=500")).await;
    page["events"]
        .as_array()
        .and_then(|e| e.last())
        .and_then(|e| e["seq"].as_i64())
        .unwrap_or(0)
}
