//! The population the data-growth benchmark loads (`examples/scale`): games played by
//! computer players through the rules and bulk-loaded are games like any other. On a real
//! server over the test PostgreSQL: every finished game verifies (seeds, decks, every action
//! replayed), an active game goes on from where its log stops, an open one is in the lobby.

use std::time::Duration;

use racko::service::population::{game, Player, Stage};
use racko::store::{Store, StoreError};
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::common::app::{json_body, spawn_app};
use crate::common::db::{enabled, TestBackend};

#[actix_web::test]
async fn bulk_loaded_games_verify_and_play_on() {
    if !enabled(TestBackend::Postgres) {
        eprintln!("skipped: PostgreSQL is not in RACKO_TEST_BACKENDS");
        return;
    }
    let app = spawn_app(TestBackend::Postgres).await;
    let (ann_token, ann) = app.register("pop_ann").await;
    let (bob_token, bob) = app.register("pop_bob").await;
    let players = [
        Player {
            id: ann,
            username: "pop_ann".into(),
        },
        Player {
            id: bob,
            username: "pop_bob".into(),
        },
    ];
    let stages = [
        Stage::Finished,
        Stage::Finished,
        Stage::Finished,
        Stage::Active { actions: 7 },
        Stage::Active { actions: 60 },
        Stage::Open,
    ];
    let lead = Duration::from_secs(3600);
    let batch: Vec<_> = stages
        .iter()
        .enumerate()
        .map(|(i, stage)| {
            let at = racko::store::now() - chrono::Duration::hours(i as i64 + 1);
            let host_first = i % 2 == 0;
            let pair = if host_first {
                (&players[0], &players[1])
            } else {
                (&players[1], &players[0])
            };
            game(
                pair,
                *stage,
                (at, lead),
                format!("TESTCDE{}", i + 2),
                i as u64,
            )
            .expect("a game played")
        })
        .collect();
    let store = Store::open(&app.db.url, 2).expect("the store");
    store.insert_games_in_bulk(&batch).expect("loaded");

    let tokens = |id: uuid::Uuid| if id == ann { &ann_token } else { &bob_token };
    for ((new, events), stage) in batch.iter().zip(stages) {
        let id = new.id;
        match stage {
            Stage::Finished => {
                let res = app
                    .get(&format!("/v1/games/{id}/verify"), Some(&ann_token))
                    .await;
                let verified = json_body(res, StatusCode::OK).await;
                assert_eq!(verified["verified"], true, "{id}: {verified}");
                let res = app
                    .get(&format!("/v1/games/{id}/export"), Some(&bob_token))
                    .await;
                let export = json_body(res, StatusCode::OK).await;
                assert_eq!(export["status"], "finished");
                assert_eq!(
                    export["events"].as_array().map(Vec::len),
                    Some(events.len())
                );
            }
            Stage::Active { .. } => {
                let res = app.get(&format!("/v1/games/{id}"), Some(&ann_token)).await;
                let game = json_body(res, StatusCode::OK).await;
                assert_eq!(game["status"], "active", "{game}");
                // The seat whose turn it is plays on from the stored state.
                let seat = game["table"]["awaiting"][0]
                    .as_u64()
                    .expect("a seat awaited") as u8;
                let holder = new.seats.iter().find(|s| s.seat == seat).expect("the seat");
                let token = tokens(holder.account_id);
                let res = app.get(&format!("/v1/games/{id}/hint"), Some(token)).await;
                let hint = json_body(res, StatusCode::OK).await;
                let body = json!({ "version": hint["version"], "action": hint["action"] });
                let res = app
                    .post_json(&format!("/v1/games/{id}/actions"), Some(token), &body)
                    .await;
                let answer: Value = json_body(res, StatusCode::OK).await;
                let first = answer["events"][0]["seq"].as_i64();
                assert_eq!(
                    first,
                    Some(events.len() as i64 + 1),
                    "the log goes on: {answer}"
                );
            }
            Stage::Open => {
                let res = app.get("/v1/games", Some(&ann_token)).await;
                let lobby = json_body(res, StatusCode::OK).await;
                let listed = lobby["games"].as_array().into_iter().flatten();
                assert!(
                    listed.clone().any(|g| g["id"] == id.to_string()),
                    "the open game is in the lobby: {lobby}"
                );
            }
        }
    }

    // An invite code taken makes the whole batch fail, and nothing of it is written.
    let again = vec![game(
        (&players[0], &players[1]),
        Stage::Finished,
        (racko::store::now(), lead),
        "TESTCDE2".into(),
        9,
    )
    .expect("a game")];
    let refused = store.insert_games_in_bulk(&again);
    assert!(
        matches!(refused, Err(StoreError::Conflict(_))),
        "{refused:?}"
    );
    assert!(store.game(again[0].0.id).expect("read").is_none());
}
