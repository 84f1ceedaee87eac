//! Audit queries across games, for admins: events filtered by actor, kind, game and time, and a
//! player's games. Keyset paging with opaque cursors; the indexes that keep them fast at
//! millions of events are in `migrations/*/…_audit_indexes` (plans in docs/audit.md).

use super::list::seats_of;

use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::prelude::*;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use uuid::Uuid;

use super::conn::{AnyConnection, MultiBackend};
use super::rows::{EventRow, GameRow};
use super::schema::{game_events, game_seats, games};
use super::*;

/// Filters of [`Store::audit_events`]; all optional, combined with AND.
#[derive(Clone, Debug, Default)]
pub struct AuditEventQuery {
    /// Events caused by this account.
    pub actor: Option<Uuid>,
    /// Events stored with one of these kinds (`drew`, `round_ended`, …); empty: any kind.
    pub kinds: Vec<String>,
    pub game: Option<Uuid>,
    /// At or after.
    pub from: Option<DateTime<Utc>>,
    /// Before.
    pub to: Option<DateTime<Utc>>,
    /// 1..=500
    pub limit: i64,
    /// From a previous page's `next_cursor`.
    pub cursor: Option<String>,
}

/// Events in (created_at, game_id, seq) order.
#[derive(Clone, Debug)]
pub struct StoredEventPage {
    pub events: Vec<StoredEvent>,
    /// Opaque; None on the last page.
    pub next_cursor: Option<String>,
}

/// A player's games, newest first by creation: each game with the player's seat.
#[derive(Clone, Debug)]
pub struct PlayerGamesPage {
    pub games: Vec<(GameRecord, u8)>,
    pub next_cursor: Option<String>,
}

const BAD_CURSOR: StoreError = StoreError::BadInput(BadInput::InvalidCursor);

/// A keyset position: (time, game id, seq); hex of "micros:uuid:seq" (seq 0 for games).
struct Cursor {
    at: NaiveDateTime,
    game: String,
    seq: i64,
}

impl Cursor {
    fn encode(at: NaiveDateTime, game: &str, seq: i64) -> String {
        hex::encode(format!("{}:{game}:{seq}", at.and_utc().timestamp_micros()))
    }

    fn decode(text: &str) -> Result<Cursor, StoreError> {
        let bytes = hex::decode(text).map_err(|_| BAD_CURSOR)?;
        let text = String::from_utf8(bytes).map_err(|_| BAD_CURSOR)?;
        let mut parts = text.splitn(3, ':');
        let (Some(micros), Some(game), Some(seq)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(BAD_CURSOR);
        };
        let micros = micros.parse::<i64>().map_err(|_| BAD_CURSOR)?;
        let at = DateTime::from_timestamp_micros(micros).ok_or(BAD_CURSOR)?;
        let game = Uuid::parse_str(game).map_err(|_| BAD_CURSOR)?;
        Ok(Cursor {
            at: at.naive_utc(),
            game: game.to_string(),
            seq: seq.parse().map_err(|_| BAD_CURSOR)?,
        })
    }
}

type EventsQuery<'a> = game_events::BoxedQuery<'a, MultiBackend>;

/// The one events query of both backends (`Store::audit_events` runs it, `explain` shows it).
fn events_query(q: &AuditEventQuery) -> Result<EventsQuery<'static>, StoreError> {
    use game_events::dsl as e;
    let mut query = game_events::table.into_boxed();
    if let Some(actor) = q.actor {
        query = query.filter(e::actor.eq(actor.to_string()));
    }
    match q.kinds.as_slice() {
        [] => {}
        [kind] => query = query.filter(e::kind.eq(kind.clone())),
        kinds => query = query.filter(e::kind.eq_any(kinds.to_vec())),
    }
    if let Some(game) = q.game {
        query = query.filter(e::game_id.eq(game.to_string()));
    }
    if let Some(from) = q.from {
        query = query.filter(e::created_at.ge(from.naive_utc()));
    }
    if let Some(to) = q.to {
        query = query.filter(e::created_at.lt(to.naive_utc()));
    }
    if let Some(cursor) = q.cursor.as_deref() {
        let c = Cursor::decode(cursor)?;
        // `created_at >= at` is implied by the rest but bounds the index range, so a deep page
        // starts where the last one ended instead of scanning from the start.
        query = query.filter(e::created_at.ge(c.at)).filter(
            e::created_at.gt(c.at).or(e::created_at.eq(c.at).and(
                e::game_id
                    .gt(c.game.clone())
                    .or(e::game_id.eq(c.game).and(e::seq.gt(c.seq))),
            )),
        );
    }
    Ok(query
        .order((e::created_at.asc(), e::game_id.asc(), e::seq.asc()))
        .limit(q.limit.clamp(1, 500) + 1))
}

type HistoryQuery<'a> = diesel::dsl::IntoBoxed<
    'a,
    diesel::dsl::InnerJoin<game_seats::table, games::table>,
    MultiBackend,
>;

/// The one player-games query (newest first by creation, then id).
fn history_query(
    player: Uuid,
    limit: i64,
    cursor: Option<&str>,
) -> Result<HistoryQuery<'static>, StoreError> {
    let mut query = game_seats::table
        .inner_join(games::table)
        .into_boxed()
        .filter(game_seats::account_id.eq(player.to_string()));
    if let Some(cursor) = cursor {
        let c = Cursor::decode(cursor)?;
        query = query.filter(games::created_at.le(c.at)).filter(
            games::created_at
                .lt(c.at)
                .or(games::created_at.eq(c.at).and(games::id.lt(c.game))),
        );
    }
    Ok(query
        .order((games::created_at.desc(), games::id.desc()))
        .limit(limit.clamp(1, 100) + 1))
}

impl Store {
    /// The cursor that continues a listing of `audit_events` right after `event`.
    pub fn audit_cursor_after(event: &StoredEvent) -> String {
        Cursor::encode(
            event.created_at.naive_utc(),
            &event.game_id.to_string(),
            event.seq,
        )
    }

    /// Events across games matching `q`, in (created_at, game_id, seq) order.
    /// `BadInput("invalid_cursor")` for a cursor that does not decode.
    pub fn audit_events(&self, q: &AuditEventQuery) -> Result<StoredEventPage, StoreError> {
        let limit = q.limit.clamp(1, 500) as usize;
        let mut rows = self.read(|c| Ok(events_query(q)?.load::<EventRow>(c)?))?;
        let next_cursor = if rows.len() > limit {
            rows.truncate(limit);
            rows.last()
                .map(|r| Cursor::encode(r.created_at, &r.game_id, r.seq))
        } else {
            None
        };
        let events = rows
            .into_iter()
            .map(EventRow::into_record)
            .collect::<Result<_, _>>()?;
        Ok(StoredEventPage {
            events,
            next_cursor,
        })
    }

    /// The games `player` holds a seat in, newest first, with that seat.
    pub fn player_games(
        &self,
        player: Uuid,
        limit: i64,
        cursor: Option<&str>,
    ) -> Result<PlayerGamesPage, StoreError> {
        let mut pooled = self.conn()?;
        let mut rows = self.fresh(&mut pooled, |c| {
            Ok(history_query(player, limit, cursor)?
                .select((games::all_columns, game_seats::seat))
                .load::<(GameRow, i16)>(c)?)
        })?;
        let conn = &mut *pooled;
        let limit = limit.clamp(1, 100) as usize;
        let next_cursor = if rows.len() > limit {
            rows.truncate(limit);
            rows.last()
                .map(|(g, _)| Cursor::encode(g.created_at, &g.id, 0))
        } else {
            None
        };
        let mut seats = seats_of(conn, rows.iter().map(|(g, _)| g.id.as_str()))?;
        let games = rows
            .into_iter()
            .map(|(row, seat)| {
                let s = seats.remove(&row.id).unwrap_or_default();
                let seat = u8::try_from(seat)
                    .map_err(|e| StoreError::Internal(format!("seat number: {e}")))?;
                Ok((row.into_record(s)?, seat))
            })
            .collect::<Result<_, StoreError>>()?;
        Ok(PlayerGamesPage { games, next_cursor })
    }

    /// PostgreSQL's plan (`EXPLAIN`) of the audit events query for `q`, one line per row; for
    /// the index tests and docs/audit.md. On SQLite: `BadInput("explain_needs_postgres")`.
    pub fn explain_audit_events(&self, q: &AuditEventQuery) -> Result<Vec<String>, StoreError> {
        self.explain(Explain(events_query(q)?))
    }

    /// As `explain_audit_events`, for `player_games`.
    pub fn explain_player_games(&self, player: Uuid) -> Result<Vec<String>, StoreError> {
        let query = history_query(player, 20, None)?.select((games::all_columns, game_seats::seat));
        self.explain(Explain(query))
    }

    /// As `explain_audit_events`, for a page of the game lists (`list_games`).
    pub fn explain_list_games(&self, q: &GameQuery) -> Result<Vec<String>, StoreError> {
        self.explain(Explain(super::list::list_query(q)?))
    }

    /// As `explain_audit_events`, for a page of one game's log (`events`).
    pub fn explain_game_events(&self, game: Uuid, after: i64) -> Result<Vec<String>, StoreError> {
        self.explain(Explain(super::games::events_query(game, after, 100)))
    }

    fn explain<Q>(&self, query: Explain<Q>) -> Result<Vec<String>, StoreError>
    where
        Q: QueryFragment<MultiBackend> + QueryId,
    {
        if self.backend() != Backend::Postgres {
            return Err(StoreError::BadInput(BadInput::ExplainNeedsPostgres));
        }
        Ok(query.load::<String>(&mut *self.conn()?)?)
    }
}

/// `EXPLAIN <query>`: the same SQL and binds as the query itself, so the plan shown is the
/// plan of the query the store runs.
#[derive(QueryId)]
struct Explain<Q>(Q);

impl<Q: QueryFragment<MultiBackend>> QueryFragment<MultiBackend> for Explain<Q> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, MultiBackend>) -> QueryResult<()> {
        out.push_sql("EXPLAIN ");
        self.0.walk_ast(out.reborrow())
    }
}

impl<Q> Query for Explain<Q> {
    type SqlType = diesel::sql_types::Text;
}

impl<Q> RunQueryDsl<AnyConnection> for Explain<Q> {}
