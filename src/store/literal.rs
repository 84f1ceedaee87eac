//! Conditions written into the SQL text rather than bound.
//!
//! PostgreSQL connections plan every statement once for all values (`conn`,
//! `plan_cache_mode`). A plan made without the values cannot use a partial index whose
//! condition names a value (`WHERE status = 'pending'`), so the queries that need one of those
//! indexes state the value in their text, where the planner sees it.

use diesel::dsl::sql;
use diesel::expression::SqlLiteral;
use diesel::sql_types::Bool;

/// A webhook delivery still to be made (`webhook_outbox_pending_idx`).
pub(super) fn webhook_pending() -> SqlLiteral<Bool> {
    sql("webhook_outbox.status = 'pending'")
}

/// A push still to be sent (`push_outbox_device_pending_idx`).
pub(super) fn push_pending() -> SqlLiteral<Bool> {
    sql("push_outbox.status = 'pending'")
}

/// A seek still open (`seeks_open_pool_idx`).
pub(super) fn seek_open() -> SqlLiteral<Bool> {
    sql("seeks.status = 'open'")
}

#[cfg(test)]
mod tests {
    use super::super::rows::enum_text;
    use super::super::seeks::SeekStatus;

    #[test]
    fn the_literals_are_the_stored_values() {
        assert_eq!(enum_text(&SeekStatus::Open).ok().as_deref(), Some("open"));
    }
}
