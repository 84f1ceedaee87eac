//! What operators watch at scrape time (`GET /metrics`): the webhook outbox by status, how
//! long the oldest pending delivery has waited, the games past their due time that no sweeper
//! has handled yet, and the connection pool. Counted by the database, so every process shows
//! the same backlog.

use chrono::{DateTime, Utc};
use diesel::dsl::{count_star, min};
use diesel::prelude::*;

use super::rows::utc;
use super::schema::{games, webhook_outbox};
use super::{Store, StoreError};

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Backlog {
    /// Outbox rows by status (`pending`, `delivered`, `failed`); finished ones are kept a week.
    pub deliveries: Vec<(String, i64)>,
    /// When the oldest pending delivery's change was made.
    pub oldest_pending: Option<DateTime<Utc>>,
    /// Games with a sweep due (a deadline, a reminder, a computer's turn, or an early look
    /// at a game whose moves kept a sooner `due_at`) not handled yet.
    pub overdue_games: i64,
    /// The earliest such due time.
    pub oldest_overdue: Option<DateTime<Utc>>,
}

/// The pool's connections now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolUsage {
    pub open: u32,
    pub idle: u32,
    pub max: u32,
}

impl Store {
    /// The backlog as of `now`.
    pub fn backlog(&self, now: DateTime<Utc>) -> Result<Backlog, StoreError> {
        self.read(|conn| {
            let deliveries = webhook_outbox::table
                .group_by(webhook_outbox::status)
                .select((webhook_outbox::status, count_star()))
                .order(webhook_outbox::status)
                .load::<(String, i64)>(conn)?;
            let oldest_pending = webhook_outbox::table
                .filter(super::literal::webhook_pending())
                .select(min(webhook_outbox::created_at))
                .first::<Option<chrono::NaiveDateTime>>(conn)?;
            let (overdue_games, oldest_overdue) = games::table
                .filter(games::due_at.le(now.naive_utc()))
                .select((count_star(), min(games::due_at)))
                .first::<(i64, Option<chrono::NaiveDateTime>)>(conn)?;
            Ok(Backlog {
                deliveries,
                oldest_pending: oldest_pending.map(utc),
                overdue_games,
                oldest_overdue: oldest_overdue.map(utc),
            })
        })
    }

    pub fn pool_usage(&self) -> PoolUsage {
        let state = self.pool.state();
        PoolUsage {
            open: state.connections,
            idle: state.idle_connections,
            max: self.pool.max_size(),
        }
    }
}
