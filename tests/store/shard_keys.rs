//! The schema is ready for a distributed PostgreSQL (docs/scaling.md): game data distributed by
//! the game's id, accounts as a reference table. Checked on the migrated schema, so a table a
//! later migration adds is held to the same rules:
//! - a game table is `games` (keyed by `id`, the game's id) or any table with a NOT NULL
//!   `game_id`; its primary key holds the game's id;
//! - a foreign key between two game tables pairs `game_id` with the game's id, so both rows
//!   live on the same node;
//! - a game table refers to no other table but a reference table;
//! - no other table refers to a game table (a nullable `game_id` there is a pointer, not a key).

use diesel::sql_types::Text;

use super::*;

/// Tables every node holds a copy of.
const REFERENCE_TABLES: &[&str] = &["accounts", "settings"];

#[derive(QueryableByName)]
struct Column {
    #[diesel(sql_type = Text)]
    table_name: String,
}

#[derive(QueryableByName)]
struct Key {
    #[diesel(sql_type = Text)]
    table_name: String,
    #[diesel(sql_type = Text)]
    columns: String,
}

#[derive(QueryableByName, Debug)]
struct Reference {
    #[diesel(sql_type = Text)]
    name: String,
    #[diesel(sql_type = Text)]
    from_table: String,
    #[diesel(sql_type = Text)]
    from_columns: String,
    #[diesel(sql_type = Text)]
    to_table: String,
    #[diesel(sql_type = Text)]
    to_columns: String,
}

/// The column holding the game's id in a game table.
fn game_column(table: &str) -> &'static str {
    if table == "games" {
        "id"
    } else {
        "game_id"
    }
}

#[test]
fn every_game_table_is_keyed_by_its_game() {
    if !enabled(TestBackend::Postgres) {
        eprintln!("skipped: postgres is not in RACKO_TEST_BACKENDS");
        return;
    }
    let db = TestDb::new(TestBackend::Postgres);
    Store::open(&db.url, 1).expect("migrated");
    let mut conn = PgConnection::establish(&db.url).expect("connect");

    let mut game_tables: BTreeSet<String> = diesel::sql_query(
        "SELECT c.relname AS table_name FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid \
         JOIN pg_namespace n ON n.oid = c.relnamespace \
         WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition \
           AND a.attname = 'game_id' AND a.attnotnull AND NOT a.attisdropped",
    )
    .load::<Column>(&mut conn)
    .expect("columns")
    .into_iter()
    .map(|c| c.table_name)
    .collect();
    game_tables.insert("games".into());
    for expected in ["games", "game_seats", "game_events"] {
        assert!(game_tables.contains(expected), "{expected} is a game table");
    }

    let keys: Vec<Key> = diesel::sql_query(
        "SELECT c.relname AS table_name, string_agg(a.attname, ',' ORDER BY k.ord) AS columns \
         FROM pg_constraint x JOIN pg_class c ON c.oid = x.conrelid \
         JOIN pg_namespace n ON n.oid = c.relnamespace \
         CROSS JOIN LATERAL unnest(x.conkey) WITH ORDINALITY AS k(attnum, ord) \
         JOIN pg_attribute a ON a.attrelid = x.conrelid AND a.attnum = k.attnum \
         WHERE n.nspname = 'public' AND x.contype = 'p' AND NOT c.relispartition \
         GROUP BY c.relname",
    )
    .load(&mut conn)
    .expect("primary keys");
    for table in &game_tables {
        let key = keys
            .iter()
            .find(|k| &k.table_name == table)
            .unwrap_or_else(|| panic!("{table} has no primary key"));
        assert!(
            key.columns.split(',').any(|c| c == game_column(table)),
            "{table}'s primary key ({}) lacks {}",
            key.columns,
            game_column(table)
        );
    }

    let references: Vec<Reference> = diesel::sql_query(
        "SELECT x.conname AS name, f.relname AS from_table, t.relname AS to_table, \
           (SELECT string_agg(a.attname, ',' ORDER BY k.ord) FROM unnest(x.conkey) \
              WITH ORDINALITY AS k(attnum, ord) \
              JOIN pg_attribute a ON a.attrelid = x.conrelid AND a.attnum = k.attnum) \
             AS from_columns, \
           (SELECT string_agg(a.attname, ',' ORDER BY k.ord) FROM unnest(x.confkey) \
              WITH ORDINALITY AS k(attnum, ord) \
              JOIN pg_attribute a ON a.attrelid = x.confrelid AND a.attnum = k.attnum) \
             AS to_columns \
         FROM pg_constraint x JOIN pg_class f ON f.oid = x.conrelid \
         JOIN pg_class t ON t.oid = x.confrelid \
         JOIN pg_namespace n ON n.oid = f.relnamespace \
         WHERE n.nspname = 'public' AND x.contype = 'f' AND NOT f.relispartition \
           AND x.conparentid = 0",
    )
    .load(&mut conn)
    .expect("foreign keys");
    for r in &references {
        let (from_game, to_game) = (
            game_tables.contains(&r.from_table),
            game_tables.contains(&r.to_table),
        );
        match (from_game, to_game) {
            (true, true) => {
                let pairs: Vec<(&str, &str)> = r
                    .from_columns
                    .split(',')
                    .zip(r.to_columns.split(','))
                    .collect();
                assert!(
                    pairs.contains(&(game_column(&r.from_table), game_column(&r.to_table))),
                    "{} pairs no game ids: {r:?}",
                    r.name
                );
            }
            (true, false) => assert!(
                REFERENCE_TABLES.contains(&r.to_table.as_str()),
                "game table {} refers to {}, which is not a reference table ({})",
                r.from_table,
                r.to_table,
                r.name
            ),
            (false, true) => panic!(
                "{} refers to the game table {} ({}): it would cross nodes",
                r.from_table, r.to_table, r.name
            ),
            (false, false) => {}
        }
    }
}
