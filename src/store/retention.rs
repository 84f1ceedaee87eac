//! How long finished rows are kept: webhook deliveries that were delivered or failed are
//! deleted after a while (the delivery log shows recent ones), in bounded batches.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use super::schema::webhook_outbox::dsl as wo;
use super::{Store, StoreError};

impl Store {
    /// Deletes at most `batch` deliveries finished (delivered or failed) before `before`;
    /// returns how many. Pending ones are never touched.
    pub fn delete_finished_deliveries(
        &self,
        before: chrono::DateTime<chrono::Utc>,
        batch: i64,
    ) -> Result<usize, StoreError> {
        let before: NaiveDateTime = before.naive_utc();
        self.write(|conn| {
            let ids: Vec<String> = wo::webhook_outbox
                .filter(wo::status.ne("pending"))
                .filter(wo::finished_at.lt(before))
                .order(wo::finished_at.asc())
                .select(wo::id)
                .limit(batch.max(0))
                .load(conn)?;
            Ok(diesel::delete(wo::webhook_outbox.filter(wo::id.eq_any(ids))).execute(conn)?)
        })
    }
}
