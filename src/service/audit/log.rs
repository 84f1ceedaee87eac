//! A game's stored log, parsed: the record first, then its events up to the record's last seq,
//! so that the log never runs ahead of the state it is compared with.

use chrono::{DateTime, Utc};
use racko_rules::{Event, Options};
use uuid::Uuid;

use super::check_rules_version;
use crate::error::ServiceError;
use crate::service::{load_game, LogEvent};
use crate::store::{GameRecord, Store};

/// One stored event, parsed.
#[derive(Clone, Debug)]
pub struct LogEntry {
    pub seq: i64,
    pub round: u32,
    pub actor: Option<Uuid>,
    pub at: DateTime<Utc>,
    pub event: LogEvent,
}

pub struct GameLog {
    pub record: GameRecord,
    /// Ascending by seq.
    pub entries: Vec<LogEntry>,
}

impl GameLog {
    /// The game and its whole log. 404 `game_not_found`; 409 `unknown_rules_version` for a
    /// game of rules this build does not know.
    pub fn load(store: &Store, id: Uuid) -> Result<GameLog, ServiceError> {
        let record = load_game(store, id)?;
        check_rules_version(record.rules_version)?;
        // Bounded by the record's last seq: events appended since belong to a newer state.
        let stored = store.events(id, 0, record.last_seq.max(0))?;
        let entries = stored
            .iter()
            .map(|e| {
                Ok(LogEntry {
                    seq: e.seq,
                    round: e.round,
                    actor: e.actor,
                    at: e.created_at,
                    event: LogEvent::from_payload(&e.payload)?,
                })
            })
            .collect::<Result<Vec<_>, ServiceError>>()?;
        let log = GameLog { record, entries };
        log.check_created()?;
        Ok(log)
    }

    /// The options the game was created with, from its `game_created` event (the replay needs
    /// the options the log was played under, whatever the record says now).
    pub fn options(&self) -> &Options {
        match self.entries.first().map(|e| &e.event) {
            Some(LogEvent::GameCreated { options, .. }) => options,
            _ => &self.record.options,
        }
    }

    /// The rules events with their seqs, in order.
    pub fn rules_events(&self) -> Vec<(i64, Event)> {
        self.entries
            .iter()
            .filter_map(|e| match &e.event {
                LogEvent::Play(event) => Some((e.seq, event.clone())),
                _ => None,
            })
            .collect()
    }

    /// The first event must be `game_created`, under a rules version this build knows.
    fn check_created(&self) -> Result<(), ServiceError> {
        match self.entries.first().map(|e| &e.event) {
            Some(LogEvent::GameCreated { rules_version, .. }) => {
                check_rules_version(*rules_version)
            }
            // An empty log has nothing to check.
            None => Ok(()),
            Some(other) => Err(ServiceError::internal(format!(
                "game {}: the log starts with {}, not game_created",
                self.record.id,
                other.kind()
            ))),
        }
    }
}
