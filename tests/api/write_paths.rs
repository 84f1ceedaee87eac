//! Both write paths write the same bytes. PostgreSQL writes a change in one statement, SQLite
//! in a transaction of several: the same game, played on each, must leave the same feed
//! items and the same webhook bodies (which receivers check signatures over), byte for byte
//! once the ids and times of each run are named by their order of first appearance.

use std::collections::HashMap;

use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use serde_json::json;

use crate::audit::stacked::decks;
use crate::audit::{account, act, stacked_game};
use crate::common::app::{spawn_app_with, TestApp};
use crate::common::db::{enabled, TestBackend};

/// The rows a change writes besides the game, in order, as stored text.
#[derive(QueryableByName)]
struct Row {
    #[diesel(sql_type = diesel::sql_types::Text)]
    line: String,
}

/// Every feed item and webhook body, by account (named) and seq.
const ROWS: &str = "SELECT line FROM ( \
       SELECT 'feed ' || u.username || ' ' || f.seq || ' ' || f.kind || ' ' || \
              coalesce(f.game_id, '-') || ' ' || coalesce(CAST(f.game_version AS TEXT), '-') \
              || ' ' || f.payload AS line, u.username AS who, f.seq AS s, 0 AS part \
         FROM account_feed f JOIN accounts u ON u.id = f.account_id \
       UNION ALL \
       SELECT 'outbox ' || u.username || ' ' || o.feed_seq || ' ' || o.kind || ' ' || o.body, \
              u.username, o.feed_seq, 1 \
         FROM webhook_outbox o JOIN webhook_endpoints e ON e.id = o.endpoint_id \
         JOIN accounts u ON u.id = e.account_id \
     ) AS rows ORDER BY part, who, s";

fn rows(app: &TestApp) -> Vec<String> {
    let lines: Vec<Row> = match app.backend {
        TestBackend::Postgres => {
            let mut conn = PgConnection::establish(&app.db.url).expect("connect");
            conn.batch_execute("SET TIME ZONE 'UTC'").expect("utc");
            diesel::sql_query(ROWS).load(&mut conn).expect("rows")
        }
        TestBackend::Sqlite => {
            let path = app.db.url.trim_start_matches("sqlite://");
            let mut conn = SqliteConnection::establish(path).expect("connect");
            diesel::sql_query(ROWS).load(&mut conn).expect("rows")
        }
    };
    lines.into_iter().map(|row| row.line).collect()
}

/// Names every id (a uuid) and every time (RFC 3339) of `text` by its order of first
/// appearance, so that two runs compare; everything else stays as it was.
fn name_ids_and_times(lines: &[String]) -> Vec<String> {
    let mut names: HashMap<String, String> = HashMap::new();
    let mut out = Vec::new();
    for line in lines {
        let mut named = String::new();
        let mut rest = line.as_str();
        while let Some((at, len, kind)) = next_id_or_time(rest) {
            named.push_str(&rest[..at]);
            let found = &rest[at..at + len];
            let count = names.len();
            let name = names
                .entry(found.to_string())
                .or_insert_with(|| format!("<{kind}{count}>"));
            named.push_str(name);
            rest = &rest[at + len..];
        }
        named.push_str(rest);
        out.push(named);
    }
    out
}

/// The first uuid or RFC 3339 time in `text`: (offset, length, "id" or "time").
fn next_id_or_time(text: &str) -> Option<(usize, usize, &'static str)> {
    let bytes = text.as_bytes();
    let hex = |b: u8| b.is_ascii_digit() || (b'a'..=b'f').contains(&b);
    for at in 0..bytes.len() {
        let uuid_shape = bytes.len() >= at + 36
            && (0..36).all(|i| match i {
                8 | 13 | 18 | 23 => bytes[at + i] == b'-',
                _ => hex(bytes[at + i]),
            });
        if uuid_shape {
            return Some((at, 36, "id"));
        }
        let time_start = bytes.len() >= at + 20
            && bytes[at..at + 4].iter().all(u8::is_ascii_digit)
            && bytes[at + 4] == b'-'
            && bytes[at + 10] == b'T';
        if time_start {
            let len = bytes[at..]
                .iter()
                .position(|b| !(b.is_ascii_digit() || b"-T:.Z".contains(b)))
                .unwrap_or(bytes.len() - at);
            return Some((at, len, "time"));
        }
    }
    None
}

/// Plays round 1 of the stacked game on `backend`, both players with a webhook endpoint.
async fn play(backend: TestBackend) -> Vec<String> {
    let app = spawn_app_with(backend, |c| {
        c.webhooks_allow_private = true;
        // No delivery during the test: the rows stay as written.
        c.webhook_poll = std::time::Duration::from_secs(3600);
    })
    .await;
    let (ann, bob) = (account(&app, "ann").await, account(&app, "bob").await);
    for who in [&ann, &bob] {
        let res = app
            .post_json(
                "/v1/me/webhooks",
                Some(&who.token),
                &json!({"url": "http://127.0.0.1:9/hook"}),
            )
            .await;
        assert_eq!(res.status(), reqwest::StatusCode::CREATED);
    }
    let id = stacked_game(&app, &ann, &bob, 100, &decks()).await;
    let round1 = [
        (&bob, json!({"type": "take_discard", "slot": 60})),
        (&ann, json!({"type": "draw"})),
        (&bob, json!({"type": "draw"})),
        (&bob, json!({"type": "discard_drawn"})),
        (&ann, json!({"type": "draw"})),
        (
            &ann,
            json!({"type": "swap_card", "with": 1, "their_slot": 60, "my_slot": 60}),
        ),
        (&bob, json!({"type": "draw"})),
        (&bob, json!({"type": "swap_racks", "with": 0})),
        (&ann, json!({"type": "draw"})),
        (&ann, json!({"type": "place_drawn", "slot": 60})),
        (&bob, json!({"type": "call_racko"})),
    ];
    for (who, action) in round1 {
        act(&app, who, &id, action).await;
    }
    rows(&app)
}

#[actix_web::test]
async fn both_stores_write_the_same_feed_items_and_webhook_bodies() {
    if !enabled(TestBackend::Postgres) || !enabled(TestBackend::Sqlite) {
        eprintln!("skipped: this test needs both stores in RACKO_TEST_BACKENDS");
        return;
    }
    let on_postgres = play(TestBackend::Postgres).await;
    let on_sqlite = play(TestBackend::Sqlite).await;
    assert!(
        on_postgres
            .iter()
            .filter(|l| l.starts_with("outbox"))
            .count()
            >= 4,
        "webhook bodies written: {on_postgres:#?}"
    );
    let (postgres, sqlite) = (
        name_ids_and_times(&on_postgres),
        name_ids_and_times(&on_sqlite),
    );
    for (i, (p, s)) in postgres.iter().zip(&sqlite).enumerate() {
        assert_eq!(
            p, s,
            "row {i} differs:\nPostgreSQL {}\nSQLite     {}",
            on_postgres[i], on_sqlite[i]
        );
    }
    assert_eq!(postgres.len(), sqlite.len(), "{postgres:#?}\n{sqlite:#?}");
}

#[test]
fn ids_and_times_are_named_in_order() {
    let lines = [
        "a 0f8e2c1a-1b2c-4d3e-8f90-a1b2c3d4e5f6 2026-12-02T15:09:00.123456Z x".to_string(),
        "b 2026-12-02T15:09:00.123456Z 0f8e2c1a-1b2c-4d3e-8f90-a1b2c3d4e5f6".to_string(),
    ];
    assert_eq!(
        name_ids_and_times(&lines),
        ["a <id0> <time1> x", "b <time1> <id0>"]
    );
}
