//! The one-statement write's query as a prepared statement.

use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};

/// A query whose SQL text never changes, so its prepared form may be kept per connection
/// (diesel's statement cache, keyed by the text): `sql_query` would be parsed and planned
/// by PostgreSQL on every call.
pub(super) struct Prepared<Q>(pub(super) Q);

impl<Q: QueryFragment<Pg>> QueryFragment<Pg> for Prepared<Q> {
    fn walk_ast<'b>(&'b self, out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        self.0.walk_ast(out)
    }

    fn is_safe_to_cache_prepared(&self, _: &Pg) -> QueryResult<bool> {
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
