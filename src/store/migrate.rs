//! Embedded migrations, applied under a lock so that several processes may start at once.

use diesel::connection::{AnsiTransactionManager, TransactionManager};
use diesel::prelude::*;
use diesel::sql_types::BigInt;
use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};

use super::conn::{AnyConnection, Target};
use super::group_commit::sqlite_write_group;
use super::StoreError;

const POSTGRES: EmbeddedMigrations = embed_migrations!("migrations/postgres");
const SQLITE: EmbeddedMigrations = embed_migrations!("migrations/sqlite");

/// The key of the PostgreSQL advisory lock held while migrating (any fixed number; this one
/// spells "racko" in ASCII).
const MIGRATION_LOCK: i64 = 0x72_61_63_6b_6f;

/// Connects to `target` and applies its pending migrations.
pub fn run(target: &Target) -> Result<(), StoreError> {
    let fail = |e: &dyn std::fmt::Display| StoreError::Internal(format!("migrations failed: {e}"));
    match target.connect()? {
        AnyConnection::Pg(mut conn) => {
            // A session lock: other processes wait here, then find nothing pending.
            diesel::sql_query("SELECT pg_advisory_lock($1)")
                .bind::<BigInt, _>(MIGRATION_LOCK)
                .execute(&mut conn)?;
            let result = conn.run_pending_migrations(POSTGRES).map(drop);
            let unlocked = diesel::sql_query("SELECT pg_advisory_unlock($1)")
                .bind::<BigInt, _>(MIGRATION_LOCK)
                .execute(&mut conn);
            result.map_err(|e| fail(&e))?;
            unlocked?;
        }
        AnyConnection::Sqlite(mut conn) => {
            let path = match target {
                Target::Sqlite(path, _) => path,
                Target::Pg(_) => return Err(fail(&"backend mismatch")),
            };
            let writers = sqlite_write_group(path);
            // Other stores of this process wait behind the migrations, however long they take.
            let _guard = writers.lock_alone();
            // One immediate transaction around all of them (each migration nests as a
            // savepoint): another process waits on the file lock, then finds nothing pending.
            AnsiTransactionManager::begin_transaction_sql(&mut conn, "BEGIN IMMEDIATE")?;
            match conn.run_pending_migrations(SQLITE) {
                Ok(_) => AnsiTransactionManager::commit_transaction(&mut conn)?,
                Err(e) => {
                    let _ = AnsiTransactionManager::rollback_transaction(&mut conn);
                    return Err(fail(&e));
                }
            }
        }
    }
    Ok(())
}
