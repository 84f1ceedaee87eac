//! The audit queries use their indexes on PostgreSQL: a database with 200,000 events over 20,000
//! games and 1,000 players, analyzed, then `EXPLAIN` of each query the store runs. The plans are
//! printed (`--nocapture`) and kept in docs/audit.md.

use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use racko::store::{AuditEventQuery, GameQuery, GameStatus, Store, Visibility};
use uuid::Uuid;

use crate::common::db::{enabled, TestBackend, TestDb};

/// Accounts a0…a999, games g0…g19999 (one an hour), two seats a game, 10 events a game, one
/// second apart, ten kinds.
const FILL: &str = "
INSERT INTO accounts (id, username, username_lower, password_hash, role, guest, created_at)
SELECT '00000000-0000-0000-0000-' || lpad(i::text, 12, '0'), 'a' || i, 'a' || i, NULL, 'player',
       false, TIMESTAMP '2026-01-01'
FROM generate_series(0, 999) i;
INSERT INTO games (id, created_by, invite_code, options, rules_version, state, status, test_mode,
                   stacked, version, last_seq, created_at, updated_at, listed_at)
SELECT '10000000-0000-0000-0000-' || lpad(g::text, 12, '0'),
       '00000000-0000-0000-0000-' || lpad((g % 1000)::text, 12, '0'), 'CODE' || g, '{}', 1, '{}',
       'finished', false, '[]', 1, 10, TIMESTAMP '2026-01-01' + g * INTERVAL '1 hour',
       TIMESTAMP '2026-01-01' + g * INTERVAL '1 hour', TIMESTAMP '2026-01-01' + g * INTERVAL '1 hour'
FROM generate_series(0, 19999) g;
INSERT INTO game_seats (game_id, seat, account_id, username, awaiting)
SELECT '10000000-0000-0000-0000-' || lpad(g::text, 12, '0'), s,
       '00000000-0000-0000-0000-' || lpad(((g + s * 37) % 1000)::text, 12, '0'),
       'a' || ((g + s * 37) % 1000), false
FROM generate_series(0, 19999) g, generate_series(0, 1) s;
INSERT INTO game_events (game_id, seq, round, kind, actor, payload, created_at)
SELECT '10000000-0000-0000-0000-' || lpad(g::text, 12, '0'), q, 1,
       (ARRAY['drew','drawn_placed','turn_started','discard_taken','drawn_discarded','skipped',
              'cards_swapped','racks_swapped','racko_called','round_ended'])[1 + q % 10],
       '00000000-0000-0000-0000-' || lpad(((g + (q % 2) * 37) % 1000)::text, 12, '0'), '{}',
       TIMESTAMP '2026-01-01' + g * INTERVAL '1 hour' + q * INTERVAL '1 second'
FROM generate_series(0, 19999) g, generate_series(1, 10) q;
ANALYZE;
";

fn uses_an_index(name: &str, plan: &[String]) {
    let text = plan.join("\n");
    println!("--- {name}\n{text}");
    assert!(text.contains("Index"), "{name} uses no index:\n{text}");
    assert!(
        !text.contains("Seq Scan"),
        "{name} reads a whole table:\n{text}"
    );
}

#[test]
fn audit_queries_use_their_indexes() {
    if !enabled(TestBackend::Postgres) {
        eprintln!("skipped: postgres is not in RACKO_TEST_BACKENDS");
        return;
    }
    let db = TestDb::new(TestBackend::Postgres);
    PgConnection::establish(&db.url)
        .expect("connect")
        .batch_execute(FILL)
        .expect("fill");
    let store = Store::open(&db.url, 1).expect("store");
    let player = Uuid::parse_str("00000000-0000-0000-0000-000000000007").expect("uuid");
    let game = Uuid::parse_str("10000000-0000-0000-0000-000000005000").expect("uuid");
    let at = |hours: i64| {
        chrono::DateTime::from_timestamp(1_767_225_600 + hours * 3600, 0).expect("a time")
    };
    let page = store
        .audit_events(&AuditEventQuery {
            actor: Some(player),
            limit: 5,
            ..AuditEventQuery::default()
        })
        .expect("a page");
    let cursor = page.next_cursor.expect("more pages");
    let queries = [
        (
            "by player",
            AuditEventQuery {
                actor: Some(player),
                ..Default::default()
            },
        ),
        (
            "by player, page 2",
            AuditEventQuery {
                actor: Some(player),
                cursor: Some(cursor),
                ..Default::default()
            },
        ),
        (
            "by kind",
            AuditEventQuery {
                kinds: vec!["racko_called".into()],
                ..Default::default()
            },
        ),
        (
            "by time",
            AuditEventQuery {
                from: Some(at(300)),
                to: Some(at(310)),
                ..Default::default()
            },
        ),
        (
            "by game",
            AuditEventQuery {
                game: Some(game),
                ..Default::default()
            },
        ),
        ("everything", AuditEventQuery::default()),
        (
            "by player, kind and time",
            AuditEventQuery {
                actor: Some(player),
                kinds: vec!["drew".into()],
                from: Some(at(100)),
                to: Some(at(900)),
                ..Default::default()
            },
        ),
    ];
    for (name, mut query) in queries {
        query.limit = 100;
        uses_an_index(name, &store.explain_audit_events(&query).expect("explain"));
    }
    uses_an_index(
        "a player's games",
        &store.explain_player_games(player).expect("explain"),
    );
    // The public lists read the games of a status by `listed_at`, the latest first, from their
    // index, on every page (moves leave `listed_at` alone, so the index costs a move nothing).
    let finished = GameQuery {
        status: Some(GameStatus::Finished),
        visibility: Some(Visibility::Public),
        limit: 5,
        ..GameQuery::default()
    };
    // Where a page ending at game 10000 leaves off: hex of "micros:id" (the games' states
    // here are not real ones, so no page is read).
    let ended = format!(
        "{}:{}",
        at(10_000).timestamp_micros(),
        "10000000-0000-0000-0000-000000010000"
    );
    let next = GameQuery {
        cursor: Some(ended.bytes().map(|b| format!("{b:02x}")).collect()),
        ..finished.clone()
    };
    let open = GameQuery {
        status: Some(GameStatus::Open),
        ..finished.clone()
    };
    for (name, query) in [
        ("finished games", &finished),
        ("page 2", &next),
        ("the lobby", &open),
    ] {
        let plan = store.explain_list_games(query).expect("explain");
        uses_an_index(name, &plan);
        assert!(
            plan.join("\n").contains("games_status_listed_at_id_idx"),
            "{name} reads the lists' index:\n{plan:#?}"
        );
    }
    let page_2 = store.explain_list_games(&next).expect("explain").join("\n");
    assert!(
        page_2.contains("Index Cond: ((status = 'finished'::text) AND (listed_at <="),
        "a later page starts in the index where the previous one ended:\n{page_2}"
    );
    // A game's own log lives in one partition of the partitioned event log: its reads touch
    // that one and no other.
    let by_game = AuditEventQuery {
        game: Some(game),
        limit: 100,
        ..Default::default()
    };
    let plans = [
        ("a game's log page", store.explain_game_events(game, 0)),
        ("by game", store.explain_audit_events(&by_game)),
    ];
    for (name, plan) in plans {
        let plan = plan.expect("explain");
        uses_an_index(name, &plan);
        assert_eq!(
            partitions_read(&plan).len(),
            1,
            "{name} reads one partition:\n{plan:#?}"
        );
    }
    let everything = store
        .explain_audit_events(&AuditEventQuery {
            limit: 100,
            ..Default::default()
        })
        .expect("explain");
    assert_eq!(
        partitions_read(&everything).len(),
        16,
        "cross-game queries read them all"
    );
}

/// The partitions of `game_events` a plan scans.
fn partitions_read(plan: &[String]) -> std::collections::BTreeSet<String> {
    plan.iter()
        .flat_map(|line| line.split_whitespace())
        .filter(|word| {
            word.starts_with("game_events_p") && word[13..].chars().all(|c| c.is_ascii_digit())
        })
        .map(str::to_string)
        .collect()
}
