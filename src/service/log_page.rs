//! Reading a page of a game's log, each entry projected for the caller (R8).

use chrono::{DateTime, Utc};
use racko_rules::{Seat, Viewer};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use super::{seat_of, viewer_of, Caller, LogEvent};
use crate::error::ServiceError;
use crate::store::{GameRecord, Store, StoredEvent};

pub use super::paging::{DEFAULT_LIMIT, MAX_LIMIT};

/// One entry of the log as the caller may see it.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct EventEntry {
    /// 1, 2, 3, … without gaps within a game.
    pub seq: i64,
    /// The round the event belongs to (0 before the first deal).
    pub round: u32,
    /// The event's `type`.
    pub kind: String,
    /// The seat whose action this event is the input of (a move, a resignation, a lobby
    /// fact); null for what follows from the rules (`turn_started`, `round_ended`, …) and for
    /// a move the server made for a seat whose time ran out.
    pub actor_seat: Option<Seat>,
    pub at: DateTime<Utc>,
    pub event: LogEvent,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct EventPage {
    pub events: Vec<EventEntry>,
    /// Pass as `after` to read on (the seq of the last event here, or `after` when none).
    pub next_after: i64,
}

/// How to project events of one game for one viewer, given the state the game is in now.
pub struct Projection<'a> {
    game: &'a GameRecord,
    viewer: Viewer,
}

impl<'a> Projection<'a> {
    pub fn new(game: &'a GameRecord, caller: Uuid) -> Projection<'a> {
        Projection::for_viewer(game, viewer_of(game, caller))
    }

    /// For a viewer class already known (`viewer_of` this game): the streams share one
    /// projection per class.
    pub fn for_viewer(game: &'a GameRecord, viewer: Viewer) -> Projection<'a> {
        Projection { game, viewer }
    }

    /// `event` of `round` as the viewer may see it: an ended round is public (R8.2).
    pub fn entry(
        &self,
        seq: i64,
        round: u32,
        actor: Option<Uuid>,
        at: DateTime<Utc>,
        event: &LogEvent,
    ) -> EventEntry {
        let round_closed = self.game.state.round_closed(round);
        // Entries stored before the write side applied the rule of `LogEvent::actor` read alike.
        let actor = event.actor(actor);
        let event = event.for_viewer(self.viewer, round_closed);
        EventEntry {
            seq,
            round,
            // The kind of the projection, not of the stored event: a void card swap is shown
            // to bystanders as a card swap (R8), and its kind must not tell them otherwise.
            kind: event.kind().to_string(),
            actor_seat: actor.and_then(|account| seat_of(self.game, account)),
            at,
            event,
        }
    }

    pub(crate) fn stored(&self, stored: &StoredEvent) -> Result<EventEntry, ServiceError> {
        let event = LogEvent::from_payload(&stored.payload)?;
        Ok(self.entry(
            stored.seq,
            stored.round,
            stored.actor,
            stored.created_at,
            &event,
        ))
    }
}

/// Events with seq > `after`, at most `limit`. Whoever may see the game (`access`) may read
/// its log; non-players get the public projection.
pub fn page(
    store: &Store,
    caller: &Caller,
    game: Uuid,
    after: Option<i64>,
    limit: Option<i64>,
) -> Result<EventPage, ServiceError> {
    let (after, limit) = super::paging::after_and_limit(after, limit)?;
    // The state is read before the events: an event newer than this state then belongs to a
    // round this state thinks open (or unknown), so it is projected as hidden, never the reverse.
    let record = super::access::load_visible(store, game, caller.id)?;
    // A finished game's log no longer grows: a replica that has all of it may answer.
    let reader = match record.status {
        crate::store::GameStatus::Finished => store.reader_at(game, record.last_seq),
        _ => store.clone(),
    };
    let stored = reader.events(game, after, limit)?;
    let projection = Projection::new(&record, caller.id);
    let events = stored
        .iter()
        .map(|event| projection.stored(event))
        .collect::<Result<Vec<_>, _>>()?;
    let next_after = events.last().map_or(after, |event| event.seq);
    Ok(EventPage { events, next_after })
}
