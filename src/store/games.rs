//! Games: insert, load, the locking write of a change, and events.

mod bulk;
mod cached;

use chrono::NaiveDateTime;
use diesel::prelude::*;
use uuid::Uuid;

use super::conn::{AnyConnection, MultiBackend};
use super::idempotency::insert_idempotency;
use super::rows::{enum_text, state_json, to_json, EventRow, GameRow, SeatRow};
use super::schema::{game_events, game_seats, games};
use super::*;

fn count(n: usize) -> Result<i64, StoreError> {
    i64::try_from(n).map_err(|e| StoreError::Internal(format!("too many rows: {e}")))
}

pub(super) fn insert_game(
    conn: &mut AnyConnection,
    game: &NewGame,
    events: &[NewEvent],
    idempotency: Option<&IdempotencyRecord>,
) -> Result<GameRecord, StoreError> {
    count(events.len())?;
    let record = game.record(events.len());
    let at = record.created_at.naive_utc();
    let row = game_row(&record)?;
    diesel::insert_into(games::table)
        .values(&row)
        .execute(conn)?;
    if let Some(old) = game.rematch_of {
        link_rematch(conn, old, record.id, at)?;
    }
    insert_seats(conn, record.id, &record.seats)?;
    insert_events(conn, record.id, 1, events, at)?;
    if let Some(idempotency) = idempotency {
        insert_idempotency(conn, idempotency)?;
    }
    Ok(record)
}

/// The games row of `record` as written at its creation.
pub(super) fn game_row(record: &GameRecord) -> Result<GameRow, StoreError> {
    let at = record.created_at.naive_utc();
    Ok(GameRow {
        id: record.id.to_string(),
        created_by: record.created_by.to_string(),
        invite_code: record.invite_code.clone(),
        options: to_json("game options", &record.options)?,
        rules_version: i32::try_from(record.rules_version)
            .map_err(|e| StoreError::Internal(format!("rules version: {e}")))?,
        state: state_json(&record.state)?,
        status: enum_text(&record.status)?,
        test_mode: record.test_mode,
        stacked: to_json("stacked decks", &record.stacked)?,
        version: record.version,
        last_seq: record.last_seq,
        created_at: at,
        updated_at: at,
        due_at: record.due_at.map(|d| d.naive_utc()),
        rematch_id: None,
        visibility: enum_text(&record.access.visibility)?,
        spectators: enum_text(&record.access.spectators)?,
        invited: to_json("invited accounts", &record.access.invited)?,
        rated: record.access.rated,
        listed_at: at,
    })
}

/// Links finished game `old` to its rematch `new`, only if it has none yet (the
/// compare-and-set that makes every request for a rematch of `old` find one game):
/// `Conflict(RematchExists)` when another request linked one first, and the caller's
/// transaction rolls back with its game. The version moves on so that a client revalidating
/// its copy (`If-None-Match`) sees the link.
fn link_rematch(
    conn: &mut AnyConnection,
    old: Uuid,
    new: Uuid,
    at: NaiveDateTime,
) -> Result<(), StoreError> {
    let linked = diesel::update(
        games::table
            .find(old.to_string())
            .filter(games::rematch_id.is_null())
            .filter(games::status.eq(enum_text(&GameStatus::Finished)?)),
    )
    .set((
        games::rematch_id.eq(new.to_string()),
        games::version.eq(games::version + 1),
        games::updated_at.eq(at),
        games::listed_at.eq(at),
    ))
    .execute(conn)?;
    if linked == 0 {
        return Err(StoreError::Conflict(Conflict::RematchExists));
    }
    Ok(())
}

fn insert_seats(
    conn: &mut AnyConnection,
    game: Uuid,
    seats: &[SeatRecord],
) -> Result<(), StoreError> {
    // Row by row: diesel's MultiConnection has no multi-row INSERT.
    for seat in seats {
        diesel::insert_into(game_seats::table)
            .values(&SeatRow::new(game, seat))
            .execute(conn)?;
    }
    Ok(())
}

/// The seats as `seats` has them, each row written in place: a seat nobody holds any more is
/// deleted, a changed one updated, a new one inserted. (A seat is never deleted and inserted
/// again: the insert check refuses deleted accounts, which keep their seats.)
fn write_seats(
    conn: &mut AnyConnection,
    current: &GameRecord,
    seats: &[SeatRecord],
) -> Result<(), StoreError> {
    let id = current.id.to_string();
    // Seats leave only in the lobby: most changes have none to delete (and a statement with
    // a list of binds is prepared again on every call).
    if current
        .seats
        .iter()
        .any(|old| !seats.iter().any(|s| s.seat == old.seat))
    {
        let kept: Vec<i16> = seats.iter().map(|s| i16::from(s.seat)).collect();
        diesel::delete(
            game_seats::table
                .filter(game_seats::game_id.eq(&id))
                .filter(diesel::dsl::not(game_seats::seat.eq_any(&kept))),
        )
        .execute(conn)?;
    }
    for seat in seats.iter().filter(|s| !current.seats.contains(s)) {
        let row = SeatRow::new(current.id, seat);
        if current.seats.iter().any(|s| s.seat == seat.seat) {
            let update = cached::UpdateSeat(&row);
            match conn {
                AnyConnection::Pg(pg) => update.execute(pg)?,
                AnyConnection::Sqlite(lite) => update.execute(lite)?,
            };
        } else {
            diesel::insert_into(game_seats::table)
                .values(&row)
                .execute(conn)?;
        }
    }
    Ok(())
}

fn insert_events(
    conn: &mut AnyConnection,
    game: Uuid,
    first_seq: i64,
    events: &[NewEvent],
    at: NaiveDateTime,
) -> Result<(), StoreError> {
    for (seq, event) in (first_seq..).zip(events) {
        let row = EventRow::new(game, seq, event, at)?;
        let insert = diesel::insert_into(game_events::table).values(&row);
        // On the backend's own connection, whose statement cache keeps the prepared insert
        // (through `AnyConnection` SQLite parsed it again on every call).
        match conn {
            AnyConnection::Pg(pg) => insert.execute(pg)?,
            AnyConnection::Sqlite(lite) => insert.execute(lite)?,
        };
    }
    Ok(())
}

/// Loads a game with its seats (one query); `by_code` looks it up by invite code instead.
/// Each form is a query of its own static type, so diesel keeps its prepared statement by
/// type and builds no SQL text per call (a boxed query would: about a tenth of the server's
/// instructions per action, measured with callgrind).
pub(super) fn read_game(
    conn: &mut AnyConnection,
    id: Option<Uuid>,
    by_code: Option<&str>,
) -> Result<Option<GameRecord>, StoreError> {
    let with_seats = games::table.left_join(game_seats::table);
    let rows = match (id, by_code) {
        (Some(id), None) => {
            let query = with_seats
                .filter(games::id.eq(id.to_string()))
                .order(game_seats::seat);
            // On the backend's own connection: diesel's MultiConnection walks a query's whole
            // tree again on every call, as much work as the rest of the read.
            match conn {
                AnyConnection::Pg(pg) => query.load::<(GameRow, Option<SeatRow>)>(pg)?,
                AnyConnection::Sqlite(lite) => query.load::<(GameRow, Option<SeatRow>)>(lite)?,
            }
        }
        (None, Some(code)) => with_seats
            .filter(games::invite_code.eq(code))
            .order(game_seats::seat)
            .load::<(GameRow, Option<SeatRow>)>(conn)?,
        _ => {
            return Err(StoreError::Internal(
                "read_game: give an id or a code".into(),
            ))
        }
    };
    let mut seats = Vec::with_capacity(rows.len());
    let mut game = None;
    for (row, seat) in rows {
        if let Some(seat) = seat {
            seats.push(seat.into_record()?);
        }
        game.get_or_insert(row);
    }
    game.map(|row| row.into_record(seats)).transpose()
}

/// PostgreSQL: locks the game's row until the transaction ends, so concurrent writers queue
/// and each decides on the latest state, as they do on SQLite (whose writers are serialized
/// already). The compare-and-set in `apply_change` stays as the guard. With `skip_locked` a
/// row another transaction holds is not waited for: `Locked` at once (the sweepers of several
/// processes share out the due games this way).
pub(super) fn lock_game(
    conn: &mut AnyConnection,
    id: Uuid,
    skip_locked: bool,
) -> Result<(), StoreError> {
    if let AnyConnection::Pg(pg) = conn {
        let row = games::table
            .find(id.to_string())
            .select(games::id)
            .for_update();
        let locked = if skip_locked {
            row.skip_locked().first::<String>(pg).optional()?
        } else {
            row.first::<String>(pg).optional()?
        };
        if skip_locked && locked.is_none() {
            return Err(StoreError::Locked("held by another writer: skipped".into()));
        }
    }
    Ok(())
}

/// Ids of the games whose `due_at` has come (`at` or earlier), the most overdue first.
pub(super) fn due_games(
    conn: &mut AnyConnection,
    at: NaiveDateTime,
    limit: i64,
) -> Result<Vec<Uuid>, StoreError> {
    games::table
        .filter(games::due_at.le(at))
        .order(games::due_at.asc())
        .select(games::id)
        .limit(limit.max(0))
        .load::<String>(conn)?
        .iter()
        .map(|id| super::rows::uuid("game id", id))
        .collect()
}

/// Sets a game's `due_at` if it is still at `version` (a sweeper found nothing to do).
pub(super) fn set_due(
    conn: &mut AnyConnection,
    id: Uuid,
    version: i64,
    due_at: Option<NaiveDateTime>,
) -> Result<(), StoreError> {
    diesel::update(
        games::table
            .find(id.to_string())
            .filter(games::version.eq(version)),
    )
    .set(games::due_at.eq(due_at))
    .execute(conn)?;
    Ok(())
}

/// Writes `change` over `current` with a compare-and-set on the version (SQLite's form; the
/// record written is `change.next()`).
pub(super) fn apply_change(
    conn: &mut AnyConnection,
    current: &GameRecord,
    change: &GameChange,
) -> Result<(), StoreError> {
    count(change.events.len())?;
    let next = change.next();
    let at = next.updated_at.naive_utc();
    let id = current.id.to_string();
    let (state, status) = (state_json(&next.state)?, enum_text(&next.status)?);
    let update = cached::UpdateGame {
        id: &id,
        version: current.version,
        state: &state,
        status: &status,
        next_version: next.version,
        last_seq: next.last_seq,
        updated_at: at,
        due_at: next.due_at.map(|d| d.naive_utc()),
    };
    // The backend's own connection keeps the prepared statement (see `insert_events`).
    let updated = match conn {
        AnyConnection::Pg(pg) => update.execute(pg)?,
        AnyConnection::Sqlite(lite) => update.execute(lite)?,
    };
    if updated == 0 {
        let version = games::table
            .find(&id)
            .select(games::version)
            .first::<i64>(conn)
            .optional()?;
        return Err(match version {
            Some(current) => StoreError::StaleVersion { current },
            None => StoreError::NotFound,
        });
    }
    // Most changes leave the seats as they are (only an inbox flag may move): skip the rewrite.
    if next.seats != current.seats {
        write_seats(conn, current, &next.seats)?;
    }
    insert_events(conn, current.id, current.last_seq + 1, &change.events, at)?;
    if let Some(record) = &change.idempotency {
        insert_idempotency(conn, record)?;
    }
    Ok(())
}

pub(super) fn events(
    conn: &mut AnyConnection,
    game: Uuid,
    after: i64,
    limit: i64,
) -> Result<Vec<StoredEvent>, StoreError> {
    events_query(game, after, limit)
        .load::<EventRow>(conn)?
        .into_iter()
        .map(EventRow::into_record)
        .collect()
}

/// A page of one game's log: every replay, export, verification and events page reads it.
/// On PostgreSQL it touches only the partition holding the game (the plan test shows it).
pub(super) fn events_query<'a>(
    game: Uuid,
    after: i64,
    limit: i64,
) -> game_events::BoxedQuery<'a, MultiBackend> {
    game_events::table
        .filter(game_events::game_id.eq(game.to_string()))
        .filter(game_events::seq.gt(after))
        .order(game_events::seq)
        .limit(limit.max(0))
        .into_boxed()
}

/// Replaces the accounts invited to `current` (read under the game's lock), moving its
/// version on so that a client revalidating its copy sees the change.
pub(super) fn set_invited(
    conn: &mut AnyConnection,
    current: &GameRecord,
    invited: &[Invitee],
    at: chrono::DateTime<chrono::Utc>,
) -> Result<GameRecord, StoreError> {
    let next = GameRecord {
        version: current.version + 1,
        updated_at: at,
        access: Access {
            invited: invited.to_vec(),
            ..current.access.clone()
        },
        ..current.clone()
    };
    let updated = diesel::update(
        games::table
            .find(current.id.to_string())
            .filter(games::version.eq(current.version)),
    )
    .set((
        games::invited.eq(to_json("invited accounts", &next.access.invited)?),
        games::version.eq(next.version),
        games::updated_at.eq(at.naive_utc()),
        // Invitations change only open games; an active one keeps its place in the lists.
        (current.status != GameStatus::Active).then(|| games::listed_at.eq(at.naive_utc())),
    ))
    .execute(conn)?;
    if updated == 0 {
        // Under the game's lock nothing else can have written it.
        return Err(StoreError::Internal(format!(
            "game {}: changed under its lock",
            current.id
        )));
    }
    Ok(next)
}
