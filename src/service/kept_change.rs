//! What an idempotency record keeps of a change when it keeps no answer: enough to build the
//! answer again from the game's log, so a retry gets the first answer whatever came since.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::audit::log::GameLog;
use super::audit::replay::state_at;
use super::write::{Logged, Written};
use super::LogEvent;
use crate::error::ServiceError;
use crate::store::{GameRecord, GameStatus, SeatRecord, Store};

/// What an idempotency record keeps of a change (`StoredAs::Change`): what the change set on
/// the game that its log cannot give back. With the game's log up to `last_seq` (its state by
/// replay, the change's own events) it is the [`Written`] the answer was built from.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct KeptChange {
    game_id: Uuid,
    version: i64,
    /// The change's events are `first_seq..=last_seq` (none when `first_seq > last_seq`).
    first_seq: i64,
    last_seq: i64,
    status: GameStatus,
    seats: Vec<SeatRecord>,
    updated_at: DateTime<Utc>,
    due_at: Option<DateTime<Utc>>,
    rematch_id: Option<Uuid>,
}

impl KeptChange {
    pub(super) fn of(written: &GameRecord, first_seq: i64) -> KeptChange {
        KeptChange {
            game_id: written.id,
            version: written.version,
            first_seq,
            last_seq: written.last_seq,
            status: written.status,
            seats: written.seats.clone(),
            updated_at: written.updated_at,
            due_at: written.due_at,
            rematch_id: written.rematch_id,
        }
    }
}

/// The answer to the change `kept`, built again by `answer` from the game as it was written:
/// its state (as stored while the game is still at that version, else replayed from the
/// log), the rest from `kept`. The answer is then the one the first request got, whatever
/// came since.
pub(super) fn rebuilt<T>(
    store: &Store,
    kept: &KeptChange,
    answer: &impl Fn(&Written<'_>) -> T,
) -> Result<T, ServiceError> {
    let (record, logged) = match still_written(store, kept)? {
        Some(found) => found,
        None => replayed(store, kept)?,
    };
    let game = GameRecord {
        status: kept.status,
        seats: kept.seats.clone(),
        version: kept.version,
        last_seq: kept.last_seq,
        updated_at: kept.updated_at,
        due_at: kept.due_at,
        rematch_id: kept.rematch_id,
        ..record
    };
    Ok(answer(&Written {
        game: &game,
        log: logged.iter().map(|(seq, entry)| (*seq, entry)).collect(),
    }))
}

/// The game with its state as the change wrote it, and the change's own log entries.
type AsWritten = (GameRecord, Vec<(i64, Logged)>);

/// The game as stored when it is still at the version the change wrote (a retry soon after
/// the first request, the usual case), with only the change's own events read: no replay.
fn still_written(store: &Store, kept: &KeptChange) -> Result<Option<AsWritten>, ServiceError> {
    let record = match store.game(kept.game_id)? {
        Some(record) if record.version == kept.version => record,
        _ => return Ok(None),
    };
    let count = kept.last_seq - kept.first_seq + 1;
    let events = if count > 0 {
        store.events(kept.game_id, kept.first_seq - 1, count)?
    } else {
        Vec::new()
    };
    let logged = events
        .into_iter()
        .map(|e| {
            let entry = Logged {
                round: e.round,
                actor: e.actor,
                event: LogEvent::from_payload(&e.payload)?,
            };
            Ok((e.seq, entry))
        })
        .collect::<Result<Vec<_>, ServiceError>>()?;
    Ok(Some((record, logged)))
}

/// The game's state at the change replayed from the log (R9.2: the log gives the live state
/// back exactly), for a game that has moved on since.
fn replayed(store: &Store, kept: &KeptChange) -> Result<AsWritten, ServiceError> {
    let log = GameLog::load(store, kept.game_id)?;
    let replayed = state_at(log.options(), &log.rules_events(), kept.last_seq);
    let state = match replayed {
        Ok((state, as_of)) if as_of == kept.last_seq => state,
        other => {
            return Err(ServiceError::internal(format!(
                "game {}: the log does not give back version {}: {:?}",
                kept.game_id,
                kept.version,
                other.map(|(_, as_of)| as_of)
            )))
        }
    };
    let GameLog { record, entries } = log;
    let logged = entries
        .into_iter()
        .filter(|e| (kept.first_seq..=kept.last_seq).contains(&e.seq))
        .map(|e| {
            let entry = Logged {
                round: e.round,
                actor: e.actor,
                event: e.event,
            };
            (e.seq, entry)
        })
        .collect();
    Ok((GameRecord { state, ..record }, logged))
}
