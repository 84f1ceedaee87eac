//! The order of the game lists, and what a move leaves alone for it. The public lists order by
//! the latest change, except that the moves of an active game do not reorder it (it stays where
//! it started); a player's own games order by the latest move. So a move changes no indexed
//! column of the games row (status, `listed_at`, `due_at`, invite code): on PostgreSQL the
//! row is rewritten in place (a HOT update), with no index entry per move.

use diesel::prelude::*;
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::common::app::{json_body, run_on, TestApp};
use crate::common::db::TestBackend;
use crate::tables::{create, join, next_move, players, post_action, Player};

both_stores!(moves_reorder_a_players_own_games_but_not_the_public_lists);

/// The columns of a games row as the release before `listed_at` wrote them.
const PREVIOUS_COLUMNS: &str = "created_by, options, rules_version, state, status, test_mode, \
     stacked, version, last_seq, created_at, updated_at, due_at, rematch_id, visibility, \
     spectators, invited, rated";

#[derive(QueryableByName, Debug, PartialEq)]
struct Row {
    #[diesel(sql_type = diesel::sql_types::Text)]
    indexed: String,
    #[diesel(sql_type = diesel::sql_types::Text)]
    changed: String,
}

/// The games row's indexed columns, and those a move changes, as text alike on both stores.
fn games_row(app: &TestApp, id: &str) -> Row {
    let sql = format!(
        "SELECT status || ' ' || CAST(listed_at AS TEXT) || ' ' \
                || coalesce(CAST(due_at AS TEXT), '-') || ' ' || invite_code AS indexed, \
                CAST(version AS TEXT) || ' ' || CAST(updated_at AS TEXT) AS changed \
           FROM games WHERE id = '{id}'"
    );
    let rows: Vec<Row> = match app.db.backend {
        TestBackend::Postgres => {
            let mut conn = PgConnection::establish(&app.db.url).expect("connect");
            diesel::sql_query(sql)
                .load(&mut conn)
                .expect("the games row")
        }
        TestBackend::Sqlite => {
            let path = app.db.url.trim_start_matches("sqlite://");
            let mut conn = SqliteConnection::establish(path).expect("connect");
            diesel::sql_query(sql)
                .load(&mut conn)
                .expect("the games row")
        }
    };
    rows.into_iter().next().expect("the game is stored")
}

async fn ids(app: &TestApp, who: &Player, path: &str) -> Vec<String> {
    let page: Value = json_body(app.get(path, who.token()).await, StatusCode::OK).await;
    page["games"]
        .as_array()
        .expect("a page of games")
        .iter()
        .map(|game| game["id"].as_str().expect("an id").to_string())
        .collect()
}

/// A public game with spectators, created by `host` and started by `guest` joining.
async fn watched_game(app: &TestApp, host: &Player, guest: &Player) -> String {
    let body =
        json!({ "options": { "players": 2 }, "visibility": "public", "spectators": "anyone" });
    let game = create(app, host, &body).await;
    let id = game["id"].as_str().expect("an id").to_string();
    join(app, guest, &id).await;
    id
}

async fn moves_reorder_a_players_own_games_but_not_the_public_lists(app: TestApp) {
    let [ann, bob, cat] = players(&app, &["ann", "bob", "cat"])
        .await
        .try_into()
        .ok()
        .expect("three");
    let first = watched_game(&app, &ann, &bob).await;
    let second = watched_game(&app, &cat, &bob).await;
    let public = "/v1/games?status=active";
    let own = "/v1/me/games?filter=active";
    assert_eq!(
        ids(&app, &ann, public).await,
        [second.as_str(), first.as_str()]
    );
    assert_eq!(
        ids(&app, &bob, own).await,
        [second.as_str(), first.as_str()]
    );

    let before = games_row(&app, &first);
    let table = [ann, bob];
    for _ in 0..3 {
        let (seat, body) = next_move(&app, &table, &first).await;
        let res = post_action(&app, &table[seat], &first, &body).await;
        assert_eq!(res.status(), StatusCode::OK, "a legal move");
    }
    let after = games_row(&app, &first);
    assert_ne!(after.changed, before.changed, "the moves were written");
    assert_eq!(
        after.indexed, before.indexed,
        "moves leave every indexed column of the games row as it was"
    );

    // The first game moved last: first in bob's own list, still behind the later-started
    // game in the public one, and paging by the same order.
    let [ann, bob] = &table;
    assert_eq!(ids(&app, bob, own).await, [first.as_str(), second.as_str()]);
    assert_eq!(
        ids(&app, ann, public).await,
        [second.as_str(), first.as_str()]
    );
    let page = json_body(
        app.get(&format!("{own}&limit=1"), bob.token()).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(page["games"][0]["id"], first.as_str());
    let cursor = page["next_cursor"].as_str().expect("a second page");
    let rest = ids(&app, bob, &format!("{own}&limit=1&cursor={cursor}")).await;
    assert_eq!(rest, [second.as_str()]);
}

/// During a rolling upgrade a process of the previous release, which knows no `listed_at`,
/// still creates games on PostgreSQL: the column's default lists them from their creation.
#[actix_web::test]
async fn a_game_the_previous_release_inserts_is_listed() {
    run_on(TestBackend::Postgres, |app| async move {
        let [ann, bob] = players(&app, &["ann", "bob"])
            .await
            .try_into()
            .ok()
            .expect("two");
        let first = watched_game(&app, &ann, &bob).await;
        let copy = "10000000-0000-4000-8000-000000000001";
        let sql = format!(
            "INSERT INTO games (id, invite_code, {PREVIOUS_COLUMNS}) \
             SELECT '{copy}', 'PREVIOUS1', {PREVIOUS_COLUMNS} FROM games WHERE id = '{first}'"
        );
        let mut conn = PgConnection::establish(&app.db.url).expect("connect");
        diesel::sql_query(sql)
            .execute(&mut conn)
            .expect("an insert without listed_at");
        let listed = ids(&app, &ann, "/v1/games?status=active").await;
        assert_eq!(listed, [copy, first.as_str()], "the newer first");
    })
    .await;
}
