//! A query kept prepared per connection although diesel would parse it anew on every call.

use diesel::backend::Backend;
use diesel::prelude::*;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};

/// A query whose SQL text is fixed by its shape, so its prepared form may be kept per
/// connection (diesel's statement cache, keyed by the text and the bind types). Diesel keeps
/// neither a `sql_query` nor any `UPDATE` or upsert (their SET lists may vary with the
/// values), so the database parsed and planned them on every call; on SQLite under the
/// file's write lock.
pub(super) struct Prepared<Q>(pub(super) Q);

impl<Q: QueryFragment<DB>, DB: Backend> QueryFragment<DB> for Prepared<Q> {
    fn walk_ast<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        self.0.walk_ast(out)
    }

    fn is_safe_to_cache_prepared(&self, _: &DB) -> QueryResult<bool> {
        Ok(true)
    }
}

impl<Q> QueryId for Prepared<Q> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<Q: Query> Query for Prepared<Q> {
    type SqlType = Q::SqlType;
}

impl<Q, C> RunQueryDsl<C> for Prepared<Q> {}
