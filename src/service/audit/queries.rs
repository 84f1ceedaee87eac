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
use crate::service::{Caller, LogEvent};
use crate::store::GameStatus;
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
    /// Pass as `cursor` for the next page; absent on the last page. Filters and cursors work
    /// on the events as the caller may see them (R8), so every page but the last is full.
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
    pub status: GameStatus,
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
    let store = &store.reader_for_audit();
    let actor = match filter.player.as_deref() {
        Some(player) => Some(find_player(store, player)?.id),
        None => None,
    };
    let limit = limit(filter.limit, MAX_EVENTS_LIMIT)?;
    let page_size = usize::try_from(limit).map_err(ServiceError::internal)?;
    let mut query = AuditEventQuery {
        actor,
        kinds: filter.kind.as_deref().map(stored_kinds).unwrap_or_default(),
        game: filter.game,
        from: filter.from,
        to: filter.to,
        limit,
        cursor: filter.cursor,
    };
    let mut games: HashMap<Uuid, GameRecord> = HashMap::new();
    let mut accounts: HashMap<Uuid, Option<AuditAccount>> = HashMap::new();
    let mut events = Vec::new();
    // The filter and the cursor work on what the admin may see (R8): a stored event whose
    // projection is of another kind than the one asked for is passed over, and the next
    // cursor is taken from the last event answered, never from a passed-over one, so neither
    // the page nor its cursor tells that a hidden event exists. Passing over may leave a page
    // short: read on until it is full or the log ends.
    let mut last_answered = None;
    let mut more = false;
    'pages: loop {
        let page = store.audit_events(&query)?;
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
            let kind = entry.event.kind();
            if filter.kind.as_deref().is_some_and(|asked| asked != kind) {
                continue;
            }
            if events.len() == page_size {
                more = true;
                break 'pages;
            }
            // The same rule as `actor_seat`: an event that follows from the rules names nobody.
            let stored_event = LogEvent::from_payload(&stored.payload)?;
            let actor = match stored_event.actor(stored.actor) {
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
            last_answered = Some(stored.clone());
        }
        match page.next_cursor {
            Some(next) if events.len() < page_size => query.cursor = Some(next),
            Some(_) => {
                more = true;
                break;
            }
            None => break,
        }
    }
    let next_cursor = match last_answered {
        Some(stored) if more => Some(Store::audit_cursor_after(&stored)),
        _ => None,
    };
    Ok(AuditEventPage {
        events,
        next_cursor,
    })
}

/// The stored kinds an event listed under `asked` may have (R8.2: the rules' projection may
/// show one kind as another); the projection then decides what is listed.
fn stored_kinds(asked: &str) -> Vec<String> {
    racko_rules::event::kinds_shown_as(asked)
        .into_iter()
        .map(str::to_string)
        .collect()
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
    let store = &store.reader_for_audit();
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
            status: record.status,
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
