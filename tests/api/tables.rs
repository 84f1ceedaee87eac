//! Support for the game tests: players, stacked decks, seating a table, acting, and reading
//! cards out of answers.

use racko_rules::{Card, DeckCounts, StackedDeck, View};
use reqwest::{Method, Response, StatusCode};
use serde_json::{json, Value};

use crate::common::app::{json_body, TestApp};

pub struct Player {
    pub name: String,
    pub token: String,
}

impl Player {
    pub fn token(&self) -> Option<&str> {
        Some(&self.token)
    }
}

/// Registered players with these names.
pub async fn players(app: &TestApp, names: &[&str]) -> Vec<Player> {
    let mut players = Vec::new();
    for name in names {
        let (token, _) = app.register(name).await;
        players.push(Player {
            name: name.to_string(),
            token,
        });
    }
    players
}

/// The counts of a test deck besides its numbers: one joker and one card of each event kind.
/// Not a deck on its own (it has no numbers): name the numbers, `DeckCounts { max_number: 30,
/// ..ONE_OF_EACH }`.
pub const ONE_OF_EACH: DeckCounts = DeckCounts {
    jokers: 1,
    card_swaps: 1,
    skips: 1,
    rack_swaps: 1,
    ..DeckCounts::NONE
};

/// A test deck of numbers only, with struct update as [`ONE_OF_EACH`].
pub const NUMBERS_ONLY: DeckCounts = DeckCounts::NONE;

pub fn n(value: u16) -> Card {
    Card::Number { value }
}

/// Creates a game. The game tests seat players by id and let others watch, as every game
/// allowed before games had a visibility: a body that names no `visibility` or `spectators`
/// gets `public` and `anyone` here (the visibility tests name theirs).
pub async fn create(app: &TestApp, player: &Player, body: &Value) -> Value {
    let mut body = body.clone();
    if let Some(fields) = body.as_object_mut() {
        fields.entry("visibility").or_insert(json!("public"));
        fields.entry("spectators").or_insert(json!("anyone"));
    }
    let res = app.post_json("/v1/games", player.token(), &body).await;
    json_body(res, StatusCode::CREATED).await
}

pub async fn join(app: &TestApp, player: &Player, game: &str) -> Value {
    let res = app
        .post_json(
            &format!("/v1/games/{game}/join"),
            player.token(),
            &json!({}),
        )
        .await;
    json_body(res, StatusCode::OK).await
}

/// Creates a game with `options` and `stacked` decks (built with `StackedDeck::from_racks`) (by the first player) and seats the
/// others in order, which starts it. Returns the game id.
pub async fn start_game(
    app: &TestApp,
    players: &[Player],
    options: Value,
    stacked: &[StackedDeck],
) -> String {
    let created = create(
        app,
        &players[0],
        &json!({ "options": options, "stacked": stacked }),
    )
    .await;
    let id = created["id"].as_str().expect("game id").to_string();
    for player in &players[1..] {
        join(app, player, &id).await;
    }
    id
}

pub async fn view(app: &TestApp, player: &Player, game: &str) -> Value {
    let res = app.get(&format!("/v1/games/{game}"), player.token()).await;
    json_body(res, StatusCode::OK).await
}

/// Posts an action body as is.
pub async fn post_action(app: &TestApp, player: &Player, game: &str, body: &Value) -> Response {
    app.post_json(&format!("/v1/games/{game}/actions"), player.token(), body)
        .await
}

/// Plays `action` at the game's current version; returns the answer (`view`, `events`).
pub async fn act(app: &TestApp, player: &Player, game: &str, action: Value) -> Value {
    let version = view(app, player, game).await["version"].clone();
    let res = post_action(
        app,
        player,
        game,
        &json!({ "version": version, "action": action }),
    )
    .await;
    json_body(res, StatusCode::OK).await
}

/// The kinds of the events in an action's answer (or an events page).
pub fn kinds(answer: &Value) -> Vec<String> {
    answer["events"]
        .as_array()
        .expect("events")
        .iter()
        .map(|e| e["kind"].as_str().expect("kind").to_string())
        .collect()
}

/// The events of `kind` in an answer.
pub fn events_of<'a>(answer: &'a Value, kind: &str) -> Vec<&'a Value> {
    answer["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["kind"] == kind)
        .map(|e| &e["event"])
        .collect()
}

/// The caller's rack in a game view as number values (None for a joker or empty slot).
pub fn my_rack(view: &Value) -> Vec<Option<u64>> {
    view["table"]["rack"]
        .as_array()
        .expect("a rack")
        .iter()
        .map(|slot| slot["card"]["value"].as_u64())
        .collect()
}

/// A number card as JSON.
pub fn card(value: u16) -> Value {
    json!({ "kind": "number", "value": value })
}

pub fn numbers(values: &[u16]) -> Vec<Option<u64>> {
    values.iter().map(|&v| Some(u64::from(v))).collect()
}

/// Every number card value anywhere in `value` (card objects `{"kind":"number","value":N}`).
pub fn number_cards(value: &Value, found: &mut Vec<u64>) {
    match value {
        Value::Object(map) => {
            if map.get("kind").and_then(Value::as_str) == Some("number") {
                if let Some(v) = map.get("value").and_then(Value::as_u64) {
                    found.push(v);
                }
            }
            map.values().for_each(|v| number_cards(v, found));
        }
        Value::Array(items) => items.iter().for_each(|v| number_cards(v, found)),
        _ => {}
    }
}

/// A request with a JSON body and extra headers.
pub async fn post_with(
    app: &TestApp,
    path: &str,
    token: Option<&str>,
    headers: &[(&str, &str)],
    body: &Value,
) -> Response {
    let mut req = app.request(Method::POST, path, token).json(body);
    for (name, value) in headers {
        req = req.header(*name, *value);
    }
    req.send().await.expect("request sent")
}

/// ann (seat 0) and bob (seat 1) in a started 2-player game with a small stacked deck: bob
/// begins with 25 face up; the stock below is 26 and then the event cards. Neither rack is in
/// order. Returns the id.
pub async fn small_game(app: &TestApp, table: &[Player]) -> String {
    let cards = DeckCounts {
        max_number: 30,
        ..ONE_OF_EACH
    };
    let racks = [
        [23, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 1],
        [24, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 2],
    ];
    let round = StackedDeck::from_racks(&cards, &racks, 1, &[n(25), n(26)]);
    let options = json!({ "players": 2, "deck": cards });
    start_game(app, table, options, &[round]).await
}

/// The next move of whoever may act, with the version their view had.
pub async fn next_move(app: &TestApp, table: &[Player], game: &str) -> (usize, Value) {
    for (i, player) in table.iter().enumerate() {
        let seen = view(app, player, game).await;
        let table_view: View = serde_json::from_value(seen["table"].clone()).expect("a view");
        if let Some(action) = racko_sample::choose(&table_view) {
            return (i, json!({ "version": seen["version"], "action": action }));
        }
    }
    panic!("nobody may act in {game}");
}
