//! `GET /v1/games/{id}/hint` (issue 12): the best computer player (`expert`)'s choice for the
//! caller's seat, from the caller's view alone (R8.1).

use racko_bots::{decide, Level};
use racko_rules::{Action, DeckCounts, StackedDeck, View};
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::common::app::{assert_problem, json_body, TestApp};
use crate::tables::{act, n, players, small_game, start_game, view, Player, ONE_OF_EACH};

both_stores!(
    r8_a_hint_is_the_best_levels_choice_from_the_callers_view,
    a_hint_needs_a_seat_that_is_awaited,
);

async fn hint(app: &TestApp, player: &Player, game: &str) -> Value {
    let res = app
        .get(&format!("/v1/games/{game}/hint"), player.token())
        .await;
    json_body(res, StatusCode::OK).await
}

async fn r8_a_hint_is_the_best_levels_choice_from_the_callers_view(app: TestApp) {
    let table = players(&app, &["ann", "bob"]).await;
    let bob = &table[1];
    let id = small_game(&app, &table).await;
    let answer = hint(&app, bob, &id).await;
    let seen = view(&app, bob, &id).await;
    assert_eq!(answer["level"], "expert");
    assert_eq!(answer["version"], seen["version"]);
    let table_view: View = serde_json::from_value(seen["table"].clone()).expect("a view");
    let action: Action = serde_json::from_value(answer["action"].clone()).expect("an action");
    assert!(table_view.legal_actions.contains(&action), "{action:?}");
    assert_eq!(decide(Level::BEST, &table_view, 0), Some(action));

    // R8: the same table with other cards in ann's rack (hidden from bob) gives bob the same
    // hint. Here ann holds 27 where the first game gave her 23.
    let cards = DeckCounts {
        max_number: 30,
        ..ONE_OF_EACH
    };
    let racks = [
        [27, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 1],
        [24, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 2],
    ];
    let round = StackedDeck::from_racks(&cards, &racks, 1, &[n(25), n(26)]);
    let options = json!({ "players": 2, "deck": cards });
    let other = start_game(&app, &table, options, &[round]).await;
    assert_eq!(hint(&app, bob, &other).await["action"], answer["action"]);

    // The hint is a move bob can play; then it is ann's turn and her hint is hers to play.
    act(&app, bob, &id, answer["action"].clone()).await;
    let ann = &table[0];
    let mut turn = hint(&app, ann, &id).await;
    if turn["action"]["type"] == "draw" {
        act(&app, ann, &id, turn["action"].clone()).await;
        turn = hint(&app, ann, &id).await;
    }
    let seen: View =
        serde_json::from_value(view(&app, ann, &id).await["table"].clone()).expect("a view");
    let action: Action = serde_json::from_value(turn["action"].clone()).expect("an action");
    assert!(seen.legal_actions.contains(&action), "{action:?}");
}

async fn a_hint_needs_a_seat_that_is_awaited(app: TestApp) {
    let table = players(&app, &["ann", "bob", "cid"]).await;
    let id = small_game(&app, &table[..2]).await;
    let path = format!("/v1/games/{id}/hint");
    // bob starts: ann has nothing to do and her rack is not in order (no off-turn Racko).
    let res = app.get(&path, table[0].token()).await;
    assert_problem(res, StatusCode::CONFLICT, "not_awaited").await;
    let res = app.get(&path, table[2].token()).await;
    assert_problem(res, StatusCode::FORBIDDEN, "not_a_player").await;
    let res = app.get(&path, None).await;
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
    let unknown = format!("/v1/games/{}/hint", uuid::Uuid::new_v4());
    let res = app.get(&unknown, table[1].token()).await;
    assert_problem(res, StatusCode::NOT_FOUND, "game_not_found").await;
}
