//! Verifying an export: the record must agree with itself, with its seeds and with the rules.
//! [`parse`] and [`verify`] do no IO: they read a document already in memory, and
//! `GET /v1/games/{id}/verify` calls [`verify`] on a stored game's export. [`run_cli`], behind
//! `racko verify FILE`, reads the file, prints the report (stdout) or the first problem
//! (stderr) and returns the exit code.
//!
//! The checks, in order: format and rules version known, the record complete, seqs 1, 2, 3, …
//! each event's kind, round and actor, the players, each round's seed against its commitment
//! (SHA-256) and its deck (re-derived from the seed by the shuffle, or the recorded stacked
//! deck) against the deal and start card, the rounds table, then a full replay of every action
//! through the rules (every recorded event, score and total must be what the rules give), every
//! timeout against its deadline (R10.2), and the final totals and winners. The first
//! discrepancy ends it, named.

use racko_rules::replay::replay;
use racko_rules::{Actor, Event, Game, Options, Phase, Seat};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use super::diff::{difference_from, first_difference};
use super::export::{GameExport, GameResult, EXPORT_FORMAT, EXPORT_FORMAT_VERSION};
use crate::service::LogEvent;

mod cli;
mod deadlines;
mod rounds;

pub use cli::run_cli;
use deadlines::check_deadlines;
use rounds::{check_rounds_table, check_seeds};

/// Why an export does not verify.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    /// The document cannot be checked: not JSON, not an export, an unknown format or rules
    /// version, or not a complete record. `racko verify` exits with 2.
    #[error("cannot verify: {0}")]
    Unusable(String),
    /// The record disagrees with itself, its seeds or the rules. `racko verify` exits with 1.
    #[error("discrepancy: {0}")]
    Discrepancy(String),
}

impl VerifyError {
    /// The message alone, without the kind of error.
    pub fn message(&self) -> &str {
        match self {
            VerifyError::Unusable(m) | VerifyError::Discrepancy(m) => m,
        }
    }

    /// The exit code of `racko verify` (documented in docs/audit.md).
    pub fn exit_code(&self) -> i32 {
        match self {
            VerifyError::Discrepancy(_) => 1,
            VerifyError::Unusable(_) => 2,
        }
    }
}

fn unusable(message: impl Into<String>) -> VerifyError {
    VerifyError::Unusable(message.into())
}

fn discrepancy(message: impl Into<String>) -> VerifyError {
    VerifyError::Discrepancy(message.into())
}

/// What was checked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct VerifyReport {
    pub game_id: Uuid,
    pub rules_version: u32,
    /// Events in the log (seq order checked).
    pub events: usize,
    /// Rounds replayed.
    pub rounds: usize,
    /// Player actions replayed through the rules.
    pub actions: usize,
    /// Seeds checked against their SHA-256 commitments.
    pub commitments: usize,
    /// Decks re-derived from their seeds (or checked stacked decks) against the deal.
    pub decks: usize,
    /// Timeouts, each checked to follow a passed deadline of its own (R10.2).
    pub timeouts: usize,
    pub totals: Vec<u32>,
    pub winners: Vec<Seat>,
}

impl std::fmt::Display for VerifyReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "game {} (rules version {})",
            self.game_id, self.rules_version
        )?;
        writeln!(
            f,
            "  events:      {} (seq 1..{} in order)",
            self.events, self.events
        )?;
        writeln!(f, "  rounds:      {}", self.rounds)?;
        writeln!(
            f,
            "  actions:     {} replayed through the rules",
            self.actions
        )?;
        writeln!(
            f,
            "  commitments: {} seeds match their SHA-256",
            self.commitments
        )?;
        writeln!(
            f,
            "  decks:       {} re-derived and matched to the deal",
            self.decks
        )?;
        writeln!(
            f,
            "  timeouts:    {}, each after a deadline of its own",
            self.timeouts
        )?;
        writeln!(
            f,
            "  totals:      {:?}, winners: seats {:?}",
            self.totals, self.winners
        )
    }
}

/// Parses an export file's text. The header is read first so that a document of another
/// format, format version or rules version gets that message, not a field error.
pub fn parse(text: &str) -> Result<GameExport, VerifyError> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| unusable(format!("the file is not JSON: {e}")))?;
    let field = |name: &str| value.get(name).cloned().unwrap_or(serde_json::Value::Null);
    let format = field("format");
    if format.as_str() != Some(EXPORT_FORMAT) {
        return Err(unusable(format!(
            "not a Racko export (format {format}, expected \"{EXPORT_FORMAT}\")"
        )));
    }
    check_header(
        field("format_version").as_u64(),
        field("rules_version").as_u64(),
    )?;
    serde_json::from_value(value).map_err(|e| unusable(format!("not a valid export: {e}")))
}

fn check_header(
    format_version: Option<u64>,
    rules_version: Option<u64>,
) -> Result<(), VerifyError> {
    if format_version != Some(u64::from(EXPORT_FORMAT_VERSION)) {
        return Err(unusable(format!(
            "unknown format_version {} (this verifier reads {EXPORT_FORMAT_VERSION})",
            show_number(format_version)
        )));
    }
    let known = rules_version
        .and_then(|v| u32::try_from(v).ok())
        .is_some_and(racko_rules::knows_rules_version);
    if !known {
        return Err(unusable(format!(
            "unknown rules version {} (this verifier knows rules versions {:?})",
            show_number(rules_version),
            racko_rules::SHIPPED_RULES_VERSIONS
        )));
    }
    Ok(())
}

fn show_number(n: Option<u64>) -> String {
    n.map_or("(missing)".to_string(), |n| n.to_string())
}

/// Verifies a complete export (see the module docs).
pub fn verify(doc: &GameExport) -> Result<VerifyReport, VerifyError> {
    if doc.format != EXPORT_FORMAT {
        return Err(unusable(format!(
            "not a Racko export (format {:?})",
            doc.format
        )));
    }
    check_header(
        Some(u64::from(doc.format_version)),
        Some(u64::from(doc.rules_version)),
    )?;
    if !doc.complete {
        return Err(unusable(
            "the export is not complete (the game has not ended, or it is one player's \
             projection); only a finished game's full record can be verified",
        ));
    }
    check_seqs(doc)?;
    let options = check_lobby(doc)?;
    let events = check_entries(doc)?;
    let (commitments, decks) = check_seeds(options, &events)?;
    // The rules judge the log before the rounds table is compared with it.
    let game = replay_all(options, &events)?;
    check_rounds_table(doc, &events)?;
    let timeouts = check_deadlines(doc, options)?;
    let result = check_result(doc, &game)?;
    Ok(VerifyReport {
        game_id: doc.game_id,
        rules_version: doc.rules_version,
        events: doc.events.len(),
        rounds: game.round() as usize,
        actions: events.iter().filter(|(_, e)| e.action().is_some()).count(),
        commitments,
        decks,
        timeouts,
        totals: result.totals,
        winners: result.winners,
    })
}

/// Seqs are 1, 2, 3, … in order, without gaps. Order first: a swap is named as such, not as
/// the gap it also leaves.
fn check_seqs(doc: &GameExport) -> Result<(), VerifyError> {
    for pair in doc.events.windows(2) {
        let (before, after) = (pair[0].seq, pair[1].seq);
        if after <= before {
            return Err(discrepancy(format!(
                "event seq {after} comes after seq {before}: the log is out of order"
            )));
        }
    }
    for (expected, entry) in (1..).zip(&doc.events) {
        if entry.seq != expected {
            return Err(discrepancy(format!(
                "the log has a gap: seq {expected} is missing (the next event is seq {})",
                entry.seq
            )));
        }
    }
    if doc.events.is_empty() {
        return Err(discrepancy("the log is empty"));
    }
    Ok(())
}

/// The first event creates the game with the document's options and rules version; the
/// players are those `game_started` seated.
fn check_lobby(doc: &GameExport) -> Result<&Options, VerifyError> {
    let Some(LogEvent::GameCreated {
        options,
        rules_version,
        ..
    }) = doc.events.first().map(|e| &e.event)
    else {
        return Err(discrepancy("event seq 1 is not game_created"));
    };
    if *rules_version != doc.rules_version {
        return Err(discrepancy(format!(
            "event seq 1 (game_created): rules version {rules_version}, the document says {}",
            doc.rules_version
        )));
    }
    if *options != doc.options {
        let (a, b) = (json(&doc.options), json(options));
        let what = difference_from(&a, &b, "game_created gives").unwrap_or_default();
        return Err(discrepancy(format!("options: {what}")));
    }
    let seated = doc.events.iter().find_map(|e| match &e.event {
        LogEvent::GameStarted { players } => Some(players),
        _ => None,
    });
    match seated {
        Some(players) if *players == doc.players => Ok(options),
        Some(players) => Err(discrepancy(format!(
            "players: {}",
            difference_from(&json(&doc.players), &json(players), "game_started gives")
                .unwrap_or_default()
        ))),
        None => Err(discrepancy(
            "the game never started (no game_started event)",
        )),
    }
}

/// Each event's `kind`, `round` and actor seat against its payload; returns the rules events.
fn check_entries(doc: &GameExport) -> Result<Vec<(i64, Event)>, VerifyError> {
    let mut round = 0;
    let mut events = Vec::new();
    let mut played_by_server = std::collections::BTreeSet::new();
    let mut resigned = std::collections::BTreeSet::new();
    for entry in &doc.events {
        let at = format!("event seq {} ({})", entry.seq, entry.event.kind());
        if entry.kind != entry.event.kind() {
            return Err(discrepancy(format!("{at}: recorded kind {}", entry.kind)));
        }
        let LogEvent::Play(event) = &entry.event else {
            if entry.round != 0 {
                return Err(discrepancy(format!(
                    "{at}: recorded in round {}, not 0",
                    entry.round
                )));
            }
            continue;
        };
        if let Event::RoundStarted { round: r, .. } = event {
            if *r != round + 1 {
                return Err(discrepancy(format!(
                    "{at}: round {r} follows round {round}"
                )));
            }
            round = *r;
        }
        if entry.round != round {
            return Err(discrepancy(format!(
                "{at}: recorded in round {}, it belongs to round {round}",
                entry.round
            )));
        }
        // Who may be recorded as the actor (`Event::actor`): the seat's player for its own
        // choices, nobody for the server's; for an action, also nobody when the server made
        // it for a seat whose time ran out or that resigned (R10.2, R10.3).
        let expected = match event.actor() {
            Actor::Seat(seat)
                if event.action().is_some()
                    && entry.actor_seat.is_none()
                    && (played_by_server.contains(&seat) || resigned.contains(&seat)) =>
            {
                Some(None)
            }
            Actor::Seat(seat) => {
                played_by_server.remove(&seat);
                Some(Some(seat))
            }
            Actor::Server => Some(None),
            Actor::Rules => None,
        };
        match *event {
            Event::TurnTimedOut { seat } => {
                played_by_server.insert(seat);
            }
            Event::Resigned { seat, .. } => {
                resigned.insert(seat);
            }
            _ => {}
        }
        if let Some(expected) = expected {
            if entry.actor_seat != expected {
                let name = |s: Option<Seat>| s.map_or("none".to_string(), |s| s.to_string());
                return Err(discrepancy(format!(
                    "{at}: recorded actor seat {}, expected {}",
                    name(entry.actor_seat),
                    name(expected)
                )));
            }
        }
        events.push((entry.seq, event.clone()));
    }
    Ok(events)
}

/// Replays every rules event; on a difference, names the event and the field.
fn replay_all(options: &Options, events: &[(i64, Event)]) -> Result<Game, VerifyError> {
    let plain: Vec<Event> = events.iter().map(|(_, e)| e.clone()).collect();
    match replay(options, &plain) {
        Ok(game) => Ok(game),
        Err(e) => {
            let named = super::explain::explain(options, events, &plain, e.index);
            Err(discrepancy(named.unwrap_or_else(|| {
                format!(
                    "{}: {}",
                    super::explain::describe(events, e.index),
                    e.message
                )
            })))
        }
    }
}

/// The game must be over, with the document's totals and winners.
fn check_result(doc: &GameExport, game: &Game) -> Result<GameResult, VerifyError> {
    let Phase::GameOver { winners } = game.phase() else {
        return Err(discrepancy("the log ends before the game does"));
    };
    let replayed = GameResult {
        totals: game.totals().to_vec(),
        winners: winners.clone(),
    };
    match &doc.result {
        Some(result) if *result == replayed => Ok(replayed),
        Some(result) => Err(discrepancy(format!(
            "result: {}",
            first_difference(&json(result), &json(&replayed)).unwrap_or_default()
        ))),
        None => Err(discrepancy(
            "the document has no result, but the game ended",
        )),
    }
}

fn json<T: Serialize>(value: &T) -> serde_json::Value {
    serde_json::to_value(value).unwrap_or(serde_json::Value::Null)
}
