//! The records the store reads and writes.

use chrono::{DateTime, Utc};
use racko_rules::{Game, Options};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

pub use super::change::{Changed, GameChange, UpdateError};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Postgres,
    Sqlite,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Player,
    Admin,
}

#[derive(Clone, Debug)]
pub struct NewAccount {
    pub username: String,
    /// None for a guest.
    pub password_hash: Option<String>,
    pub role: Role,
    pub guest: bool,
}

// Debug is by hand so that a password hash never reaches a log line.
#[derive(Clone)]
pub struct Account {
    pub id: Uuid,
    pub username: String,
    pub password_hash: Option<String>,
    pub role: Role,
    pub guest: bool,
    pub created_at: DateTime<Utc>,
    /// Tokens issued in an earlier generation are refused ("sign out everywhere").
    pub token_generation: i64,
}

impl std::fmt::Debug for Account {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Account")
            .field("id", &self.id)
            .field("username", &self.username)
            .field("role", &self.role)
            .field("guest", &self.guest)
            .finish()
    }
}

/// A game's status as clients see it. `cancelled`: the creator left before it started.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = PublicStatus)]
pub enum GameStatus {
    /// Waiting for players.
    Open,
    /// Being played.
    Active,
    Finished,
    /// The creator left before the game started.
    Cancelled,
}

/// Who may find and join a game: `public` (listed in the lobby, anyone joins), `unlisted`
/// (not listed; joined with the invite code) or `private` (invited accounts only).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Visibility {
    /// Listed in the lobby; anyone may join, by id or invite code.
    Public,
    /// Not listed; joined with the invite code (or a link that holds it), or by invited
    /// accounts.
    Unlisted,
    /// Not listed; only invited accounts may join.
    Private,
}

/// Who besides the players and invited accounts may watch a game being played: `nobody`, the
/// `friends` of any seated player, or `anyone` who has its id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Spectators {
    /// Only the players (and invited accounts).
    Nobody,
    /// Accounts that are friends of a seated player.
    Friends,
    /// Any signed-in account that has the game's id.
    Anyone,
}

/// An account invited to a table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Invitee {
    pub account_id: Uuid,
    pub username: String,
}

/// Who may see, join and watch a game; fixed at creation but for `invited`, which grows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Access {
    pub visibility: Visibility,
    pub spectators: Spectators,
    pub invited: Vec<Invitee>,
    /// A rated game: its end moves its players' ratings. Only registered people sit in one.
    pub rated: bool,
}

/// What the columns hold for a game stored before these settings existed: public, watched
/// by anyone, nobody invited, casual. (A new game's defaults are the service's to choose.)
impl Default for Access {
    fn default() -> Self {
        Access {
            visibility: Visibility::Public,
            spectators: Spectators::Anyone,
            invited: Vec::new(),
            rated: false,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatRecord {
    pub seat: u8,
    pub account_id: Uuid,
    pub username: String,
    /// True when this seat is expected to act now (the "my turn" inbox).
    pub awaiting: bool,
    /// R10.1: when an awaited seat's turn time runs out (None without a turn time, or when
    /// the server plays the seat).
    pub deadline: Option<DateTime<Utc>>,
    /// The "your deadline is near" reminder for this deadline went out.
    pub reminded: bool,
    /// R10.5: the deadline already counts the player's vacation until this time; while it is
    /// ahead, a new deadline runs from it and no reminder goes out.
    pub away_until: Option<DateTime<Utc>>,
}

#[derive(Clone, Debug)]
pub struct NewGame {
    pub id: Uuid,
    pub created_by: Uuid,
    pub invite_code: String,
    pub options: Options,
    pub rules_version: u32,
    /// The full rules state (hidden cards and seeds included; never sent to clients as is).
    pub state: Game,
    pub status: GameStatus,
    pub seats: Vec<SeatRecord>,
    /// Created in test mode (stacked decks allowed).
    pub test_mode: bool,
    /// Stacked decks for the coming rounds in test mode, as given at creation.
    pub stacked: Vec<racko_rules::StackedDeck>,
    /// From [`now`]; also the time of the first events.
    pub created_at: DateTime<Utc>,
    /// When the server must act for a seat (see `GameRecord::due_at`).
    pub due_at: Option<DateTime<Utc>>,
    /// The finished game this one is the rematch of: the insert links that game
    /// to this one in its transaction, only if no rematch was linked before.
    pub rematch_of: Option<Uuid>,
    pub access: Access,
}

impl NewGame {
    /// The record as it reads once inserted with `events` first log entries.
    pub fn record(&self, events: usize) -> GameRecord {
        GameRecord {
            id: self.id,
            created_by: self.created_by,
            invite_code: self.invite_code.clone(),
            options: self.options.clone(),
            rules_version: self.rules_version,
            state: self.state.clone(),
            status: self.status,
            seats: self.seats.clone(),
            test_mode: self.test_mode,
            stacked: self.stacked.clone(),
            version: 1,
            last_seq: events as i64,
            created_at: self.created_at,
            updated_at: self.created_at,
            due_at: self.due_at,
            rematch_id: None,
            access: self.access.clone(),
        }
    }
}

/// The system's time to the microsecond both databases keep, so that an answer built before
/// a write shows the times a later read gives. Game times come from [`Store::now`], which a
/// test-mode server may move forward.
pub fn now() -> DateTime<Utc> {
    let now = Utc::now();
    DateTime::from_timestamp_micros(now.timestamp_micros()).unwrap_or(now)
}

#[derive(Clone, Debug)]
pub struct GameRecord {
    pub id: Uuid,
    pub created_by: Uuid,
    pub invite_code: String,
    pub options: Options,
    pub rules_version: u32,
    pub state: Game,
    pub status: GameStatus,
    pub seats: Vec<SeatRecord>,
    pub test_mode: bool,
    pub stacked: Vec<racko_rules::StackedDeck>,
    /// Starts at 1 and grows by one with each change.
    pub version: i64,
    /// The seq of the last event (0 when none).
    pub last_seq: i64,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// When the sweeper looks at the game next: no later than the earliest moment the server
    /// must act for a seat (a computer player's move, a resigned seat's, a deadline, a
    /// reminder), perhaps sooner; None when it has nothing to do.
    pub due_at: Option<DateTime<Utc>>,
    /// The rematch of this finished game, once someone asked for it.
    pub rematch_id: Option<Uuid>,
    pub access: Access,
}

pub use super::ratings::{
    GameEnd, Rater, RatingChange, RatingRecord, ResultTotals, SeatResult, Skill,
};

/// One entry of a game's log as written.
#[derive(Clone, Debug)]
pub struct NewEvent {
    /// The round it belongs to (0 before the first deal).
    pub round: u32,
    /// The event's kind (its serde tag), for filtering.
    pub kind: String,
    /// The account that caused it, if a player did.
    pub actor: Option<Uuid>,
    /// The full event as JSON (the service's log event: a rules event or a lobby fact).
    pub payload: serde_json::Value,
}

#[derive(Clone, Debug)]
pub struct StoredEvent {
    pub game_id: Uuid,
    pub seq: i64,
    pub round: u32,
    pub kind: String,
    pub actor: Option<Uuid>,
    pub payload: serde_json::Value,
    pub created_at: DateTime<Utc>,
}

/// A finished request's answer, kept for retries with the same `Idempotency-Key`.
#[derive(Clone, Debug)]
pub struct IdempotencyRecord {
    pub account_id: Uuid,
    pub key: String,
    /// SHA-256 (hex) of what identifies the request (method, path, body).
    pub request_hash: String,
    pub status: u16,
    /// What `stored_as` says it is.
    pub body: serde_json::Value,
    pub created_at: DateTime<Utc>,
    pub stored_as: StoredAs,
}

/// What an idempotency record's body holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StoredAs {
    /// The answer as it was sent.
    Answer,
    /// What a game's change set that its log cannot give back; a retry rebuilds the answer
    /// (`service::idempotency`).
    Change,
}

#[derive(Clone, Debug, Default)]
pub struct GameQuery {
    /// Only games where this account holds a seat.
    pub player: Option<Uuid>,
    /// Only games in this status.
    pub status: Option<GameStatus>,
    /// With `player`: only games where that player's seat is awaited.
    pub awaiting_player: bool,
    /// Only games that invite this account and where it holds no seat.
    pub invited: Option<Uuid>,
    /// Only games with this visibility.
    pub visibility: Option<Visibility>,
    /// Only games with this choice of spectators.
    pub spectators: Option<Spectators>,
    /// 1..=100
    pub limit: i64,
    /// From a previous page's `next_cursor`.
    pub cursor: Option<String>,
}

#[derive(Clone, Debug)]
pub struct GameRecordPage {
    pub games: Vec<GameRecord>,
    /// Opaque; None when this was the last page.
    pub next_cursor: Option<String>,
}

/// R10.5: one vacation of a person, as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VacationRecord {
    pub id: Uuid,
    pub account_id: Uuid,
    pub starts_at: DateTime<Utc>,
    /// The planned end.
    pub ends_at: DateTime<Utc>,
    /// Set when the person came back before `ends_at`.
    pub ended_at: Option<DateTime<Utc>>,
}

impl VacationRecord {
    /// When the person is (or was) back: the early return, else the planned end.
    pub fn end(&self) -> DateTime<Utc> {
        self.ended_at.unwrap_or(self.ends_at)
    }
}
