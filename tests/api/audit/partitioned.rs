//! The event log partitioned by game on PostgreSQL: the migration that partitions it moves an
//! existing database without losing or changing an event (there and back), and the games
//! still verify and play afterwards.

use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text};
use reqwest::StatusCode;
use serde_json::json;

use racko_rules::{Card, StackedDeck};

use super::{account, act, deck, get, stacked_game, Who};
use crate::common::app::{json_body, run_on, TestApp};
use crate::common::db::TestBackend;

const UP: &str = include_str!(
    "../../../migrations/postgres/2026-12-03-000100_event_log_partitioned_by_game/up.sql"
);
const DOWN: &str = include_str!(
    "../../../migrations/postgres/2026-12-03-000100_event_log_partitioned_by_game/down.sql"
);

#[derive(QueryableByName, Debug, PartialEq)]
struct GameLog {
    #[diesel(sql_type = Text)]
    game_id: String,
    #[diesel(sql_type = BigInt)]
    events: i64,
    #[diesel(sql_type = Text)]
    digest: String,
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

/// Every game's log as stored: its length and a digest of every column of every event.
fn logs(conn: &mut PgConnection) -> Vec<GameLog> {
    diesel::sql_query(
        "SELECT game_id, count(*) AS events, md5(string_agg(concat_ws('|', seq, round, kind, \
         actor, payload, created_at), '/' ORDER BY seq)) AS digest \
         FROM game_events GROUP BY game_id ORDER BY game_id",
    )
    .load(conn)
    .expect("the logs")
}

/// How many partitions `game_events` has (0: a plain table).
fn partitions(conn: &mut PgConnection) -> i64 {
    let rows: Vec<Count> = diesel::sql_query(
        "SELECT count(*) AS n FROM pg_inherits WHERE inhparent = 'game_events'::regclass",
    )
    .load(conn)
    .expect("partitions");
    rows.first().map_or(0, |c| c.n)
}

#[actix_web::test]
async fn partitioning_keeps_every_event_and_games_still_verify() {
    run_on(TestBackend::Postgres, moves_the_log).await;
}

async fn moves_the_log(app: TestApp) {
    let (ann, bob) = (account(&app, "ann").await, account(&app, "bob").await);
    // Games in every state: finished by resigning (R10.3), played a little, just started.
    let mut finished = Vec::new();
    let mut active = Vec::new();
    let decks = [numbers_only()];
    for n in 0..12 {
        let id = stacked_game(&app, &ann, &bob, 500, &decks).await;
        if n % 3 == 0 {
            resign(&app, &bob, &id).await;
            finished.push(id);
        } else {
            if n % 3 == 1 {
                play_a_turn(&app, &[&ann, &bob], &id).await;
            }
            active.push(id);
        }
    }
    let mut conn = PgConnection::establish(&app.db.url).expect("connect");
    assert_eq!(
        partitions(&mut conn),
        16,
        "migrated databases are partitioned"
    );
    let before = logs(&mut conn);
    assert_eq!(before.len(), 12);

    conn.batch_execute(DOWN).expect("back to one table");
    assert_eq!(partitions(&mut conn), 0);
    assert_eq!(logs(&mut conn), before, "the way back keeps every event");

    conn.batch_execute(UP).expect("partitioned again");
    assert_eq!(partitions(&mut conn), 16);
    assert_eq!(logs(&mut conn), before, "partitioning keeps every event");

    for id in &finished {
        let checked = get(&app, &ann, &format!("/v1/games/{id}/verify")).await;
        assert_eq!(checked["verified"], true, "{checked}");
    }
    // The log still grows gaplessly in its partition.
    for id in &active {
        play_a_turn(&app, &[&ann, &bob], id).await;
        let page = get(&app, &ann, &format!("/v1/games/{id}/events?limit=500")).await;
        let seqs: Vec<i64> = page["events"]
            .as_array()
            .expect("events")
            .iter()
            .filter_map(|e| e["seq"].as_i64())
            .collect();
        let gapless: Vec<i64> = (1..=seqs.len() as i64).collect();
        assert_eq!(seqs, gapless, "game {id}");
    }
}

/// A deal whose first discards and draws are number cards, so that taking the discard is
/// always a move (R3.1).
fn numbers_only() -> StackedDeck {
    let ann = [1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13];
    let bob = [14, 15, 16, 17, 18, 19, 21, 22, 23, 24, 25, 26];
    let top = [10, 20, 30, 40].map(|value| Card::Number { value });
    deck([ann, bob], 0, &top)
}

async fn resign(app: &TestApp, who: &Who, id: &str) {
    let view = get(app, who, &format!("/v1/games/{id}")).await;
    let res = app
        .post_json(
            &format!("/v1/games/{id}/resign"),
            Some(&who.token),
            &json!({"version": view["version"]}),
        )
        .await;
    let body = json_body(res, StatusCode::OK).await;
    assert_eq!(body["view"]["status"], "finished");
}

/// The player whose turn it is takes the discard into slot 5 (R3.1).
async fn play_a_turn(app: &TestApp, seats: &[&Who; 2], id: &str) {
    let view = get(app, seats[0], &format!("/v1/games/{id}")).await;
    let turn = view["table"]["turn"].as_u64().expect("a turn") as usize;
    let player = seats[turn];
    act(app, player, id, json!({"type": "take_discard", "slot": 5})).await;
}
