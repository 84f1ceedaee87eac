//! PostgreSQL: a game's change written in ONE statement. The compare-and-set on the
//! version, the events, the seats that changed, the account feed items with their gapless
//! per-account seq, their webhook and push outbox rows and the idempotency record are the
//! parts of one `WITH … ` statement (`statement`). Run outside an explicit transaction (the
//! usual case), it commits on its own, all or nothing: one round trip where the transactional
//! form took about a dozen. Run inside the transaction that holds the game's row lock (a
//! writer that lost the compare-and-set, the sweeper), it is that transaction's write. So on
//! PostgreSQL every change of a game is written by this statement; SQLite's transaction
//! (`games::apply_change`, `feed::append`) is the other form, and `tests/api/write_paths.rs`
//! compares the two row by row. (The wake-ups go out after it, see `wake`.)
//!
//! The statement takes the changes of several games at once (`pg_batch` hands it the writers
//! that came together): each game's compare-and-set is decided on its own, and a game that
//! lost it writes nothing else. Every part is driven by the games the `UPDATE games` returns.
//! Locks are taken in one order (the games' rows in id order, then the accounts' feed heads in
//! account order), so two writers cannot deadlock each other.

use chrono::NaiveDateTime;
use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Bool, Integer, Nullable, SmallInt, Text, Timestamp};

mod statement;

use super::delivery_bodies::Bodies;
use super::prepared::Prepared;
use super::rows::{enum_text, state_json, to_json, EventRow, IdempotencyRow, SeatRow};
use super::topic::{Topic, Wake};
use super::{GameChange, GameRecord, StoreError};
use statement::Parts;

/// One game's change as the statement's rows, made on the writer's own thread.
pub(super) struct GameRows {
    pub game: String,
    parts: Parts,
    version: i64,
    state: String,
    status: String,
    next_version: i64,
    last_seq: i64,
    at: NaiveDateTime,
    due_at: Option<NaiveDateTime>,
    events: Vec<EventRow>,
    gone_seats: Vec<i16>,
    changed_seats: Vec<SeatRow>,
    new_seats: Vec<SeatRow>,
    feed: Vec<FeedRow>,
    keys: Vec<IdempotencyRow>,
}

/// A feed item as written: its webhook and push bodies around the seq the statement gives it.
struct FeedRow {
    account_id: String,
    kind: String,
    payload: String,
    bodies: Bodies,
}

/// What the statement did for one game: None when its compare-and-set found another version
/// (nothing of it was written), else the wake-ups of the accounts whose feed grew (the game's
/// own is the caller's).
pub(super) type Written = Option<Vec<Wake>>;

impl GameRows {
    /// The rows of `change` over `current`: the record written is `change.next()`.
    pub fn new(current: &GameRecord, change: &GameChange) -> Result<GameRows, StoreError> {
        let next = change.next();
        let at = next.updated_at.naive_utc();
        let events = (current.last_seq + 1..)
            .zip(&change.events)
            .map(|(seq, event)| EventRow::new(current.id, seq, event, at))
            .collect::<Result<Vec<_>, _>>()?;
        let gone_seats: Vec<i16> = current
            .seats
            .iter()
            .filter(|s| !next.seats.iter().any(|n| n.seat == s.seat))
            .map(|s| i16::from(s.seat))
            .collect();
        // Only the seats that differ from what is stored are written: in place where the seat
        // exists, else as a new row.
        let (changed_seats, new_seats): (Vec<SeatRow>, Vec<SeatRow>) = next
            .seats
            .iter()
            .filter(|s| !current.seats.contains(s))
            .map(|s| SeatRow::new(current.id, s))
            .partition(|row| current.seats.iter().any(|s| i16::from(s.seat) == row.seat));
        // The bodies are built as the transactional path builds them; the seq goes between.
        let feed = change
            .feed
            .iter()
            .map(|item| {
                let game = (Some(current.id), Some(next.version));
                Ok(FeedRow {
                    account_id: item.account_id.to_string(),
                    kind: item.kind.clone(),
                    payload: to_json("feed item", &item.payload)?,
                    bodies: Bodies::new(&item.kind, game, next.updated_at, &item.payload)?,
                })
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        let keys = change
            .idempotency
            .iter()
            .map(IdempotencyRow::new)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(GameRows {
            game: current.id.to_string(),
            parts: Parts {
                gone_seats: !gone_seats.is_empty(),
                changed_seats: !changed_seats.is_empty(),
                new_seats: !new_seats.is_empty(),
                feed: !feed.is_empty(),
                idempotency: !keys.is_empty(),
            },
            version: current.version,
            state: state_json(&next.state)?,
            status: enum_text(&next.status)?,
            next_version: next.version,
            last_seq: next.last_seq,
            at,
            due_at: next.due_at.map(|d| d.naive_utc()),
            events,
            gone_seats,
            changed_seats,
            new_seats,
            feed,
            keys,
        })
    }
}

/// Writes `change` over `current` alone (see the module docs).
pub(super) fn write_change(
    pg: &mut PgConnection,
    current: &GameRecord,
    change: &GameChange,
) -> Result<Written, StoreError> {
    write_game(pg, &GameRows::new(current, change)?)
}

/// Writes one game's rows alone.
pub(super) fn write_game(pg: &mut PgConnection, rows: &GameRows) -> Result<Written, StoreError> {
    Ok(write_games(pg, &[rows])?.pop().flatten())
}

#[derive(QueryableByName)]
struct Outcome {
    #[diesel(sql_type = Text)]
    game_id: String,
    #[diesel(sql_type = Nullable<Text>)]
    account_id: Option<String>,
    #[diesel(sql_type = Nullable<BigInt>)]
    last_seq: Option<i64>,
}

/// Writes the changes of `games` (each game once) in one statement: what it did for each,
/// in their order. An error: nothing of any of them was written.
pub(super) fn write_games(
    pg: &mut PgConnection,
    games: &[&GameRows],
) -> Result<Vec<Written>, StoreError> {
    // The games' rows are locked in id order (see the module docs).
    let mut sorted: Vec<&GameRows> = games.to_vec();
    sorted.sort_by(|a, b| a.game.cmp(&b.game));
    let parts = sorted
        .iter()
        .fold(Parts::default(), |parts, g| parts.and(g.parts));
    let each = |f: fn(&GameRows) -> &str| sorted.iter().map(|g| f(g)).collect::<Vec<_>>();
    let events = || {
        sorted
            .iter()
            .flat_map(|g| g.events.iter().map(move |e| (g, e)))
    };
    let seats = |pick: fn(&GameRows) -> &Vec<SeatRow>| {
        sorted
            .iter()
            .flat_map(move |g| pick(g).iter())
            .collect::<Vec<_>>()
    };
    let (changed, new) = (seats(|g| &g.changed_seats), seats(|g| &g.new_seats));
    let feed = || {
        sorted
            .iter()
            .flat_map(|g| g.feed.iter().map(move |f| (g, f)))
    };
    let keys = || {
        sorted
            .iter()
            .flat_map(|g| g.keys.iter().map(move |k| (g, k)))
    };
    let gone = || {
        sorted
            .iter()
            .flat_map(|g| g.gone_seats.iter().map(move |s| (g, *s)))
    };
    let outcomes: Vec<Outcome> = Prepared(
        diesel::sql_query(parts.statement(sorted.len()))
            .bind::<Array<Text>, _>(each(|g| &g.game))
            .bind::<Array<BigInt>, _>(sorted.iter().map(|g| g.version).collect::<Vec<_>>())
            .bind::<Array<Text>, _>(each(|g| &g.state))
            .bind::<Array<Text>, _>(each(|g| &g.status))
            .bind::<Array<BigInt>, _>(sorted.iter().map(|g| g.next_version).collect::<Vec<_>>())
            .bind::<Array<BigInt>, _>(sorted.iter().map(|g| g.last_seq).collect::<Vec<_>>())
            .bind::<Array<Timestamp>, _>(sorted.iter().map(|g| g.at).collect::<Vec<_>>())
            .bind::<Array<Nullable<Timestamp>>, _>(
                sorted.iter().map(|g| g.due_at).collect::<Vec<_>>(),
            )
            .bind::<Array<Text>, _>(events().map(|(g, _)| g.game.as_str()).collect::<Vec<_>>())
            .bind::<Array<BigInt>, _>(events().map(|(_, e)| e.seq).collect::<Vec<_>>())
            .bind::<Array<Integer>, _>(events().map(|(_, e)| e.round).collect::<Vec<_>>())
            .bind::<Array<Text>, _>(events().map(|(_, e)| e.kind.as_str()).collect::<Vec<_>>())
            .bind::<Array<Nullable<Text>>, _>(
                events()
                    .map(|(_, e)| e.actor.as_deref())
                    .collect::<Vec<_>>(),
            )
            .bind::<Array<Text>, _>(
                events()
                    .map(|(_, e)| e.payload.as_str())
                    .collect::<Vec<_>>(),
            )
            .bind::<Array<Text>, _>(gone().map(|(g, _)| g.game.as_str()).collect::<Vec<_>>())
            .bind::<Array<SmallInt>, _>(gone().map(|(_, s)| s).collect::<Vec<_>>())
            .bind::<Array<Text>, _>(
                changed
                    .iter()
                    .map(|s| s.game_id.as_str())
                    .collect::<Vec<_>>(),
            )
            .bind::<Array<SmallInt>, _>(changed.iter().map(|s| s.seat).collect::<Vec<_>>())
            .bind::<Array<Text>, _>(
                changed
                    .iter()
                    .map(|s| s.account_id.as_str())
                    .collect::<Vec<_>>(),
            )
            .bind::<Array<Text>, _>(
                changed
                    .iter()
                    .map(|s| s.username.as_str())
                    .collect::<Vec<_>>(),
            )
            .bind::<Array<Bool>, _>(changed.iter().map(|s| s.awaiting).collect::<Vec<_>>())
            .bind::<Array<Nullable<Timestamp>>, _>(
                changed.iter().map(|s| s.deadline).collect::<Vec<_>>(),
            )
            .bind::<Array<Bool>, _>(changed.iter().map(|s| s.reminded).collect::<Vec<_>>())
            .bind::<Array<Nullable<Timestamp>>, _>(
                changed.iter().map(|s| s.away_until).collect::<Vec<_>>(),
            )
            .bind::<Array<Text>, _>(new.iter().map(|s| s.game_id.as_str()).collect::<Vec<_>>())
            .bind::<Array<SmallInt>, _>(new.iter().map(|s| s.seat).collect::<Vec<_>>())
            .bind::<Array<Text>, _>(
                new.iter()
                    .map(|s| s.account_id.as_str())
                    .collect::<Vec<_>>(),
            )
            .bind::<Array<Text>, _>(new.iter().map(|s| s.username.as_str()).collect::<Vec<_>>())
            .bind::<Array<Bool>, _>(new.iter().map(|s| s.awaiting).collect::<Vec<_>>())
            .bind::<Array<Nullable<Timestamp>>, _>(
                new.iter().map(|s| s.deadline).collect::<Vec<_>>(),
            )
            .bind::<Array<Bool>, _>(new.iter().map(|s| s.reminded).collect::<Vec<_>>())
            .bind::<Array<Nullable<Timestamp>>, _>(
                new.iter().map(|s| s.away_until).collect::<Vec<_>>(),
            )
            .bind::<Array<Text>, _>(feed().map(|(g, _)| g.game.as_str()).collect::<Vec<_>>())
            .bind::<Array<Text>, _>(
                feed()
                    .map(|(_, f)| f.account_id.as_str())
                    .collect::<Vec<_>>(),
            )
            .bind::<Array<Text>, _>(feed().map(|(_, f)| f.kind.as_str()).collect::<Vec<_>>())
            .bind::<Array<Text>, _>(feed().map(|(_, f)| f.payload.as_str()).collect::<Vec<_>>())
            .bind::<Array<Text>, _>(
                feed()
                    .map(|(_, f)| f.bodies.webhook.before.as_str())
                    .collect::<Vec<_>>(),
            )
            .bind::<Array<Text>, _>(
                feed()
                    .map(|(_, f)| f.bodies.webhook.after.as_str())
                    .collect::<Vec<_>>(),
            )
            .bind::<Array<Text>, _>(
                feed()
                    .map(|(_, f)| f.bodies.push.before.as_str())
                    .collect::<Vec<_>>(),
            )
            .bind::<Array<Text>, _>(
                feed()
                    .map(|(_, f)| f.bodies.push.after.as_str())
                    .collect::<Vec<_>>(),
            )
            .bind::<Array<Text>, _>(keys().map(|(g, _)| g.game.as_str()).collect::<Vec<_>>())
            .bind::<Array<Text>, _>(
                keys()
                    .map(|(_, k)| k.account_id.as_str())
                    .collect::<Vec<_>>(),
            )
            .bind::<Array<Text>, _>(keys().map(|(_, k)| k.key.as_str()).collect::<Vec<_>>())
            .bind::<Array<Text>, _>(
                keys()
                    .map(|(_, k)| k.request_hash.as_str())
                    .collect::<Vec<_>>(),
            )
            .bind::<Array<Integer>, _>(keys().map(|(_, k)| k.status).collect::<Vec<_>>())
            .bind::<Array<Text>, _>(keys().map(|(_, k)| k.body.as_str()).collect::<Vec<_>>())
            .bind::<Array<Text>, _>(
                keys()
                    .map(|(_, k)| k.stored_as.as_str())
                    .collect::<Vec<_>>(),
            ),
    )
    .load(pg)?;
    games.iter().map(|g| written(g, &outcomes)).collect()
}

/// What the statement's outcome rows say of `game`.
fn written(game: &GameRows, outcomes: &[Outcome]) -> Result<Written, StoreError> {
    let mine = || outcomes.iter().filter(|o| o.game_id == game.game);
    if mine().next().is_none() {
        return Ok(None);
    }
    let mut wakes = Vec::new();
    for outcome in mine() {
        if let (Some(account), Some(seq)) = (&outcome.account_id, outcome.last_seq) {
            wakes.push(Wake {
                topic: Topic::Account(super::rows::uuid("feed account", account)?),
                seq,
            });
        }
    }
    Ok(Some(wakes))
}

#[cfg(test)]
mod tests;
