//! Table rows as diesel sees them, and their conversion to and from the store's records.
//! Decoding never panics: a value that does not decode is an `Internal` error.

use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::prelude::*;
use serde::{de::DeserializeOwned, Serialize};
use uuid::Uuid;

use super::error::bad_data;
use super::schema::{accounts, game_events, game_seats, games, idempotency_keys};
use super::*;

/// Now, cut to microseconds: PostgreSQL keeps no more, and a value must read back as written
/// on both backends (list cursors compare them).
pub fn now() -> NaiveDateTime {
    super::now().naive_utc()
}

pub fn uuid(what: &str, text: &str) -> Result<Uuid, StoreError> {
    Uuid::parse_str(text).map_err(|e| bad_data(what, e))
}

pub fn to_json<T: Serialize>(what: &str, value: &T) -> Result<String, StoreError> {
    serde_json::to_string(value)
        .map_err(|e| StoreError::Internal(format!("cannot encode {what}: {e}")))
}

/// The stored length of a game state is a multiple of this: padded with spaces, which JSON
/// ignores.
const STATE_BLOCK: usize = 64;

/// A game state as stored: JSON padded to a multiple of [`STATE_BLOCK`] bytes. PostgreSQL logs
/// the update of a row that stays on its page as the bytes from the first that changed to
/// the last, and a text's length is stored before it. A state whose length changed (nearly
/// every action draws or discards a card) would be logged whole; padded, its length rarely
/// changes, and the log holds only what the action changed, which the field order of
/// `racko_rules::Game` puts at its end.
pub fn state_json(state: &racko_rules::Game) -> Result<String, StoreError> {
    let mut json = to_json("game state", state)?;
    let padded = json.len().div_ceil(STATE_BLOCK) * STATE_BLOCK;
    json.extend(std::iter::repeat_n(' ', padded - json.len()));
    Ok(json)
}

pub fn from_json<T: DeserializeOwned>(what: &str, text: &str) -> Result<T, StoreError> {
    serde_json::from_str(text).map_err(|e| bad_data(what, e))
}

/// An enum as the plain string its serde name gives (e.g. `GameStatus::Open` → "open").
pub fn enum_text<T: Serialize>(value: &T) -> Result<String, StoreError> {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(s)) => Ok(s),
        other => Err(StoreError::Internal(format!("not a plain enum: {other:?}"))),
    }
}

pub fn enum_from_text<T: DeserializeOwned>(what: &str, text: &str) -> Result<T, StoreError> {
    serde_json::from_value(serde_json::Value::String(text.to_string()))
        .map_err(|e| bad_data(what, e))
}

pub fn utc(t: NaiveDateTime) -> DateTime<Utc> {
    t.and_utc()
}

#[derive(Queryable, Insertable)]
#[diesel(table_name = accounts)]
pub struct AccountRow {
    pub id: String,
    pub username: String,
    pub username_lower: String,
    pub password_hash: Option<String>,
    pub role: String,
    pub guest: bool,
    pub created_at: NaiveDateTime,
    pub token_generation: i64,
    /// Set when the account's deletion began (its tokens revoked); see the migration.
    pub deleted_at: Option<NaiveDateTime>,
}

impl AccountRow {
    pub fn into_record(self) -> Result<Account, StoreError> {
        Ok(Account {
            id: uuid("account id", &self.id)?,
            username: self.username,
            password_hash: self.password_hash,
            role: enum_from_text("role", &self.role)?,
            guest: self.guest,
            created_at: utc(self.created_at),
            token_generation: self.token_generation,
        })
    }
}

#[derive(Queryable, Insertable)]
#[diesel(table_name = games)]
pub struct GameRow {
    pub id: String,
    pub created_by: String,
    pub invite_code: String,
    pub options: String,
    pub rules_version: i32,
    pub state: String,
    pub status: String,
    pub test_mode: bool,
    pub stacked: String,
    pub version: i64,
    pub last_seq: i64,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
    pub due_at: Option<NaiveDateTime>,
    pub rematch_id: Option<String>,
    pub visibility: String,
    pub spectators: String,
    pub invited: String,
    pub rated: bool,
    /// The public lists' order: the latest change, except moves within an active game.
    pub listed_at: NaiveDateTime,
}

impl GameRow {
    pub fn into_record(self, seats: Vec<SeatRecord>) -> Result<GameRecord, StoreError> {
        Ok(GameRecord {
            id: uuid("game id", &self.id)?,
            created_by: uuid("game creator", &self.created_by)?,
            invite_code: self.invite_code,
            options: from_json("game options", &self.options)?,
            rules_version: u32::try_from(self.rules_version)
                .map_err(|e| bad_data("rules version", e))?,
            state: from_json("game state", &self.state)?,
            status: enum_from_text("game status", &self.status)?,
            seats,
            test_mode: self.test_mode,
            stacked: from_json("stacked decks", &self.stacked)?,
            version: self.version,
            last_seq: self.last_seq,
            created_at: utc(self.created_at),
            updated_at: utc(self.updated_at),
            due_at: self.due_at.map(utc),
            rematch_id: self
                .rematch_id
                .as_deref()
                .map(|id| uuid("rematch id", id))
                .transpose()?,
            access: Access {
                visibility: enum_from_text("game visibility", &self.visibility)?,
                spectators: enum_from_text("game spectators", &self.spectators)?,
                invited: from_json("invited accounts", &self.invited)?,
                rated: self.rated,
            },
        })
    }
}

#[derive(Queryable, Insertable)]
#[diesel(table_name = game_seats)]
pub struct SeatRow {
    pub game_id: String,
    pub seat: i16,
    pub account_id: String,
    pub username: String,
    pub awaiting: bool,
    pub deadline: Option<NaiveDateTime>,
    pub reminded: bool,
    pub away_until: Option<NaiveDateTime>,
}

impl SeatRow {
    pub fn new(game: Uuid, seat: &SeatRecord) -> SeatRow {
        SeatRow {
            game_id: game.to_string(),
            seat: i16::from(seat.seat),
            account_id: seat.account_id.to_string(),
            username: seat.username.clone(),
            awaiting: seat.awaiting,
            deadline: seat.deadline.map(|d| d.naive_utc()),
            reminded: seat.reminded,
            away_until: seat.away_until.map(|d| d.naive_utc()),
        }
    }

    pub fn into_record(self) -> Result<SeatRecord, StoreError> {
        Ok(SeatRecord {
            seat: u8::try_from(self.seat).map_err(|e| bad_data("seat number", e))?,
            account_id: uuid("seat account", &self.account_id)?,
            username: self.username,
            awaiting: self.awaiting,
            deadline: self.deadline.map(utc),
            reminded: self.reminded,
            away_until: self.away_until.map(utc),
        })
    }
}

#[derive(Queryable, Insertable)]
#[diesel(table_name = game_events)]
pub struct EventRow {
    pub game_id: String,
    pub seq: i64,
    pub round: i32,
    pub kind: String,
    pub actor: Option<String>,
    pub payload: String,
    pub created_at: NaiveDateTime,
}

impl EventRow {
    pub fn new(
        game: Uuid,
        seq: i64,
        event: &NewEvent,
        at: NaiveDateTime,
    ) -> Result<Self, StoreError> {
        Ok(EventRow {
            game_id: game.to_string(),
            seq,
            round: i32::try_from(event.round)
                .map_err(|e| StoreError::Internal(format!("round: {e}")))?,
            kind: event.kind.clone(),
            actor: event.actor.map(|a| a.to_string()),
            payload: to_json("event", &event.payload)?,
            created_at: at,
        })
    }

    pub fn into_record(self) -> Result<StoredEvent, StoreError> {
        Ok(StoredEvent {
            game_id: uuid("event game", &self.game_id)?,
            seq: self.seq,
            round: u32::try_from(self.round).map_err(|e| bad_data("event round", e))?,
            kind: self.kind,
            actor: self
                .actor
                .as_deref()
                .map(|a| uuid("event actor", a))
                .transpose()?,
            payload: from_json("event payload", &self.payload)?,
            created_at: utc(self.created_at),
        })
    }
}

#[derive(Queryable, Insertable)]
#[diesel(table_name = idempotency_keys)]
pub struct IdempotencyRow {
    pub account_id: String,
    pub key: String,
    pub request_hash: String,
    pub status: i32,
    pub body: String,
    pub created_at: NaiveDateTime,
    pub stored_as: String,
}

impl IdempotencyRow {
    pub fn new(record: &IdempotencyRecord) -> Result<Self, StoreError> {
        Ok(IdempotencyRow {
            account_id: record.account_id.to_string(),
            key: record.key.clone(),
            request_hash: record.request_hash.clone(),
            status: i32::from(record.status),
            body: to_json("idempotent response", &record.body)?,
            created_at: record.created_at.naive_utc(),
            stored_as: enum_text(&record.stored_as)?,
        })
    }

    pub fn into_record(self) -> Result<IdempotencyRecord, StoreError> {
        Ok(IdempotencyRecord {
            account_id: uuid("idempotency account", &self.account_id)?,
            key: self.key,
            request_hash: self.request_hash,
            status: u16::try_from(self.status).map_err(|e| bad_data("response status", e))?,
            body: from_json("idempotent response", &self.body)?,
            created_at: utc(self.created_at),
            stored_as: enum_from_text("idempotency record", &self.stored_as)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use racko_rules::{Game, Options};

    #[test]
    fn a_stored_state_is_padded_to_whole_blocks_and_reads_back() {
        for players in 2..=4 {
            let game = Game::new(Options {
                players,
                ..Options::default()
            })
            .expect("options");
            let stored = state_json(&game).expect("encodes");
            assert_eq!(stored.len() % STATE_BLOCK, 0, "{}", stored.len());
            let json = stored.trim_end_matches(' ');
            assert!(stored.len() - json.len() < STATE_BLOCK);
            assert_eq!(json, to_json("game state", &game).expect("encodes"));
            let back: Game = from_json("game state", &stored).expect("reads");
            assert_eq!(back, game);
        }
    }
}
