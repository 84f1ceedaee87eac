//! Unit tests of what the public API cannot reach: URL parsing and the compare-and-set guard
//! (callers go through `update_game`, which decides again on the game it lost the CAS to).

use std::path::PathBuf;

use racko_rules::{Game, Options};

use super::conn::{write_tx, Target};
use super::*;

#[test]
fn urls_name_the_backend() {
    for (url, path) in [
        (
            "sqlite:///var/lib/racko/racko.db",
            "/var/lib/racko/racko.db",
        ),
        ("sqlite://data/racko.db", "data/racko.db"),
        ("sqlite:racko.db", "racko.db"),
        ("./racko.db", "./racko.db"),
    ] {
        match Target::parse(url) {
            Ok(Target::Sqlite(p, _)) => assert_eq!(p, PathBuf::from(path)),
            other => panic!("{url}: {other:?}"),
        }
    }
    for url in [
        "postgres://u:secret@db:5432/racko?sslmode=disable",
        "postgresql://db/racko",
    ] {
        let target = Target::parse(url).expect("parses");
        assert!(matches!(target, Target::Pg(_)));
        assert!(
            !target.describe().contains("secret"),
            "{}",
            target.describe()
        );
    }
    assert_eq!(
        Target::parse("postgres://u:secret@db:5432/racko?x=1")
            .unwrap()
            .describe(),
        "PostgreSQL at db:5432/racko"
    );
    assert!(Target::parse("sqlite://").is_err());
}

/// Issue 14.5: an acknowledged SQLite commit is on disk (`synchronous = FULL`, value 2)
/// unless the URL asks for less.
#[test]
fn sqlite_commits_are_durable_unless_the_url_says_otherwise() {
    use diesel::prelude::*;
    use diesel::sql_types::Integer;
    #[derive(QueryableByName)]
    struct Pragma {
        #[diesel(sql_type = Integer)]
        synchronous: i32,
    }
    let dir = std::env::temp_dir().join(format!("racko-unit-{}", Uuid::new_v4().simple()));
    let file = dir.join("racko.db").display().to_string();
    for (url, expected) in [
        (format!("sqlite://{file}"), 2),
        (format!("sqlite://{file}?synchronous=full"), 2),
        (format!("sqlite://{file}?synchronous=normal"), 1),
    ] {
        let target = Target::parse(&url).expect("parses");
        let conn::AnyConnection::Sqlite(mut conn) = target.connect().expect("opens") else {
            panic!("{url}: not SQLite");
        };
        let pragma = diesel::sql_query("PRAGMA synchronous")
            .get_result::<Pragma>(&mut conn)
            .expect("pragma");
        assert_eq!(pragma.synchronous, expected, "{url}");
        #[derive(QueryableByName)]
        struct Checkpoint {
            #[diesel(sql_type = Integer)]
            wal_autocheckpoint: i32,
        }
        let every = diesel::sql_query("PRAGMA wal_autocheckpoint")
            .get_result::<Checkpoint>(&mut conn)
            .expect("pragma");
        assert_eq!(
            every.wal_autocheckpoint, 10_000,
            "{url}: the log is copied less often"
        );
        #[derive(QueryableByName)]
        struct TempStore {
            #[diesel(sql_type = Integer)]
            temp_store: i32,
        }
        let temp = diesel::sql_query("PRAGMA temp_store")
            .get_result::<TempStore>(&mut conn)
            .expect("pragma");
        assert_eq!(temp.temp_store, 2, "{url}: savepoints journal in memory");
    }
    assert!(Target::parse(&format!("sqlite://{file}?synchronous=off")).is_err());
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_stale_compare_and_set_writes_nothing() {
    let dir = std::env::temp_dir().join(format!("racko-unit-{}", Uuid::new_v4().simple()));
    let store = Store::open(&dir.join("racko.db").display().to_string(), 2).expect("opens");
    let who = store
        .insert_account(&NewAccount {
            username: "a".into(),
            password_hash: None,
            role: Role::Player,
            guest: true,
        })
        .expect("account");
    let state = Game::new(Options::default()).expect("a game");
    let game = NewGame {
        id: Uuid::new_v4(),
        created_by: who.id,
        invite_code: "code".into(),
        options: Options::default(),
        rules_version: 1,
        state: state.clone(),
        status: GameStatus::Open,
        seats: vec![],
        test_mode: false,
        stacked: vec![],
        created_at: crate::store::now(),
        due_at: None,
        rematch_of: None,
        access: Default::default(),
    };
    let stale = store.insert_game(&game, &[], None).expect("inserted").value;
    let changed = Changed {
        state,
        status: GameStatus::Active,
        seats: vec![],
        at: crate::store::now(),
        due_at: None,
    };
    let event = NewEvent {
        round: 0,
        kind: "k".into(),
        actor: None,
        payload: serde_json::json!({}),
    };
    let change = stale.after(changed, vec![event], vec![]);
    let apply = |record: &GameRecord| {
        let mut conn = store.conn().expect("a connection");
        write_tx(&mut conn, |conn| games::apply_change(conn, record, &change))
    };
    apply(&stale).expect("the first write applies");
    let again = apply(&stale);
    assert!(
        matches!(again, Err(StoreError::StaleVersion { current: 2 })),
        "{again:?}"
    );
    let gone = GameRecord {
        id: Uuid::new_v4(),
        ..stale.clone()
    };
    assert!(matches!(apply(&gone), Err(StoreError::NotFound)));
    let record = store.game(game.id).expect("reads").expect("exists");
    // The store writes exactly the record `GameRecord::after` describes.
    assert_eq!(record.updated_at, change.next().updated_at);
    assert_eq!(
        (record.version, record.last_seq, record.status),
        (2, 1, GameStatus::Active)
    );
    assert_eq!(store.events(game.id, 0, 10).expect("events").len(), 1);
    drop(store);
    let _ = std::fs::remove_dir_all(dir);
}

/// A request's connection plans each prepared statement once for all its values; the queries
/// that need a partial index say its value in their text (`literal`). PostgreSQL only: run
/// when `RACKO_TEST_BACKENDS` names it (or is unset), on `RACKO_TEST_PG_URL`'s server.
#[test]
fn postgres_connections_plan_each_statement_once() {
    let backends = std::env::var("RACKO_TEST_BACKENDS").unwrap_or_default();
    if !backends.is_empty() && !backends.contains("postgres") {
        eprintln!("skipped: postgres is not in RACKO_TEST_BACKENDS");
        return;
    }
    let url = std::env::var("RACKO_TEST_PG_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into());
    use diesel::prelude::*;
    use diesel::sql_types::Text;
    #[derive(QueryableByName)]
    struct Mode {
        #[diesel(sql_type = Text)]
        plan_cache_mode: String,
    }
    let target = Target::parse(&url).expect("a PostgreSQL url");
    let statements = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let conn = target.connect_with(&conn::Waits::default(), &statements);
    let Ok(conn::AnyConnection::Pg(mut conn)) = conn else {
        panic!("{url}: no PostgreSQL connection");
    };
    let mode = diesel::sql_query("SHOW plan_cache_mode")
        .get_result::<Mode>(&mut conn)
        .expect("shown");
    assert_eq!(mode.plan_cache_mode, "force_generic_plan");
}
