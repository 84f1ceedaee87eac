//! Opening, migrating and describing the store.

use super::*;

store_tests! {
    fn migrating_again_changes_nothing(store: Store, db: &TestDb) {
        let a = account(&store, "a");
        Store::migrate(&db.url).unwrap();
        Store::migrate(&db.url).unwrap();
        let reopened = Store::open(&db.url, 2).unwrap();
        assert!(reopened.account(a.id).unwrap().is_some());
        reopened.ping().unwrap();
    }

    fn it_says_what_it_is(store: Store, db: &TestDb) {
        store.ping().unwrap();
        let (backend, words) = match db.backend {
            TestBackend::Postgres => (Backend::Postgres, "PostgreSQL"),
            TestBackend::Sqlite => (Backend::Sqlite, "SQLite"),
        };
        assert_eq!(store.backend(), backend);
        assert!(store.describe().contains(words), "{}", store.describe());
        assert!(!store.describe().contains("postgres@"), "{}", store.describe());
    }
}

/// Several processes starting at once on a new database: each migrates under the lock.
fn concurrent_opens_of_a_new_database(backend: TestBackend) {
    if !enabled(backend) {
        return;
    }
    let db = TestDb::empty(backend);
    let barrier = Arc::new(Barrier::new(8));
    let opened: Vec<_> = (0..8)
        .map(|_| {
            let (url, barrier) = (db.url.clone(), barrier.clone());
            thread::spawn(move || {
                barrier.wait();
                Store::open(&url, 2).map(|store| account(&store, &Uuid::new_v4().to_string()))
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|t| t.join().expect("no panic"))
        .collect();
    assert!(opened.iter().all(|r| r.is_ok()), "{opened:?}");
}

#[test]
fn concurrent_opens_of_a_new_postgres_database() {
    concurrent_opens_of_a_new_database(TestBackend::Postgres);
}

#[test]
fn concurrent_opens_of_a_new_sqlite_file() {
    concurrent_opens_of_a_new_database(TestBackend::Sqlite);
}

#[test]
fn a_failed_connection_says_why() {
    if enabled(TestBackend::Postgres) {
        let e = Store::open("postgres://postgres@127.0.0.1:1/racko", 1).err();
        let text = format!("{e:?}");
        assert!(text.contains("Connection refused"), "{text}");
    }
    if enabled(TestBackend::Sqlite) {
        let e = Store::open("sqlite:///dev/null/racko.db", 1).err();
        let text = format!("{e:?}");
        assert!(
            text.contains("cannot open SQLite file /dev/null/racko.db"),
            "{text}"
        );
    }
}

/// A backend named in `RACKO_TEST_BACKENDS` that cannot be reached fails its tests (the
/// harness panics with this message) instead of skipping them; one not named is not tried.
#[test]
fn a_named_backend_that_cannot_be_reached_fails_the_run() {
    let nowhere = "postgres://postgres@127.0.0.1:1/postgres";
    for list in [Some("postgres"), Some("sqlite, postgres"), None] {
        let e = selected(TestBackend::Postgres, list, nowhere).expect_err("unreachable");
        assert!(e.contains("cannot be reached"), "{list:?}: {e}");
        assert!(e.contains("127.0.0.1:1"), "{list:?}: {e}");
        assert!(e.contains("RACKO_TEST_BACKENDS=sqlite"), "{list:?}: {e}");
        // The embedded store is not held up by it.
        assert_eq!(
            selected(TestBackend::Sqlite, list, nowhere),
            Ok(list != Some("postgres"))
        );
    }
    // Not named: not tried, so a machine without PostgreSQL runs the SQLite tests.
    assert_eq!(
        selected(TestBackend::Postgres, Some("sqlite"), nowhere),
        Ok(false)
    );
    assert_eq!(
        selected(TestBackend::Sqlite, Some("SQLite"), nowhere),
        Ok(true)
    );
    // A list that names nothing (or a misspelt backend) would skip everything: an error too.
    for list in ["", " , ", "postgress", "sqlite,mysql"] {
        let e = selected(TestBackend::Sqlite, Some(list), nowhere).expect_err(list);
        assert!(e.contains("RACKO_TEST_BACKENDS"), "{list:?}: {e}");
    }
    assert_eq!(
        named(Some("pg, sqlite, postgresql")),
        Ok(vec![TestBackend::Postgres, TestBackend::Sqlite])
    );
}

/// (table, column, nullable) and the names of the secondary indexes.
type Shape = (BTreeSet<(String, String, bool)>, BTreeSet<String>);

#[derive(QueryableByName)]
struct Column {
    #[diesel(sql_type = Text)]
    table_name: String,
    #[diesel(sql_type = Text)]
    column_name: String,
    #[diesel(sql_type = Bool)]
    nullable: bool,
}

#[derive(QueryableByName)]
struct Index {
    #[diesel(sql_type = Text)]
    name: String,
}

fn pg_shape(url: &str) -> Shape {
    let mut conn = PgConnection::establish(url).expect("connect");
    let columns = diesel::sql_query(
        "SELECT table_name::text, column_name::text, is_nullable = 'YES' AS nullable \
         FROM information_schema.columns WHERE table_schema = 'public' \
         AND table_name::text NOT IN (SELECT relname FROM pg_class WHERE relispartition)",
    )
    .load::<Column>(&mut conn)
    .expect("columns");
    // Constraint-backed indexes (…_pkey, …_key) are SQLite's unnamed autoindexes. A
    // partitioned table's partitions (the event log's) are its storage, not more tables.
    let indexes = diesel::sql_query(
        "SELECT indexname::text AS name FROM pg_indexes WHERE schemaname = 'public' \
         AND tablename::text NOT IN (SELECT relname FROM pg_class WHERE relispartition) \
         AND indexname NOT LIKE '%\\_pkey' AND indexname NOT LIKE '%\\_key'",
    )
    .load::<Index>(&mut conn)
    .expect("indexes");
    shape(columns, indexes)
}

fn sqlite_shape(url: &str) -> Shape {
    let path = url.trim_start_matches("sqlite://");
    let mut conn = SqliteConnection::establish(path).expect("open");
    let columns = diesel::sql_query(
        "SELECT m.name AS table_name, p.name AS column_name, p.\"notnull\" = 0 AS nullable \
         FROM sqlite_master m JOIN pragma_table_info(m.name) p \
         WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
    )
    .load::<Column>(&mut conn)
    .expect("columns");
    let indexes = diesel::sql_query(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL",
    )
    .load::<Index>(&mut conn)
    .expect("indexes");
    shape(columns, indexes)
}

fn shape(columns: Vec<Column>, indexes: Vec<Index>) -> Shape {
    (
        columns
            .into_iter()
            .map(|c| (c.table_name, c.column_name, c.nullable))
            .collect(),
        indexes.into_iter().map(|i| i.name).collect(),
    )
}

#[test]
fn both_backends_have_the_same_tables_columns_and_indexes() {
    if !(enabled(TestBackend::Postgres) && enabled(TestBackend::Sqlite)) {
        return;
    }
    let (pg, sqlite) = (
        TestDb::new(TestBackend::Postgres),
        TestDb::new(TestBackend::Sqlite),
    );
    Store::open(&sqlite.url, 1).expect("migrated");
    let (pg, sqlite) = (pg_shape(&pg.url), sqlite_shape(&sqlite.url));
    assert!(pg.0.len() > 40, "{pg:?}");
    assert!(pg.0.contains(&("games".into(), "version".into(), false)));
    assert!(pg.0.contains(&("game_events".into(), "actor".into(), true)));
    assert_eq!(pg.0, sqlite.0);
    assert!(pg.1.contains("game_seats_account_id_idx"), "{:?}", pg.1);
    assert_eq!(pg.1, sqlite.1);
}

/// Writes `sql` (with `$1` for the game id) behind the store's back.
fn corrupt(db: &TestDb, sql: &str, game: Uuid) {
    let id = game.to_string();
    match db.backend {
        TestBackend::Postgres => {
            let mut conn = PgConnection::establish(&db.url).expect("connect");
            diesel::sql_query(sql)
                .bind::<Text, _>(id)
                .execute(&mut conn)
        }
        TestBackend::Sqlite => {
            let mut conn =
                SqliteConnection::establish(db.url.trim_start_matches("sqlite://")).expect("open");
            diesel::sql_query(sql.replace("$1", "?"))
                .bind::<Text, _>(id)
                .execute(&mut conn)
        }
    }
    .expect("corrupted");
}

store_tests! {
    fn bad_data_in_a_row_is_an_internal_error(store: Store, db: &TestDb) {
        let a = account(&store, "a");
        let (one, two) = (new_game(&a, vec![seat(0, &a, true)]), new_game(&a, vec![]));
        let _ = store.insert_game(&one, &[event("created", None)], None).unwrap();
        let _ = store.insert_game(&two, &[], None).unwrap();
        corrupt(db, "UPDATE games SET state = '{not json' WHERE id = $1", one.id);
        corrupt(db, "UPDATE game_events SET payload = 'nope' WHERE game_id = $1", one.id);
        corrupt(db, "UPDATE games SET status = 'paused' WHERE id = $1", two.id);
        let internal = |r: Result<(), StoreError>| {
            assert!(matches!(r, Err(StoreError::Internal(_))), "{r:?}");
        };
        internal(store.game(one.id).map(drop));
        internal(store.game(two.id).map(drop));
        internal(store.events(one.id, 0, 10).map(drop));
        internal(store.list_games(&GameQuery { limit: 10, ..Default::default() }).map(drop));
        internal(update_at(&store, one.id, 1, vec![]).map(drop));
        corrupt(db, "UPDATE game_seats SET seat = 300 WHERE game_id = $1", one.id);
        corrupt(db, "UPDATE games SET state = (SELECT state FROM games WHERE id <> $1) WHERE id = $1", one.id);
        internal(store.game(one.id).map(drop));
    }
}
