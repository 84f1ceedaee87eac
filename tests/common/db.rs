//! A fresh database per test. PostgreSQL: a template database is migrated once (its name holds
//! a hash of the migration files, so a schema change makes a new one), then each test gets
//! `CREATE DATABASE … TEMPLATE …`, dropped `WITH (FORCE)` when the handle drops. SQLite: a new
//! file in its own temporary folder, removed on drop.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text};
use sha2::{Digest, Sha256};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TestBackend {
    Postgres,
    Sqlite,
}

/// The backends a run tests when `RACKO_TEST_BACKENDS` is not set.
pub const DEFAULT_BACKENDS: &str = "postgres,sqlite";

/// The backends named in `list` (a `RACKO_TEST_BACKENDS` value; None: [`DEFAULT_BACKENDS`]).
/// An unknown name or an empty list is an error: either would run no test of a backend and
/// pass.
pub fn named(list: Option<&str>) -> Result<Vec<TestBackend>, String> {
    let list = list.unwrap_or(DEFAULT_BACKENDS);
    let mut named = Vec::new();
    for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let backend = match name.to_ascii_lowercase().as_str() {
            "postgres" | "postgresql" | "pg" => TestBackend::Postgres,
            "sqlite" => TestBackend::Sqlite,
            _ => {
                return Err(format!(
                    "RACKO_TEST_BACKENDS={list:?}: unknown backend {name:?} \
                     (postgres or sqlite, separated by commas)"
                ))
            }
        };
        if !named.contains(&backend) {
            named.push(backend);
        }
    }
    if named.is_empty() {
        return Err(format!(
            "RACKO_TEST_BACKENDS={list:?} names no backend (postgres, sqlite or both)"
        ));
    }
    Ok(named)
}

/// Whether `backend` can be used: PostgreSQL answers at `pg_url` (the admin URL); SQLite is
/// embedded and always can.
pub fn reachable(backend: TestBackend, pg_url: &str) -> Result<(), String> {
    match backend {
        TestBackend::Postgres => pg_connect(pg_url).map(drop).map_err(|e| {
            format!(
                "postgres is named in RACKO_TEST_BACKENDS (or by its default, \
                 {DEFAULT_BACKENDS:?}), but PostgreSQL at {pg_url} cannot be reached:\n{}\n\
                 Start it, point RACKO_TEST_PG_URL at one, or test without it: \
                 RACKO_TEST_BACKENDS=sqlite",
                e.to_string().trim()
            )
        }),
        TestBackend::Sqlite => Ok(()),
    }
}

/// Whether the tests of `backend` run, given the list `list` and the PostgreSQL admin URL
/// `pg_url`: `Ok(false)` when it is not named (it is not tried, so `RACKO_TEST_BACKENDS=sqlite`
/// needs no PostgreSQL), `Ok(true)` when it is named and reachable, an error saying why when
/// the list is malformed or the backend is named and cannot be reached.
pub fn selected(backend: TestBackend, list: Option<&str>, pg_url: &str) -> Result<bool, String> {
    if !named(list)?.contains(&backend) {
        return Ok(false);
    }
    reachable(backend, pg_url).map(|()| true)
}

/// Whether the tests of `backend` run in this run (see [`selected`], with
/// `RACKO_TEST_BACKENDS` and `RACKO_TEST_PG_URL`). Panics when the variable is malformed or
/// the backend is named and cannot be reached: such a run must fail, not pass with the
/// backend's tests left out. Asked once per backend and process.
pub fn enabled(backend: TestBackend) -> bool {
    static ANSWERS: [OnceLock<Result<bool, String>>; 2] = [OnceLock::new(), OnceLock::new()];
    let slot = match backend {
        TestBackend::Postgres => &ANSWERS[0],
        TestBackend::Sqlite => &ANSWERS[1],
    };
    slot.get_or_init(|| {
        let list = std::env::var("RACKO_TEST_BACKENDS").ok();
        selected(backend, list.as_deref(), &admin_url())
    })
    .clone()
    .unwrap_or_else(|e| panic!("{e}"))
}

/// The backends this run tests, each checked as [`enabled`] does.
pub fn backends() -> Vec<TestBackend> {
    [TestBackend::Postgres, TestBackend::Sqlite]
        .into_iter()
        .filter(|b| enabled(*b))
        .collect()
}

pub struct TestDb {
    /// What `Store::open` takes.
    pub url: String,
    pub backend: TestBackend,
    /// PostgreSQL: the database's name. SQLite: the folder holding the file. Empty for a
    /// database the test does not own (nothing is dropped).
    place: String,
}

/// The key of the advisory lock held while the template is made (other test processes start
/// at the same moment under nextest).
const TEMPLATE_LOCK: i64 = 0x72_61_63_6b_6f_74;

impl TestDb {
    /// A migrated database of `backend`, for this test only.
    pub fn new(backend: TestBackend) -> TestDb {
        match backend {
            TestBackend::Postgres => pg_database(Some(&template())),
            TestBackend::Sqlite => sqlite_file(),
        }
    }

    /// A PostgreSQL database the test made itself (e.g. in its own cluster): left as it is.
    pub fn external(url: &str) -> TestDb {
        TestDb {
            url: url.to_string(),
            backend: TestBackend::Postgres,
            place: String::new(),
        }
    }

    /// An empty database (no migrations applied), e.g. to test migrating.
    pub fn empty(backend: TestBackend) -> TestDb {
        match backend {
            TestBackend::Postgres => pg_database(None),
            TestBackend::Sqlite => sqlite_file(),
        }
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        // Errors are reported, not raised: a panic in drop would hide the test's own result.
        if self.place.is_empty() {
            return;
        }
        match self.backend {
            TestBackend::Postgres => {
                let sql = format!("DROP DATABASE IF EXISTS \"{}\" WITH (FORCE)", self.place);
                let dropped = pg_connect(&admin_url())
                    .map_err(|e| e.to_string())
                    .and_then(|mut c| c.batch_execute(&sql).map_err(|e| e.to_string()));
                if let Err(e) = dropped {
                    eprintln!("cannot drop test database {}: {e}", self.place);
                }
            }
            TestBackend::Sqlite => {
                if let Err(e) = std::fs::remove_dir_all(&self.place) {
                    eprintln!("cannot remove {}: {e}", self.place);
                }
            }
        }
    }
}

fn admin_url() -> String {
    std::env::var("RACKO_TEST_PG_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into())
}

fn admin() -> PgConnection {
    let url = admin_url();
    pg_connect(&url).unwrap_or_else(|e| panic!("cannot connect to {url}: {e}"))
}

/// The admin URL pointed at database `name`.
fn url_of(name: &str) -> String {
    let url = admin_url();
    let (base, query) = url
        .split_once('?')
        .map_or((url.as_str(), None), |(b, q)| (b, Some(q)));
    let base = match base.rfind('/') {
        Some(i) if i > base.find("://").map_or(0, |s| s + 2) => &base[..i],
        _ => base,
    };
    match query {
        Some(q) => format!("{base}/{name}?{q}"),
        None => format!("{base}/{name}"),
    }
}

fn random_name() -> String {
    format!("racko_test_{}", uuid::Uuid::new_v4().simple())
}

/// Creates a test database, copied from `template` or empty. Copies run in parallel: the
/// template is complete before `template()` returns and nobody connects to it afterwards.
fn pg_database(template: Option<&str>) -> TestDb {
    let name = random_name();
    let sql = match template {
        Some(t) => format!("CREATE DATABASE \"{name}\" TEMPLATE \"{t}\""),
        None => format!("CREATE DATABASE \"{name}\""),
    };
    admin()
        .batch_execute(&sql)
        .unwrap_or_else(|e| panic!("cannot create test database {name}: {e}"));
    TestDb {
        url: url_of(&name),
        backend: TestBackend::Postgres,
        place: name,
    }
}

fn lock(conn: &mut PgConnection) {
    diesel::sql_query("SELECT pg_advisory_lock($1)")
        .bind::<BigInt, _>(TEMPLATE_LOCK)
        .execute(conn)
        .expect("the template lock");
}

fn unlock(conn: &mut PgConnection) {
    diesel::sql_query("SELECT pg_advisory_unlock($1)")
        .bind::<BigInt, _>(TEMPLATE_LOCK)
        .execute(conn)
        .expect("the template unlock");
}

#[derive(QueryableByName)]
struct Name {
    #[diesel(sql_type = Text)]
    datname: String,
}

/// The migrated template's name, creating it if needed (once across processes).
fn template() -> String {
    let name = format!("racko_template_{}", &migrations_hash()[..16]);
    let mut conn = admin();
    lock(&mut conn);
    let existing = diesel::sql_query("SELECT datname FROM pg_database WHERE datname = $1")
        .bind::<Text, _>(&name)
        .load::<Name>(&mut conn)
        .expect("pg_database");
    if !existing.iter().any(|n| n.datname == name) {
        // Built under another name and renamed when complete, so that a crash half-way
        // leaves no template that looks finished.
        let building = format!("{name}_building");
        // One statement per call: several would run as one transaction, which these refuse.
        conn.batch_execute(&format!(
            "DROP DATABASE IF EXISTS \"{building}\" WITH (FORCE)"
        ))
        .expect("drop a half-made template");
        conn.batch_execute(&format!("CREATE DATABASE \"{building}\""))
            .expect("create the template");
        racko::store::Store::migrate(&url_of(&building)).expect("migrate the template");
        conn.batch_execute(&format!(
            "ALTER DATABASE \"{building}\" RENAME TO \"{name}\""
        ))
        .expect("rename the template");
    }
    unlock(&mut conn);
    name
}

/// SHA-256 over the PostgreSQL migration files (paths and contents, in path order).
fn migrations_hash() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations/postgres");
    let mut files = Vec::new();
    collect(&root, &mut files);
    files.sort();
    let mut hash = Sha256::new();
    for file in files {
        hash.update(
            file.strip_prefix(&root)
                .unwrap_or(&file)
                .to_string_lossy()
                .as_bytes(),
        );
        hash.update(std::fs::read(&file).expect("a migration file"));
    }
    hex::encode(hash.finalize())
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("the migrations folder") {
        let path = entry.expect("a folder entry").path();
        if path.is_dir() {
            collect(&path, files);
        } else {
            files.push(path);
        }
    }
}

fn sqlite_file() -> TestDb {
    let dir = std::env::temp_dir().join(random_name());
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    TestDb {
        url: format!("sqlite://{}", dir.join("racko.db").display()),
        backend: TestBackend::Sqlite,
        place: dir.display().to_string(),
    }
}

/// A PostgreSQL connection, with OpenSSL prepared as the store prepares it (no exit handler:
/// see `racko::store::prepare_tls`).
pub fn pg_connect(url: &str) -> diesel::ConnectionResult<PgConnection> {
    racko::store::prepare_tls();
    PgConnection::establish(url)
}
