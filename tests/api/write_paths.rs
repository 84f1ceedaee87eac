//! Both write paths write the same bytes. A change of a game is written on PostgreSQL by one
//! statement (`store::pg_write`, with or without the game's row lock), on SQLite by a
//! transaction of several (`games::apply_change`, `feed::append`): the same game, played on
//! each, must leave the same rows in every column: the game, its seats and events, the feed
//! items and heads, the webhook and push outbox rows (whose bodies receivers check signatures
//! over) and the idempotency records, byte for byte once the ids, hashes and times of each
//! run are named by their order of first appearance. And each action is decided once
//! (`racko_game_decisions_total`), on either store.

use std::collections::HashMap;

use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::audit::stacked::decks;
use crate::audit::{account, stacked_game, Who};
use crate::common::app::{json_body, spawn_app_with, TestApp};
use crate::common::db::{enabled, TestBackend};
use crate::tables::{next_move, players, post_with, small_game, Player};

/// The rows a change writes, in order, as stored text.
#[derive(QueryableByName)]
struct Row {
    #[diesel(sql_type = diesel::sql_types::Text)]
    line: String,
}

/// Every column of every row an action writes, by game or account (named) and seq. SQL that
/// both databases run alike: text by `CAST`, booleans spelled out, NULL as `-`.
const ROWS: &str = "SELECT line FROM ( \
       SELECT 'game ' || g.id || ' ' || g.version || ' ' || g.last_seq || ' ' || g.status \
              || ' ' || CAST(g.updated_at AS TEXT) || ' ' || CAST(g.listed_at AS TEXT) || ' ' \
              || coalesce(CAST(g.due_at AS TEXT), '-') AS line, \
              '' AS who, 0 AS s, 0 AS part \
         FROM games g \
       UNION ALL \
       SELECT 'seat ' || s.game_id || ' ' || s.seat || ' ' || s.account_id || ' ' || s.username \
              || ' ' || CASE WHEN s.awaiting THEN 'awaiting' ELSE 'idle' END || ' ' \
              || coalesce(CAST(s.deadline AS TEXT), '-') || ' ' \
              || CASE WHEN s.reminded THEN 'reminded' ELSE 'not-reminded' END, \
              s.username, s.seat, 1 \
         FROM game_seats s \
       UNION ALL \
       SELECT 'event ' || e.game_id || ' ' || e.seq || ' ' || e.round || ' ' || e.kind || ' ' \
              || coalesce(e.actor, '-') || ' ' || CAST(e.created_at AS TEXT), '', e.seq, 2 \
         FROM game_events e \
       UNION ALL \
       SELECT 'feed ' || u.username || ' ' || f.seq || ' ' || f.kind || ' ' \
              || coalesce(f.game_id, '-') || ' ' || coalesce(CAST(f.game_version AS TEXT), '-') \
              || ' ' || f.payload || ' ' || CAST(f.created_at AS TEXT), u.username, f.seq, 3 \
         FROM account_feed f JOIN accounts u ON u.id = f.account_id \
       UNION ALL \
       SELECT 'head ' || u.username || ' ' || h.last_seq, u.username, 0, 4 \
         FROM account_feed_heads h JOIN accounts u ON u.id = h.account_id \
       UNION ALL \
       SELECT 'outbox ' || u.username || ' ' || o.id || ' ' || o.endpoint_id || ' ' \
              || o.feed_seq || ' ' || o.kind || ' ' || o.body || ' ' || o.status || ' ' \
              || o.attempts || ' ' || CAST(o.next_at AS TEXT) || ' ' \
              || coalesce(CAST(o.claimed_until AS TEXT), '-') || ' ' \
              || coalesce(CAST(o.last_status AS TEXT), '-') || ' ' \
              || coalesce(o.last_error, '-') || ' ' || CAST(o.created_at AS TEXT) || ' ' \
              || coalesce(CAST(o.finished_at AS TEXT), '-'), \
              u.username, o.feed_seq, 5 \
         FROM webhook_outbox o JOIN webhook_endpoints w ON w.id = o.endpoint_id \
         JOIN accounts u ON u.id = w.account_id \
       UNION ALL \
       SELECT 'push ' || u.username || ' ' || p.id || ' ' || p.device_id || ' ' || p.feed_seq \
              || ' ' || p.kind || ' ' || coalesce(p.game_id, '-') || ' ' || p.body || ' ' \
              || p.status || ' ' || p.attempts || ' ' || CAST(p.next_at AS TEXT) || ' ' \
              || coalesce(CAST(p.claimed_until AS TEXT), '-') || ' ' \
              || coalesce(CAST(p.last_status AS TEXT), '-') || ' ' \
              || coalesce(p.last_error, '-') || ' ' || CAST(p.created_at AS TEXT) || ' ' \
              || coalesce(CAST(p.finished_at AS TEXT), '-'), \
              u.username, p.feed_seq, 6 \
         FROM push_outbox p JOIN push_devices d ON d.id = p.device_id \
         JOIN accounts u ON u.id = d.account_id \
       UNION ALL \
       SELECT 'key ' || u.username || ' ' || k.key || ' ' || k.request_hash || ' ' || k.status \
              || ' ' || k.body || ' ' || CAST(k.created_at AS TEXT) || ' ' || k.stored_as, \
              u.username || ' ' || k.key, 0, 7 \
         FROM idempotency_keys k JOIN accounts u ON u.id = k.account_id \
     ) AS rows ORDER BY part, who, s, line";

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

/// The first id, hash or time in `text`: (offset, length, kind). An id is a uuid or the 32
/// hex digits of an outbox row's id, a hash 64 hex digits, a time RFC 3339 or SQL's text of a
/// timestamp (a space for the `T`).
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
        let time_start = bytes.len() >= at + 19
            && bytes[at..at + 4].iter().all(u8::is_ascii_digit)
            && bytes[at + 4] == b'-'
            && (bytes[at + 10] == b'T' || bytes[at + 10] == b' ');
        if time_start {
            let len = 11
                + bytes[at + 11..]
                    .iter()
                    .position(|b| !(b.is_ascii_digit() || b"-:.Z".contains(b)))
                    .unwrap_or(bytes.len() - at - 11);
            return Some((at, len, "time"));
        }
        if at == 0 || !hex(bytes[at - 1]) {
            let run = bytes[at..].iter().take_while(|b| hex(**b)).count();
            match run {
                32 => return Some((at, 32, "id")),
                64 => return Some((at, 64, "hash")),
                _ => {}
            }
        }
    }
    None
}

/// A web push subscription (never sent to: no delivery runs during the test).
fn web_push() -> Value {
    let p256dh = format!("B{}", "A".repeat(86));
    json!({ "web_push": { "endpoint": "http://127.0.0.1:9/sub", "keys": { "p256dh": p256dh, "auth": "tBHItJI5svbpez7KI4CCXg" } } })
}

/// `who` acts on game `id` at the version he sees, with an `Idempotency-Key`.
async fn act_keyed(app: &TestApp, who: &Who, id: &str, action: Value, key: &str) {
    let seen = json_body(
        app.get(&format!("/v1/games/{id}"), Some(&who.token)).await,
        StatusCode::OK,
    )
    .await;
    let body = json!({"version": seen["version"], "action": action});
    let path = format!("/v1/games/{id}/actions");
    let res = post_with(
        app,
        &path,
        Some(&who.token),
        &[("idempotency-key", key)],
        &body,
    )
    .await;
    json_body(res, StatusCode::OK).await;
}

/// Plays round 1 of the stacked game on `backend`: both players with a webhook endpoint (bob's
/// for his turns only) and ann with a push device; every action with a key.
async fn play(backend: TestBackend) -> Vec<String> {
    let app = spawn_app_with(backend, |c| {
        c.webhooks_allow_private = true;
        // No delivery during the test: the rows stay as written.
        c.webhook_poll = std::time::Duration::from_secs(3600);
        c.push.poll = std::time::Duration::from_secs(3600);
        c.push.allow_http = true;
    })
    .await;
    let (ann, bob) = (account(&app, "ann").await, account(&app, "bob").await);
    for (who, kinds) in [(&ann, json!([])), (&bob, json!(["your_turn"]))] {
        let res = app
            .post_json(
                "/v1/me/webhooks",
                Some(&who.token),
                &json!({"url": "http://127.0.0.1:9/hook", "kinds": kinds}),
            )
            .await;
        assert_eq!(res.status(), StatusCode::CREATED);
    }
    let res = app
        .post_json("/v1/me/devices", Some(&ann.token), &web_push())
        .await;
    json_body(res, StatusCode::CREATED).await;
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
    for (i, (who, action)) in round1.into_iter().enumerate() {
        act_keyed(&app, who, &id, action, &format!("turn-{i}")).await;
    }
    rows(&app)
}

#[actix_web::test]
async fn both_stores_write_the_same_rows() {
    if !enabled(TestBackend::Postgres) || !enabled(TestBackend::Sqlite) {
        eprintln!("skipped: this test needs both stores in RACKO_TEST_BACKENDS");
        return;
    }
    let on_postgres = play(TestBackend::Postgres).await;
    let on_sqlite = play(TestBackend::Sqlite).await;
    for (kind, at_least) in [("outbox", 4), ("push", 2), ("key", 11), ("feed", 4)] {
        let found = on_postgres
            .iter()
            .filter(|l| l.starts_with(&format!("{kind} ")))
            .count();
        assert!(found >= at_least, "{kind} rows: {on_postgres:#?}");
    }
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

const DECISIONS: &str = "racko_game_decisions_total";

/// Sends `body` as `player`'s action and returns its status and the decisions it took.
async fn decisions_of(
    app: &TestApp,
    player: &Player,
    game: &str,
    body: &Value,
    key: Option<&str>,
) -> (StatusCode, f64) {
    let before = app.scrape().await;
    let headers: Vec<(&str, &str)> = key.map(|k| ("idempotency-key", k)).into_iter().collect();
    let path = format!("/v1/games/{game}/actions");
    let res = post_with(app, &path, player.token(), &headers, body).await;
    let status = res.status();
    res.bytes().await.expect("the answer");
    (status, app.scrape().await.rise(&before, DECISIONS))
}

async fn each_action_is_decided_once(backend: TestBackend) {
    if !enabled(backend) {
        return;
    }
    let app = spawn_app_with(backend, |config| {
        // Nothing of the server's own: only the requests decide.
        config.sweep_every = std::time::Duration::from_secs(3600);
    })
    .await;
    let table = players(&app, &["ann", "bob"]).await;
    let game = small_game(&app, &table).await;
    for turn in 0..8 {
        let (i, body) = next_move(&app, &table, &game).await;
        let key = format!("move-{turn}");
        let (status, decided) = decisions_of(&app, &table[i], &game, &body, Some(&key)).await;
        assert_eq!(
            (status, decided),
            (StatusCode::OK, 1.0),
            "move {turn}: {body}"
        );
        // A keyed retry answers from the record: no decision.
        let (status, decided) = decisions_of(&app, &table[i], &game, &body, Some(&key)).await;
        assert_eq!((status, decided), (StatusCode::OK, 0.0), "retry {turn}");
        // The same move again, without a key, at the version now gone: refused, once
        // (on PostgreSQL the game this process wrote last refuses it, and is still the game).
        let (status, decided) = decisions_of(&app, &table[i], &game, &body, None).await;
        assert_eq!(
            (status, decided),
            (StatusCode::CONFLICT, 1.0),
            "stale {turn}"
        );
    }
    // A move out of turn is refused by the rules, once.
    let (i, body) = next_move(&app, &table, &game).await;
    let other = &table[1 - i];
    let (status, decided) = decisions_of(&app, other, &game, &body, None).await;
    assert!(status.is_client_error(), "{status}");
    assert_eq!(decided, 1.0, "a move out of turn");
}

#[actix_web::test]
async fn each_action_is_decided_once_on_postgres() {
    each_action_is_decided_once(TestBackend::Postgres).await
}

#[actix_web::test]
async fn each_action_is_decided_once_on_sqlite() {
    each_action_is_decided_once(TestBackend::Sqlite).await
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
