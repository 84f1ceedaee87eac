//! What the API answers about a game: the caller's view of one game and the list entries.

use chrono::{DateTime, Utc};
use racko_bots::Level;
use racko_rules::{Options, Seat, View};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use super::{seat_of, viewer_of};
use crate::store::{GameRecord, GameStatus, Spectators, Visibility};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct PlayerView {
    pub seat: Seat,
    pub username: String,
    /// This seat is expected to act now.
    pub awaiting: bool,
    /// R10.1: when the awaited seat's turn time runs out (the server then moves for it).
    pub deadline: Option<DateTime<Utc>>,
    /// The level of the computer that plays this seat; null for a person.
    pub computer: Option<Level>,
    /// R10.5: the player is on vacation until this time, while it is ahead; the seat's
    /// deadline already counts it. The end of the player's last vacation otherwise; absent
    /// when none touched this game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub away_until: Option<DateTime<Utc>>,
}

/// One game as the caller may see it (R8).
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct GameView {
    pub id: Uuid,
    pub status: GameStatus,
    /// Grows by one with every change; send it back with an action (or as `If-Match`).
    pub version: i64,
    pub rules_version: u32,
    pub options: Options,
    pub visibility: Visibility,
    pub spectators: Spectators,
    /// A rated game: its end moves its players' ratings; false: casual.
    pub rated: bool,
    /// Usernames of the accounts invited to the table; shown to its players only.
    pub invited: Vec<String>,
    pub players: Vec<PlayerView>,
    /// The caller's seat, if the caller plays in this game.
    pub my_seat: Option<Seat>,
    /// Shown to seated players only: they pass it on to the people they invite.
    pub invite_code: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// The table as the caller sees it, with the caller's legal actions.
    pub table: View,
    /// The rematch of this finished game, once a player asked for one
    /// (`POST /v1/games/{id}/rematch`).
    pub rematch: Option<Uuid>,
}

/// A game in a list: no cards, so lists can never show hidden ones.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct GameSummary {
    pub id: Uuid,
    pub status: GameStatus,
    pub version: i64,
    pub options: Options,
    pub visibility: Visibility,
    pub spectators: Spectators,
    /// A rated game: its end moves its players' ratings; false: casual.
    pub rated: bool,
    pub players: Vec<PlayerView>,
    /// Seats still free (open games).
    pub free_seats: u8,
    pub my_seat: Option<Seat>,
    /// The caller's seat is expected to act now.
    pub my_turn: bool,
    /// When the caller's turn time runs out (R10.1), if the caller is awaited.
    pub my_deadline: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

fn players(game: &GameRecord) -> Vec<PlayerView> {
    game.seats
        .iter()
        .map(|seat| PlayerView {
            seat: seat.seat,
            username: seat.username.clone(),
            awaiting: seat.awaiting,
            deadline: seat.deadline,
            computer: super::computer::level_of(seat.account_id),
            away_until: seat.away_until,
        })
        .collect()
}

impl GameView {
    pub fn of(game: &GameRecord, caller: Uuid) -> GameView {
        let my_seat = seat_of(game, caller);
        GameView {
            id: game.id,
            status: game.status,
            version: game.version,
            rules_version: game.rules_version,
            options: game.options.clone(),
            visibility: game.access.visibility,
            spectators: game.access.spectators,
            rated: game.access.rated,
            invited: match my_seat {
                Some(_) => game
                    .access
                    .invited
                    .iter()
                    .map(|i| i.username.clone())
                    .collect(),
                None => Vec::new(),
            },
            players: players(game),
            my_seat,
            invite_code: my_seat.map(|_| game.invite_code.clone()),
            created_at: game.created_at,
            updated_at: game.updated_at,
            table: game.state.view(viewer_of(game, caller)),
            rematch: game.rematch_id,
        }
    }
}

impl GameSummary {
    pub fn of(game: &GameRecord, caller: Uuid) -> GameSummary {
        let my_seat = seat_of(game, caller);
        let taken = u8::try_from(game.seats.len()).unwrap_or(u8::MAX);
        GameSummary {
            id: game.id,
            status: game.status,
            version: game.version,
            options: game.options.clone(),
            visibility: game.access.visibility,
            spectators: game.access.spectators,
            rated: game.access.rated,
            players: players(game),
            free_seats: game.options.players.saturating_sub(taken),
            my_seat,
            my_turn: game
                .seats
                .iter()
                .any(|seat| seat.account_id == caller && seat.awaiting),
            my_deadline: game
                .seats
                .iter()
                .find(|seat| seat.account_id == caller)
                .and_then(|seat| seat.deadline),
            created_at: game.created_at,
            updated_at: game.updated_at,
        }
    }
}
