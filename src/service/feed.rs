//! The account feed: what a player learns without polling — your turn, a game
//! started, someone joined or left, a game finished or was cancelled. Items are derived in the
//! one write path from the game before and after a change and stored in its transaction, each
//! with the account's own gapless seq. They name the game, its version and seats; never a card
//! (R8).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::ToSchema;
use uuid::Uuid;

use super::Caller;
use crate::error::ServiceError;
use crate::store::{GameRecord, GameStatus, NewFeedItem, SeatRecord, Store, StoredFeedItem};

pub use super::paging::{DEFAULT_LIMIT, MAX_LIMIT};

/// The items a change from `before` to (`status`, `seats`) causes. `seats` carry the
/// awaiting flags as the write path derived them.
pub fn items(before: &GameRecord, status: GameStatus, seats: &[SeatRecord]) -> Vec<NewFeedItem> {
    let mut out = Vec::new();
    let mut push = |account: Uuid, kind: &str, payload: serde_json::Value| {
        out.push(NewFeedItem {
            account_id: account,
            kind: kind.to_string(),
            payload,
        })
    };
    let table = json!(seats
        .iter()
        .map(|s| json!({ "seat": s.seat, "username": s.username }))
        .collect::<Vec<_>>());
    let seated = |list: &[SeatRecord], account: Uuid| list.iter().any(|s| s.account_id == account);

    for joined in seats
        .iter()
        .filter(|s| !seated(&before.seats, s.account_id))
    {
        for other in seats.iter().filter(|s| s.account_id != joined.account_id) {
            let who = json!({ "seat": joined.seat, "username": joined.username, "seats": table });
            push(other.account_id, "player_joined", who);
        }
    }
    for left in before.seats.iter().filter(|s| !seated(seats, s.account_id)) {
        for other in seats {
            let who = json!({ "seat": left.seat, "username": left.username, "seats": table });
            push(other.account_id, "player_left", who);
        }
    }
    if status != before.status {
        let kind = match status {
            GameStatus::Active => Some("game_started"),
            GameStatus::Finished => Some("game_finished"),
            GameStatus::Cancelled => Some("game_cancelled"),
            GameStatus::Open => None,
        };
        if let Some(kind) = kind {
            // A cancelled game may have lost its last seat: tell whoever sat there before too.
            let mut told: Vec<Uuid> = seats.iter().map(|s| s.account_id).collect();
            if status == GameStatus::Cancelled {
                told.extend(before.seats.iter().map(|s| s.account_id));
                told.sort();
                told.dedup();
            }
            for account in told {
                push(account, kind, json!({ "seats": table }));
            }
        }
    }
    if status == GameStatus::Active {
        let was_awaited = |account: Uuid| {
            before
                .seats
                .iter()
                .any(|s| s.account_id == account && s.awaiting)
        };
        for seat in seats
            .iter()
            .filter(|s| s.awaiting && !was_awaited(s.account_id))
        {
            push(
                seat.account_id,
                "your_turn",
                json!({ "seat": seat.seat, "seats": table }),
            );
        }
    }
    // Issue 11.4: a seat just marked reminded is told its deadline is near.
    for seat in seats.iter().filter(|s| s.reminded && s.awaiting) {
        let was = before
            .seats
            .iter()
            .any(|b| b.seat == seat.seat && b.account_id == seat.account_id && b.reminded);
        if !was {
            let data = json!({ "seat": seat.seat, "deadline": seat.deadline, "seats": table });
            push(seat.account_id, "deadline_near", data);
        }
    }
    // Nobody reads a computer's feed (and its head row would be one lock for every game).
    out.retain(|item| super::computer::level_of(item.account_id).is_none());
    out
}

/// One item of the caller's feed (also the `data` of a webhook delivery).
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct FeedEntry {
    /// 1, 2, 3, … without gaps within an account's feed (the stream's `id`).
    pub seq: i64,
    /// `your_turn`, `deadline_near`, `game_started`, `player_joined`, `player_left`, `game_finished`,
    /// `game_cancelled`, `invited` (to an open game, `by` its creator), `webhook_disabled`.
    pub kind: String,
    /// The game it is about; none for an item about the account (`webhook_disabled`).
    pub game_id: Option<Uuid>,
    /// The game's version after the change (compare with `ETag` / `If-None-Match`).
    pub game_version: Option<i64>,
    pub at: DateTime<Utc>,
    /// Public facts: `seats` (seat and username), and `seat`/`username` of whom it is about.
    #[schema(value_type = Object)]
    pub data: serde_json::Value,
}

impl From<StoredFeedItem> for FeedEntry {
    fn from(item: StoredFeedItem) -> FeedEntry {
        FeedEntry {
            seq: item.seq,
            kind: item.kind,
            game_id: item.game_id,
            game_version: item.game_version,
            at: item.created_at,
            data: item.payload,
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct FeedPage {
    pub items: Vec<FeedEntry>,
    /// Pass as `after` to read on (the seq of the last item here, or `after` when none).
    pub next_after: i64,
}

/// The caller's feed after `after`, at most `limit` (1..=500, default 100).
pub fn page(
    store: &Store,
    caller: &Caller,
    after: Option<i64>,
    limit: Option<i64>,
) -> Result<FeedPage, ServiceError> {
    let (after, limit) = super::paging::after_and_limit(after, limit)?;
    let items: Vec<FeedEntry> = store
        .feed(caller.id, after, limit)?
        .into_iter()
        .map(FeedEntry::from)
        .collect();
    let next_after = items.last().map_or(after, |item| item.seq);
    Ok(FeedPage { items, next_after })
}
