//! Replay, export and verify refuse a game of rules this server does not know, and answer
//! bad input with problems, never a 500.

use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use reqwest::StatusCode;

use super::{account, stacked_game};
use crate::common::app::{assert_problem, TestApp};
use crate::common::db::TestBackend;

/// Marks every stored game as played under rules version 99, straight in the database.
fn set_rules_version(app: &TestApp) {
    let sql = "UPDATE games SET rules_version = 99";
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
}
