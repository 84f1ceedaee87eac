//! The answers kept for `Idempotency-Key` retries: written with the change they answer, read
//! by a retry, deleted after their day.

use chrono::NaiveDateTime;
use diesel::prelude::*;
use uuid::Uuid;

use super::conn::AnyConnection;
use super::rows::IdempotencyRow;
use super::schema::idempotency_keys;
use super::*;

/// The answers kept, as the service reads and expires them.
impl Store {
    /// The stored response for (account, key), if any.
    pub fn idempotency_record(
        &self,
        account: Uuid,
        key: &str,
    ) -> Result<Option<IdempotencyRecord>, StoreError> {
        self.read(|c| idempotency_record(c, account, key))
    }

    /// Deletes at most `batch` idempotency records stored before `before`; returns how many.
    pub fn delete_idempotency_records(
        &self,
        before: chrono::DateTime<chrono::Utc>,
        batch: i64,
    ) -> Result<usize, StoreError> {
        self.write(|conn| delete_idempotency_before(conn, before.naive_utc(), batch))
    }
}

pub(super) fn insert_idempotency(
    conn: &mut AnyConnection,
    record: &IdempotencyRecord,
) -> Result<(), StoreError> {
    diesel::insert_into(idempotency_keys::table)
        .values(&IdempotencyRow::new(record)?)
        .execute(conn)?;
    Ok(())
}

/// Deletes the oldest records stored before `before`, at most `batch` of them.
pub(super) fn delete_idempotency_before(
    conn: &mut AnyConnection,
    before: NaiveDateTime,
    batch: i64,
) -> Result<usize, StoreError> {
    use idempotency_keys::dsl as k;
    let oldest: Vec<(String, String)> = k::idempotency_keys
        .filter(k::created_at.lt(before))
        .order(k::created_at.asc())
        .select((k::account_id, k::key))
        .limit(batch.max(0))
        .load(conn)?;
    let mut deleted = 0;
    // Per account: one statement per account's keys keeps to what both backends' diesel
    // supports (no row-value IN), and a batch rarely spans many accounts.
    let mut by_account: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for (account, key) in oldest {
        by_account.entry(account).or_default().push(key);
    }
    for (account, keys) in by_account {
        deleted += diesel::delete(
            k::idempotency_keys
                .filter(k::account_id.eq(account))
                .filter(k::key.eq_any(keys)),
        )
        .execute(conn)?;
    }
    Ok(deleted)
}

pub(super) fn idempotency_record(
    conn: &mut AnyConnection,
    account: Uuid,
    key: &str,
) -> Result<Option<IdempotencyRecord>, StoreError> {
    idempotency_keys::table
        .find((account.to_string(), key))
        .first::<IdempotencyRow>(conn)
        .optional()?
        .map(IdempotencyRow::into_record)
        .transpose()
}
