//! The export: a game's record as one versioned JSON document. For a finished game it is the
//! complete record (R8.2) that `racko verify` checks; before that it holds only what the caller
//! may see (projected events, no unrevealed seeds).

use chrono::{DateTime, Utc};
use racko_rules::{Event, Options, Seat, Seed, Viewer};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use super::log::GameLog;
use crate::error::ServiceError;
use crate::service::log_event::SeatedPlayer;
use crate::service::log_page::{EventEntry, Projection};
use crate::service::{viewer_of, Caller, LogEvent};
use crate::store::GameStatus;
use crate::store::Store;

/// The `format` of every export.
pub const EXPORT_FORMAT: &str = "racko-game-export";
/// The `format_version` this build writes and reads. Readers refuse other versions.
pub const EXPORT_FORMAT_VERSION: u32 = 1;

/// A game's record (format `racko-game-export`, version 1).
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct GameExport {
    /// Always `racko-game-export`.
    pub format: String,
    /// 1; a reader refuses a version it does not know.
    pub format_version: u32,
    pub game_id: Uuid,
    /// The rules version the game was played under.
    pub rules_version: u32,
    pub options: Options,
    pub status: GameStatus,
    /// A rated game: its end moved its players' ratings (false in exports made before
    /// ratings existed, as those games were casual).
    #[serde(default)]
    pub rated: bool,
    /// True when this is the full record: the game has ended and everything is public (R8.2).
    /// False: the events are projected for `viewer` and unrevealed seeds are absent.
    pub complete: bool,
    /// Whose projection this is.
    pub viewer: Viewer,
    /// By seat, as seated when the game started (empty before).
    pub players: Vec<SeatedPlayer>,
    pub exported_at: DateTime<Utc>,
    /// Every event of the log, ascending by seq (1, 2, 3, … without gaps).
    pub events: Vec<EventEntry>,
    /// Every dealt round: its seed commitment and, once the round has ended, its seed (R9.2).
    pub rounds: Vec<ExportRound>,
    /// Final totals and winners, once the game has ended.
    pub result: Option<GameResult>,
}

/// One round's randomness (R9.2) and scores.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ExportRound {
    pub round: u32,
    pub dealer: Seat,
    /// SHA-256 of the seed's 32 bytes (lowercase hex), published when the round was dealt.
    pub seed_commitment: String,
    /// The seed (64 hex digits), revealed when the round ended; absent before.
    pub seed: Option<Seed>,
    /// The round was dealt from a stacked deck (test mode), recorded in its `round_started`.
    pub stacked: bool,
    /// By seat, once the round has ended.
    pub scores: Option<Vec<u32>>,
}

/// How the game ended (R6.1, R7.1).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct GameResult {
    /// By seat.
    pub totals: Vec<u32>,
    pub winners: Vec<Seat>,
}

/// The export of game `id` as the caller may see it.
pub fn export_game(store: &Store, caller: &Caller, id: Uuid) -> Result<GameExport, ServiceError> {
    let log = GameLog::load(&store.reader_for_game(id), id)?;
    let record = &log.record;
    // A game the caller may not see answers as one that does not exist.
    crate::service::access::check_visible(store, record, caller.id)?;
    let projection = Projection::new(record, caller.id);
    let events = log
        .entries
        .iter()
        .map(|e| {
            let mut entry = projection.entry(e.seq, e.round, e.actor, e.at, &e.event);
            // The kind of what the caller sees: a projection may show one kind as another
            // (a void card swap is a card swap to a bystander).
            entry.kind = entry.event.kind().to_string();
            entry
        })
        .collect();
    let players = SeatedPlayer::all(&record.seats);
    Ok(GameExport::new(ExportHead {
        game_id: id,
        rules_version: record.rules_version,
        options: log.options().clone(),
        status: record.status,
        rated: record.access.rated,
        viewer: viewer_of(record, caller.id),
        seats: players,
        exported_at: Utc::now(),
        events,
    }))
}

/// What an export is built from; the rounds and the result are derived from the events.
pub struct ExportHead {
    pub game_id: Uuid,
    pub rules_version: u32,
    pub options: Options,
    pub status: GameStatus,
    pub rated: bool,
    pub viewer: Viewer,
    /// The seats now, used until the log names the players (`game_started`).
    pub seats: Vec<SeatedPlayer>,
    pub exported_at: DateTime<Utc>,
    pub events: Vec<EventEntry>,
}

impl GameExport {
    pub fn new(head: ExportHead) -> GameExport {
        let mut players = head.seats;
        let mut rounds: Vec<ExportRound> = Vec::new();
        let mut result = None;
        for entry in &head.events {
            match &entry.event {
                LogEvent::GameStarted { players: seated } => players = seated.clone(),
                LogEvent::Play(event) => note_round(event, &mut rounds, &mut result),
                _ => {}
            }
        }
        GameExport {
            format: EXPORT_FORMAT.to_string(),
            format_version: EXPORT_FORMAT_VERSION,
            game_id: head.game_id,
            rules_version: head.rules_version,
            options: head.options,
            status: head.status,
            rated: head.rated,
            complete: result.is_some() && head.viewer == Viewer::Everyone,
            viewer: head.viewer,
            players,
            exported_at: head.exported_at,
            events: head.events,
            rounds,
            result,
        }
    }
}

/// The rounds table and the result as the events tell them.
pub(super) fn note_round(
    event: &Event,
    rounds: &mut Vec<ExportRound>,
    result: &mut Option<GameResult>,
) {
    match event {
        Event::RoundStarted {
            round,
            dealer,
            seed_commitment,
            seed,
            stacked,
            ..
        } => rounds.push(ExportRound {
            round: *round,
            dealer: *dealer,
            seed_commitment: seed_commitment.clone(),
            seed: *seed,
            stacked: stacked.is_some(),
            scores: None,
        }),
        Event::RoundEnded {
            round,
            scores,
            seed,
            ..
        } => {
            if let Some(r) = rounds.iter_mut().find(|r| r.round == *round) {
                // The seed is public from here on (R8.2), even in a projected export.
                r.seed = Some(*seed);
                r.scores = Some(scores.clone());
            }
        }
        Event::GameEnded { winners, totals } => {
            *result = Some(GameResult {
                totals: totals.clone(),
                winners: winners.clone(),
            })
        }
        _ => {}
    }
}
