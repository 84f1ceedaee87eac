//! The two UPDATEs of a change on SQLite (`games::apply_change`) as statements of their own
//! static type. Diesel never keeps a prepared `UPDATE` (its SET list may vary), so SQLite
//! parsed both again on every action, under the file's write lock: about 5 % of the server's
//! CPU per action. These write the same columns as the diesel forms they replace, always all
//! of them, so one prepared statement per connection serves every call.

use chrono::NaiveDateTime;
use diesel::backend::Backend;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::serialize::ToSql;
use diesel::sql_types::{BigInt, Bool, HasSqlType, Nullable, SmallInt, Text, Timestamp};
use diesel::{QueryResult, RunQueryDsl};

use crate::store::rows::SeatRow;

/// `UPDATE games SET … WHERE id = ? AND version = ?`: the compare-and-set of a change.
pub(super) struct UpdateGame<'a> {
    pub id: &'a str,
    pub version: i64,
    pub state: &'a str,
    pub status: &'a str,
    pub next_version: i64,
    pub last_seq: i64,
    pub updated_at: NaiveDateTime,
    pub due_at: Option<NaiveDateTime>,
}

/// `UPDATE game_seats SET … WHERE game_id = ? AND seat = ?`: one seat as the change leaves it.
pub(super) struct UpdateSeat<'a>(pub &'a SeatRow);

impl QueryId for UpdateGame<'_> {
    type QueryId = UpdateGame<'static>;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl QueryId for UpdateSeat<'_> {
    type QueryId = UpdateSeat<'static>;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl<DB> QueryFragment<DB> for UpdateGame<'_>
where
    DB: Backend + HasSqlType<Text> + HasSqlType<BigInt> + HasSqlType<Timestamp>,
    str: ToSql<Text, DB>,
    i64: ToSql<BigInt, DB>,
    Option<NaiveDateTime>: ToSql<Nullable<Timestamp>, DB>,
    NaiveDateTime: ToSql<Timestamp, DB>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        out.push_sql("UPDATE games SET state = ");
        out.push_bind_param::<Text, _>(self.state)?;
        out.push_sql(", status = ");
        out.push_bind_param::<Text, _>(self.status)?;
        out.push_sql(", version = ");
        out.push_bind_param::<BigInt, _>(&self.next_version)?;
        out.push_sql(", last_seq = ");
        out.push_bind_param::<BigInt, _>(&self.last_seq)?;
        out.push_sql(", updated_at = ");
        out.push_bind_param::<Timestamp, _>(&self.updated_at)?;
        // As `pg_write`'s statement: the old row's status against the new one.
        out.push_sql(", listed_at = CASE WHEN status = 'active' AND ");
        out.push_bind_param::<Text, _>(self.status)?;
        out.push_sql(" = 'active' THEN listed_at ELSE ");
        out.push_bind_param::<Timestamp, _>(&self.updated_at)?;
        out.push_sql(" END");
        out.push_sql(", due_at = ");
        out.push_bind_param::<Nullable<Timestamp>, _>(&self.due_at)?;
        out.push_sql(" WHERE id = ");
        out.push_bind_param::<Text, _>(self.id)?;
        out.push_sql(" AND version = ");
        out.push_bind_param::<BigInt, _>(&self.version)?;
        Ok(())
    }
}

impl<DB> QueryFragment<DB> for UpdateSeat<'_>
where
    DB: Backend + HasSqlType<Text> + HasSqlType<SmallInt> + HasSqlType<Bool>,
    DB: HasSqlType<Timestamp>,
    String: ToSql<Text, DB>,
    i16: ToSql<SmallInt, DB>,
    bool: ToSql<Bool, DB>,
    Option<NaiveDateTime>: ToSql<Nullable<Timestamp>, DB>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        let row = self.0;
        out.push_sql("UPDATE game_seats SET account_id = ");
        out.push_bind_param::<Text, _>(&row.account_id)?;
        out.push_sql(", username = ");
        out.push_bind_param::<Text, _>(&row.username)?;
        out.push_sql(", awaiting = ");
        out.push_bind_param::<Bool, _>(&row.awaiting)?;
        out.push_sql(", deadline = ");
        out.push_bind_param::<Nullable<Timestamp>, _>(&row.deadline)?;
        out.push_sql(", reminded = ");
        out.push_bind_param::<Bool, _>(&row.reminded)?;
        out.push_sql(", away_until = ");
        out.push_bind_param::<Nullable<Timestamp>, _>(&row.away_until)?;
        out.push_sql(" WHERE game_id = ");
        out.push_bind_param::<Text, _>(&row.game_id)?;
        out.push_sql(" AND seat = ");
        out.push_bind_param::<SmallInt, _>(&row.seat)?;
        Ok(())
    }
}

impl<Conn> RunQueryDsl<Conn> for UpdateGame<'_> {}
impl<Conn> RunQueryDsl<Conn> for UpdateSeat<'_> {}
