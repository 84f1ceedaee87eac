//! `list_games`: filters, newest first, keyset paging with an opaque cursor.

use std::collections::HashMap;

use chrono::{DateTime, NaiveDateTime};
use diesel::prelude::*;
use uuid::Uuid;

use super::conn::{AnyConnection, MultiBackend};
use super::rows::{enum_text, GameRow, SeatRow};
use super::schema::{game_seats, games};
use super::*;

/// Where the previous page ended: its last game's (time, id), the time being the list's order.
/// Encoded as hex of "micros:uuid", which is opaque enough for clients and needs no extra crate.
struct Cursor {
    at: NaiveDateTime,
    id: String,
}

/// What a list is ordered by, newest first. A player's own games, found through the seats,
/// are few enough to sort by their latest move (`updated_at`). The public lists read an index
/// by status and `listed_at` instead, which moves within an active game leave alone: a move
/// then changes no indexed column of the games row (a HOT update on PostgreSQL).
#[derive(Clone, Copy)]
enum Order {
    Activity,
    Listed,
}

impl Order {
    fn of(q: &GameQuery) -> Order {
        if q.player.is_some() {
            Order::Activity
        } else {
            Order::Listed
        }
    }

    fn time(self, row: &GameRow) -> NaiveDateTime {
        match self {
            Order::Activity => row.updated_at,
            Order::Listed => row.listed_at,
        }
    }
}

const BAD_CURSOR: StoreError = StoreError::BadInput(BadInput::InvalidCursor);

impl Cursor {
    fn encode(row: &GameRow, order: Order) -> String {
        let micros = order.time(row).and_utc().timestamp_micros();
        hex::encode(format!("{micros}:{}", row.id))
    }

    fn decode(text: &str) -> Result<Cursor, StoreError> {
        let bytes = hex::decode(text).map_err(|_| BAD_CURSOR)?;
        let text = String::from_utf8(bytes).map_err(|_| BAD_CURSOR)?;
        let (micros, id) = text.split_once(':').ok_or(BAD_CURSOR)?;
        let micros = micros.parse::<i64>().map_err(|_| BAD_CURSOR)?;
        let at = DateTime::from_timestamp_micros(micros).ok_or(BAD_CURSOR)?;
        let id = Uuid::parse_str(id).map_err(|_| BAD_CURSOR)?;
        Ok(Cursor {
            at: at.naive_utc(),
            id: id.to_string(),
        })
    }
}

pub(super) fn list_games(
    conn: &mut AnyConnection,
    q: &GameQuery,
) -> Result<GameRecordPage, StoreError> {
    let limit = q.limit.clamp(1, 100);
    let order = Order::of(q);
    let mut rows = list_query(q)?.load::<GameRow>(conn)?;
    // One row more than asked tells whether a next page exists.
    let next_cursor = if rows.len() > limit as usize {
        rows.truncate(limit as usize);
        rows.last().map(|row| Cursor::encode(row, order))
    } else {
        None
    };
    let mut seats = seats_of(conn, rows.iter().map(|r| r.id.as_str()))?;
    let games = rows
        .into_iter()
        .map(|row| {
            let s = seats.remove(&row.id).unwrap_or_default();
            row.into_record(s)
        })
        .collect::<Result<_, _>>()?;
    Ok(GameRecordPage { games, next_cursor })
}

/// The query of one page of `q`, with one row more than the page.
pub(super) fn list_query(
    q: &GameQuery,
) -> Result<games::BoxedQuery<'static, MultiBackend>, StoreError> {
    let limit = q.limit.clamp(1, 100);
    let mut query = games::table.into_boxed();
    if let Some(player) = q.player {
        let seats = game_seats::table.filter(game_seats::account_id.eq(player.to_string()));
        // Two arms, because a boxed subquery would not serialize for both backends.
        query = if q.awaiting_player {
            let awaited = seats.filter(game_seats::awaiting.eq(true));
            query.filter(games::id.eq_any(awaited.select(game_seats::game_id)))
        } else {
            query.filter(games::id.eq_any(seats.select(game_seats::game_id)))
        };
    }
    if let Some(status) = q.status {
        query = query.filter(games::status.eq(enum_text(&status)?));
    }
    if let Some(account) = q.invited {
        // The invited list is JSON text; an account id (hex and dashes, no LIKE wildcards)
        // in quotes matches only that account's entry.
        let named = format!("%\"{account}\"%");
        let seats = game_seats::table.filter(game_seats::account_id.eq(account.to_string()));
        query = query
            .filter(games::invited.like(named))
            .filter(diesel::dsl::not(
                games::id.eq_any(seats.select(game_seats::game_id)),
            ));
    }
    if let Some(visibility) = q.visibility {
        query = query.filter(games::visibility.eq(enum_text(&visibility)?));
    }
    if let Some(spectators) = q.spectators {
        query = query.filter(games::spectators.eq(enum_text(&spectators)?));
    }
    let order = Order::of(q);
    if let Some(cursor) = q.cursor.as_deref() {
        let c = Cursor::decode(cursor)?;
        query = match order {
            Order::Activity => query.filter(
                games::updated_at
                    .lt(c.at)
                    .or(games::updated_at.eq(c.at).and(games::id.lt(c.id))),
            ),
            // The first condition says the same as the second's first half, in a form the
            // index can start from: a later page does not read the earlier ones again.
            Order::Listed => query.filter(games::listed_at.le(c.at)).filter(
                games::listed_at
                    .lt(c.at)
                    .or(games::listed_at.eq(c.at).and(games::id.lt(c.id))),
            ),
        };
    }
    query = match order {
        Order::Activity => query.order((games::updated_at.desc(), games::id.desc())),
        Order::Listed => query.order((games::listed_at.desc(), games::id.desc())),
    };
    Ok(query.limit(limit + 1))
}

/// Where a deadline-sorted page ended: its last game's deadline (None: no turn time) and id.
fn deadline_key(deadline: Option<NaiveDateTime>, id: &str) -> String {
    let micros = deadline.map_or("none".to_string(), |d| {
        d.and_utc().timestamp_micros().to_string()
    });
    hex::encode(format!("{micros}:{id}"))
}

fn decode_deadline_key(text: &str) -> Result<(bool, Option<NaiveDateTime>, String), StoreError> {
    let bytes = hex::decode(text).map_err(|_| BAD_CURSOR)?;
    let text = String::from_utf8(bytes).map_err(|_| BAD_CURSOR)?;
    let (micros, id) = text.split_once(':').ok_or(BAD_CURSOR)?;
    let id = Uuid::parse_str(id).map_err(|_| BAD_CURSOR)?.to_string();
    if micros == "none" {
        return Ok((true, None, id));
    }
    let micros = micros.parse::<i64>().map_err(|_| BAD_CURSOR)?;
    let at = DateTime::from_timestamp_micros(micros).ok_or(BAD_CURSOR)?;
    Ok((false, Some(at.naive_utc()), id))
}

/// The games where `player` is awaited, the nearest deadline first and those without one last
/// (R10.1: the inbox by urgency). Read from the player's seats (the index on the account:
/// `awaiting` is left out of it so that a passing turn is a HOT update), keeping the awaited
/// ones, then sorted here.
pub(super) fn awaiting_by_deadline(
    conn: &mut AnyConnection,
    player: Uuid,
    limit: i64,
    cursor: Option<&str>,
) -> Result<GameRecordPage, StoreError> {
    let limit = limit.clamp(1, 100) as usize;
    let mut awaited: Vec<(Option<NaiveDateTime>, String)> = game_seats::table
        .filter(game_seats::account_id.eq(player.to_string()))
        .filter(game_seats::awaiting.eq(true))
        .select((game_seats::deadline, game_seats::game_id))
        .load(conn)?;
    let key = |(deadline, id): &(Option<NaiveDateTime>, String)| {
        (deadline.is_none(), *deadline, id.clone())
    };
    awaited.sort_by_key(key);
    if let Some(cursor) = cursor {
        let after = decode_deadline_key(cursor)?;
        awaited.retain(|entry| key(entry) > after);
    }
    let next_cursor = (awaited.len() > limit).then(|| {
        let (deadline, id) = &awaited[limit - 1];
        deadline_key(*deadline, id)
    });
    awaited.truncate(limit);
    let ids: Vec<&str> = awaited.iter().map(|(_, id)| id.as_str()).collect();
    let mut rows: HashMap<String, GameRow> = games::table
        .filter(games::id.eq_any(&ids))
        .load::<GameRow>(conn)?
        .into_iter()
        .map(|row| (row.id.clone(), row))
        .collect();
    let mut seats = seats_of(conn, ids.iter().copied())?;
    let games = ids
        .iter()
        .filter_map(|id| rows.remove(*id))
        .map(|row| {
            let s = seats.remove(&row.id).unwrap_or_default();
            row.into_record(s)
        })
        .collect::<Result<_, _>>()?;
    Ok(GameRecordPage { games, next_cursor })
}

/// The seats of the given games, by game id, in one query.
pub(super) fn seats_of<'a>(
    conn: &mut AnyConnection,
    ids: impl Iterator<Item = &'a str>,
) -> Result<HashMap<String, Vec<SeatRecord>>, StoreError> {
    let ids: Vec<&str> = ids.collect();
    let mut by_game: HashMap<String, Vec<SeatRecord>> = HashMap::new();
    if ids.is_empty() {
        return Ok(by_game);
    }
    let seats = game_seats::table
        .filter(game_seats::game_id.eq_any(ids))
        .order((game_seats::game_id, game_seats::seat))
        .load::<SeatRow>(conn)?;
    for seat in seats {
        let game = seat.game_id.clone();
        by_game.entry(game).or_default().push(seat.into_record()?);
    }
    Ok(by_game)
}
