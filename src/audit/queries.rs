//! The admin's audit queries: events across games and a player's games. Admins see events as
//! R8 allows anyone who is not at the table (or as the player they are): hidden values of a
//! round still being played stay hidden; once the round ends they are public.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use racko_rules::Seat;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::error::{Code, ServiceError};
use crate::service::log_event::SeatedPlayer;
use crate::service::log_page::Projection;
use crate::service::{Caller, LogEvent, PublicStatus};
use crate::store::{Account, AuditEventQuery, GameRecord, Store};

pub const DEFAULT_LIMIT: i64 = 100;
pub const MAX_EVENTS_LIMIT: i64 = 500;
pub const MAX_GAMES_LIMIT: i64 = 100;

/// An account as the audit answers name it.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct AuditAccount {
    pub id: Uuid,
    pub username: String,
}

/// One event of any game.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct AuditEvent {
    pub game_id: Uuid,
    pub seq: i64,
    pub round: u32,
    pub kind: String,
    /// The account that caused it, for events a player caused.
    pub actor: Option<AuditAccount>,
    pub actor_seat: Option<Seat>,
    pub at: DateTime<Utc>,
    /// Projected as R8 allows the admin to see it now.
    pub event: LogEvent,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct AuditEventPage {
    /// Ordered by (at, game_id, seq).
    pub events: Vec<AuditEvent>,
    /// Pass as `cursor` for the next page; absent on the last page. A page may hold fewer
    /// events than `limit` (events R8 hides from a `kind` filter are left out).
    pub next_cursor: Option<String>,
}

/// The filters of `GET /v1/admin/events`.
#[derive(Clone, Debug, Default)]
pub struct EventFilter {
    /// An account id or a username.
    pub player: Option<String>,
    pub kind: Option<String>,
    pub game: Option<Uuid>,
    pub from: Option<DateTime<Utc>>,
    pub to: Option<DateTime<Utc>>,
    pub limit: Option<i64>,
    pub cursor: Option<String>,
}

/// One game of a player's history.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct HistoryGame {
    pub game_id: Uuid,
    pub status: PublicStatus,
    /// The player's seat.
    pub seat: Seat,
    pub players: Vec<SeatedPlayer>,
    pub rules_version: u32,
    /// Rounds dealt so far.
    pub rounds: u32,
    /// By seat (public, R8.1).
    pub totals: Vec<u32>,
    /// Once the game has ended.
    pub winners: Option<Vec<Seat>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct PlayerHistory {
    pub player: AuditAccount,
    /// Newest first.
    pub games: Vec<HistoryGame>,
    pub next_cursor: Option<String>,
}

fn limit(value: Option<i64>, max: i64) -> Result<i64, ServiceError> {
    let value = value.unwrap_or(DEFAULT_LIMIT.min(max));
    if (1..=max).contains(&value) {
        Ok(value)
    } else {
        Err(ServiceError::new(
            Code::InvalidLimit,
            format!("limit must be 1..={max}"),
        ))
    }
}

/// The account named by an id or a username; 404 `player_not_found`.
fn find_player(store: &Store, player: &str) -> Result<Account, ServiceError> {
    let found = match Uuid::parse_str(player.trim()) {
        Ok(id) => store.account(id)?,
        Err(_) => store.account_by_username(player.trim())?,
    };
    found.ok_or_else(|| ServiceError::new(Code::PlayerNotFound, "no account has this id or name"))
}

/// Events across games matching `filter`.
pub fn events(
    store: &Store,
    caller: &Caller,
    filter: EventFilter,
) -> Result<AuditEventPage, ServiceError> {
    if let (Some(from), Some(to)) = (filter.from, filter.to) {
        if from > to {
            return Err(ServiceError::new(
                Code::InvalidTimeRange,
                "from must not be after to",
            ));
        }
    }
    let actor = match filter.player.as_deref() {
        Some(player) => Some(find_player(store, player)?.id),
        None => None,
    };
    let query = AuditEventQuery {
        actor,
        kind: filter.kind,
        game: filter.game,
        from: filter.from,
        to: filter.to,
        limit: limit(filter.limit, MAX_EVENTS_LIMIT)?,
        cursor: filter.cursor,
    };
    let page = store.audit_events(&query)?;
    let mut games: HashMap<Uuid, GameRecord> = HashMap::new();
    let mut accounts: HashMap<Uuid, Option<AuditAccount>> = HashMap::new();
    let mut events = Vec::with_capacity(page.events.len());
    for stored in &page.events {
        let record = match games.entry(stored.game_id) {
            std::collections::hash_map::Entry::Occupied(known) => known.into_mut(),
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(crate::service::load_game(store, stored.game_id)?)
            }
        };
        let event = LogEvent::from_payload(&stored.payload)?;
        let entry = Projection::new(record, caller.id).entry(
            stored.seq,
            stored.round,
            stored.actor,
            stored.created_at,
            &event,
        );
        // The kind of what the admin sees; an event whose projection is of another kind than
        // the one asked for would reveal its hidden kind by being listed.
        let kind = entry.event.kind();
        if query.kind.as_deref().is_some_and(|asked| asked != kind) {
            continue;
        }
        let actor = match stored.actor {
            Some(id) => account_of(store, &mut accounts, id)?,
            None => None,
        };
        events.push(AuditEvent {
            game_id: stored.game_id,
            seq: entry.seq,
            round: entry.round,
            kind: kind.to_string(),
            actor,
            actor_seat: entry.actor_seat,
            at: entry.at,
            event: entry.event,
        });
    }
    Ok(AuditEventPage {
        events,
        next_cursor: page.next_cursor,
    })
}

fn account_of(
    store: &Store,
    cache: &mut HashMap<Uuid, Option<AuditAccount>>,
    id: Uuid,
) -> Result<Option<AuditAccount>, ServiceError> {
    if let Some(known) = cache.get(&id) {
        return Ok(known.clone());
    }
    let account = store.account(id)?.map(|a| AuditAccount {
        id: a.id,
        username: a.username,
    });
    cache.insert(id, account.clone());
    Ok(account)
}

/// The games `player` (an id or a username) sat in, newest first.
pub fn history(
    store: &Store,
    player: &str,
    limit_asked: Option<i64>,
    cursor: Option<String>,
) -> Result<PlayerHistory, ServiceError> {
    let account = find_player(store, player)?;
    let page = store.player_games(
        account.id,
        limit(limit_asked, MAX_GAMES_LIMIT)?,
        cursor.as_deref(),
    )?;
    let games = page
        .games
        .iter()
        .map(|(record, seat)| HistoryGame {
            game_id: record.id,
            status: PublicStatus::of(record),
            seat: *seat,
            players: record
                .seats
                .iter()
                .map(|s| SeatedPlayer {
                    seat: s.seat,
                    username: s.username.clone(),
                })
                .collect(),
            rules_version: record.rules_version,
            rounds: record.state.round(),
            totals: record.state.totals().to_vec(),
            winners: match record.state.phase() {
                racko_rules::Phase::GameOver { winners } => Some(winners.clone()),
                _ => None,
            },
            created_at: record.created_at,
            updated_at: record.updated_at,
        })
        .collect();
    Ok(PlayerHistory {
        player: AuditAccount {
            id: account.id,
            username: account.username,
        },
        games,
        next_cursor: page.next_cursor,
    })
}
