//! Bulk loading of stored games, for filling a database with a population (the data-growth
//! benchmark, `examples/scale`): many games with their seats and whole logs in one
//! transaction, by multi-row INSERTs of the very rows `insert_game` writes one by one.
//! PostgreSQL only: diesel's MultiConnection has no multi-row INSERT.

use diesel::prelude::*;

use super::game_row;
use crate::store::conn::AnyConnection;
use crate::store::rows::{EventRow, SeatRow};
use crate::store::schema::{game_events, game_seats, games};
use crate::store::{NewEvent, NewGame, Store, StoreError};

/// Rows per INSERT: a statement takes at most 65,535 parameters (a game row has 20 columns).
const ROWS_PER_INSERT: usize = 2000;

impl Store {
    /// Inserts `games`, each with its seats and its first log entries (seq 1..), in one
    /// transaction, as [`Store::insert_game`] would one by one (without an answer kept for an
    /// Idempotency-Key, and waking no one). An invite code taken fails the whole batch.
    pub fn insert_games_in_bulk(
        &self,
        batch: &[(NewGame, Vec<NewEvent>)],
    ) -> Result<(), StoreError> {
        let mut game_rows = Vec::with_capacity(batch.len());
        let mut seat_rows = Vec::new();
        let mut event_rows = Vec::new();
        for (game, events) in batch {
            let record = game.record(events.len());
            game_rows.push(game_row(&record)?);
            seat_rows.extend(
                record
                    .seats
                    .iter()
                    .map(|seat| SeatRow::new(record.id, seat)),
            );
            let at = record.created_at.naive_utc();
            for (seq, event) in (1..).zip(events) {
                event_rows.push(EventRow::new(record.id, seq, event, at)?);
            }
        }
        self.write(|conn| {
            let AnyConnection::Pg(pg) = conn else {
                return Err(StoreError::Internal(
                    "bulk loading is for PostgreSQL only".into(),
                ));
            };
            for rows in game_rows.chunks(ROWS_PER_INSERT) {
                diesel::insert_into(games::table).values(rows).execute(pg)?;
            }
            for rows in seat_rows.chunks(ROWS_PER_INSERT) {
                diesel::insert_into(game_seats::table)
                    .values(rows)
                    .execute(pg)?;
            }
            for rows in event_rows.chunks(ROWS_PER_INSERT) {
                diesel::insert_into(game_events::table)
                    .values(rows)
                    .execute(pg)?;
            }
            Ok(())
        })
    }
}
