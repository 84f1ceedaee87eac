//! Replay, export and verify refuse a game of rules this server does not know, and answer
//! bad input with problems, never a 500; a game stored before a field was added still loads,
//! replays and plays.

use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use reqwest::StatusCode;

use serde_json::{json, Value};

use super::{account, act, get, last_seq, stacked_game, Who};
use crate::common::app::{assert_problem, TestApp};
use crate::common::db::TestBackend;

/// Marks every stored game as played under rules version 99, straight in the database. Like
/// every writer of a game it moves the version on, which tells the server's processes that
/// the game they keep is no longer the game.
fn set_rules_version(app: &TestApp) {
    run_sql(
        app,
        "UPDATE games SET rules_version = 99, version = version + 1",
    );
}

/// What every stored game, event and answer holds of a deck without rack swaps.
const NO_RACK_SWAPS: &str = r#","rack_swaps":0"#;

/// Takes the deck's `rack_swaps` out of everything stored, as a count added later is missing
/// from every game stored before it (the version moves on, so the game is read as stored).
fn forget_rack_swaps(app: &TestApp) {
    run_sql(
        app,
        &format!(
            "UPDATE games SET options = replace(options, '{NO_RACK_SWAPS}', ''), \
             state = replace(state, '{NO_RACK_SWAPS}', ''), version = version + 1; \
             UPDATE game_events SET payload = replace(payload, '{NO_RACK_SWAPS}', '');"
        ),
    );
}

fn run_sql(app: &TestApp, sql: &str) {
    match app.backend {
        TestBackend::Postgres => PgConnection::establish(&app.db.url)
            .expect("connect")
            .batch_execute(sql)
            .expect("update"),
        TestBackend::Sqlite => {
            let path = app.db.url.trim_start_matches("sqlite://");
            SqliteConnection::establish(path)
                .expect("connect")
                .batch_execute(sql)
                .expect("update")
        }
    }
}

both_stores! {
    async fn an_unknown_rules_version_is_refused(app: TestApp) {
        let (ann, bob) = (account(&app, "ann").await, account(&app, "bob").await);
        let id = stacked_game(&app, &ann, &bob, 500, &[]).await;
        let res = app.get(&format!("/v1/games/{id}/replay?seq=1"), Some(&ann.token)).await;
        assert_eq!(res.status(), StatusCode::OK);
        set_rules_version(&app);
        for path in ["replay", "export", "verify"] {
            let res = app.get(&format!("/v1/games/{id}/{path}"), Some(&ann.token)).await;
            let body = assert_problem(res, StatusCode::CONFLICT, "unknown_rules_version").await;
            assert!(body["detail"].as_str().is_some_and(|d| d.contains("version 99")), "{body}");
        }
    }

    async fn bad_requests_are_problems(app: TestApp) {
        let (ann, bob) = (account(&app, "ann").await, account(&app, "bob").await);
        let id = stacked_game(&app, &ann, &bob, 500, &[]).await;
        for seq in ["-1", "100000"] {
            let res = app.get(&format!("/v1/games/{id}/replay?seq={seq}"), Some(&ann.token)).await;
            assert_problem(res, StatusCode::BAD_REQUEST, "invalid_seq").await;
        }
        let res = app.get(&format!("/v1/games/{id}/replay?seq=x"), Some(&ann.token)).await;
        assert_problem(res, StatusCode::BAD_REQUEST, "invalid_query").await;
        let unknown = uuid::Uuid::new_v4();
        for path in ["replay", "export", "verify"] {
            let res = app.get(&format!("/v1/games/{unknown}/{path}"), Some(&ann.token)).await;
            assert_problem(res, StatusCode::NOT_FOUND, "game_not_found").await;
            let res = app.get(&format!("/v1/games/{id}/{path}"), None).await;
            assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
        }
        let res = app.get(&format!("/v1/games/{id}/verify"), Some(&ann.token)).await;
        assert_problem(res, StatusCode::CONFLICT, "game_not_finished").await;
    }

    async fn a_game_stored_without_a_later_deck_count_still_loads_replays_and_plays(app: TestApp) {
        let (ann, bob) = (account(&app, "ann").await, account(&app, "bob").await);
        let deck = json!({"max_number": 50, "jokers": 5, "card_swaps": 3, "skips": 3, "rack_swaps": 0});
        let body = json!({"options": {"players": 2, "deck": deck}, "visibility": "public"});
        let res = app.post_json("/v1/games", Some(&ann.token), &body).await;
        let created: Value = crate::common::app::json_body(res, StatusCode::CREATED).await;
        let id = created["id"].as_str().expect("an id").to_string();
        let res = app.post_json(&format!("/v1/games/{id}/join"), Some(&bob.token), &json!({})).await;
        assert_eq!(res.status(), StatusCode::OK);
        play_one_step(&app, [&ann, &bob], &id).await;
        let seq = last_seq(&app, &ann, &id).await;
        let view = get(&app, &ann, &format!("/v1/games/{id}")).await;
        let replay = get(&app, &ann, &format!("/v1/games/{id}/replay?seq={seq}")).await;

        forget_rack_swaps(&app);

        // The same game, but for the version the rewrite moved on.
        let mut now = get(&app, &ann, &format!("/v1/games/{id}")).await;
        assert_eq!(now["version"].as_i64(), view["version"].as_i64().map(|v| v + 1));
        now["version"] = view["version"].clone();
        assert_eq!(now, view);
        let again = get(&app, &ann, &format!("/v1/games/{id}/replay?seq={seq}")).await;
        assert_eq!(again, replay);
        assert_eq!(view["options"]["deck"]["rack_swaps"], 0, "read as none: {view}");
        // And it plays on.
        play_one_step(&app, [&ann, &bob], &id).await;
    }
}

/// The awaited player of the two makes one legal move (a draw when it may).
async fn play_one_step(app: &TestApp, players: [&Who; 2], id: &str) {
    for who in players {
        let view = get(app, who, &format!("/v1/games/{id}")).await;
        let legal = view["table"]["legal_actions"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let pick = legal
            .iter()
            .find(|a| a["type"] == "draw")
            .or_else(|| legal.iter().find(|a| a["type"] != "call_racko"))
            .cloned();
        if let Some(action) = pick {
            act(app, who, id, action).await;
            return;
        }
    }
    panic!("nobody may act in {id}");
}
