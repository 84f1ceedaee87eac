//! A pooled connection taken only when the work needs one.
//!
//! A writer whose game rides in another writer's shared statement (`pg_batch`) never touches
//! the database itself. Taking its connection up front made it hold one idle while it waited,
//! so at a few dozen busy games the pool ran dry and later writers waited for a connection
//! instead of queueing their game for the next statement.

use diesel::r2d2::PooledConnection;

use super::conn::{mark_broken, AnyConnection, Manager};
use super::{Store, StoreError};

pub(super) struct OnDemand<'a> {
    store: &'a Store,
    conn: Option<PooledConnection<Manager>>,
}

impl<'a> OnDemand<'a> {
    pub fn new(store: &'a Store) -> Self {
        OnDemand { store, conn: None }
    }

    /// The connection, taken from the pool on first use.
    pub fn get(&mut self) -> Result<&mut PooledConnection<Manager>, StoreError> {
        if self.conn.is_none() {
            self.conn = Some(self.store.conn()?);
        }
        self.conn
            .as_mut()
            .ok_or_else(|| StoreError::Internal("no connection taken".into()))
    }

    /// Gives the connection back to the pool (a read is done; the write may not need one).
    pub fn release(&mut self) {
        self.conn = None;
    }

    /// Marks the connection, if one was taken, for the pool to drop: its database went away.
    fn mark_broken(&mut self) {
        if let Some(conn) = self.conn.as_mut() {
            mark_broken(conn);
        }
    }

    /// Runs `f` and, when the database went away meanwhile (`Unavailable`), marks the
    /// connection broken (see [`OnDemand::mark_broken`]).
    pub fn mark_if_lost<T>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let result = f(self);
        if let Err(StoreError::Unavailable(_)) = &result {
            self.mark_broken();
        }
        result
    }
}

/// The PostgreSQL connection of `conn` (taken now if need be).
pub(super) fn pg<'c>(
    conn: &'c mut OnDemand<'_>,
) -> Result<&'c mut diesel::PgConnection, StoreError> {
    match &mut **conn.get()? {
        AnyConnection::Pg(pg) => Ok(pg),
        AnyConnection::Sqlite(_) => Err(StoreError::Internal("not a PostgreSQL connection".into())),
    }
}
