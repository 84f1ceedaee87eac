//! Finding an opponent: a seek asks for a game (its options, the rated flag, the ratings
//! accepted in others) and waits in a pool until enough compatible seeks are there; then the
//! oldest compatible ones are seated in a new game ([`seek_pairing`](super::seek_pairing)).
//!
//! A seek is the caller's own: only its seeker reads or cancels it, and no answer names
//! another seeker (the game, once matched, names its players as any game does). Each account
//! has at most [`MAX_OPEN_SEEKS`] open; a seek expires after `expires_in` (default a day) and
//! never pairs after that. Guests seek casual games only: a rated game needs an account that
//! keeps its rating.

use chrono::{DateTime, Duration, Utc};
use racko_rules::{Game, Options};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use super::{seek_pairing, Caller, Service};
use crate::error::{Code, ServiceError};
use crate::store::{Conflict, NewSeek, SeekRecord, SeekStatus, Store, StoreError};

/// Open seeks per account.
pub const MAX_OPEN_SEEKS: i64 = 5;
/// Seeks listed by `GET /v1/seeks`, newest first.
pub const LISTED_SEEKS: i64 = 50;
/// The lowest and highest rating a range may name.
pub const MIN_RATING: i32 = 0;
pub const MAX_RATING: i32 = 4000;
/// `expires_in` bounds and default, in seconds: a minute, a week, a day.
pub const MIN_EXPIRES_IN: u32 = 60;
pub const MAX_EXPIRES_IN: u32 = 604_800;
pub const DEFAULT_EXPIRES_IN: u32 = 86_400;
/// A newcomer's rating (`ratings::shown` of a fresh rating).
pub const INITIAL_RATING: i32 = 1500;

/// The ratings a seeker accepts in the others, each end optional (none: anyone).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RatingRange {
    /// 0 to 4000, at most `max`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 0, maximum = 4000, nullable = false)]
    pub min: Option<i32>,
    /// 0 to 4000, at least `min`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 0, maximum = 4000, nullable = false)]
    pub max: Option<i32>,
}

/// A seek: the game wanted and whom the seeker accepts.
#[derive(Clone, Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({
    "options": {"players": 2, "target": 500, "turn_time": 86_400},
    "rated": false,
    "rating_range": {"min": 1300, "max": 1700},
    "expires_in": 3600
}))]
pub struct SeekRequest {
    /// The game's options, as for `POST /v1/games`; only seeks with equal options (the
    /// player count and turn time among them) and an equal `rated` pair.
    #[serde(default)]
    pub options: Options,
    /// A rated game (default false: casual). Guests seek casual games only.
    #[serde(default)]
    pub rated: bool,
    /// The ratings accepted in the other players; each other seeker's range must accept the
    /// caller's too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub rating_range: Option<RatingRange>,
    /// Seconds the seek waits before it expires: 60 to 604,800 (a week); default 86,400.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 60, maximum = 604_800, nullable = false)]
    pub expires_in: Option<u32>,
}

/// Where a seek stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SeekState {
    /// Waiting for partners.
    Open,
    /// Seated in `game_id`.
    Matched,
    Cancelled,
    /// Past `expires_at` unmatched.
    Expired,
}

/// One of the caller's seeks.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct SeekView {
    pub id: Uuid,
    pub status: SeekState,
    /// The game it was matched into (`matched` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub game_id: Option<Uuid>,
    pub options: Options,
    pub rated: bool,
    /// The caller's rating when it asked: what the others' ranges were compared with.
    pub rating: i32,
    pub rating_range: RatingRange,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    /// When it was matched or cancelled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<DateTime<Utc>>,
}

impl SeekView {
    fn of(seek: SeekRecord, now: DateTime<Utc>) -> SeekView {
        let status = match seek.status {
            SeekStatus::Open if seek.expires_at <= now => SeekState::Expired,
            SeekStatus::Open => SeekState::Open,
            SeekStatus::Matched => SeekState::Matched,
            SeekStatus::Cancelled => SeekState::Cancelled,
        };
        SeekView {
            id: seek.id,
            status,
            game_id: seek.game_id,
            options: seek.options,
            rated: seek.rated,
            rating: seek.rating,
            rating_range: RatingRange {
                min: seek.range.0,
                max: seek.range.1,
            },
            created_at: seek.created_at,
            expires_at: seek.expires_at,
            ended_at: seek.ended_at,
        }
    }
}

/// The caller's seeks, newest first.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct SeekList {
    /// At most 50: the open ones and those that ended within the last day.
    #[schema(max_items = 50)]
    pub seeks: Vec<SeekView>,
}

/// The seeker's rating, snapshotted into each seek: its rating in the pool of the seek's
/// options (`ratings::pool_of`), casual seeks too, so that a range means the same in both;
/// 1500 (a newcomer's) with no rated game in that pool.
pub fn rating_of(store: &Store, account: Uuid, options: &Options) -> Result<i32, ServiceError> {
    let pool = super::ratings::pool_of(options);
    let ratings = store.ratings_of(account)?;
    Ok(ratings
        .iter()
        .find(|r| r.pool == pool)
        .map_or(INITIAL_RATING, |r| r.rating))
}

/// The key seeks must share to pair: the options and the rated flag, as canonical JSON.
pub fn pool_key(options: &Options, rated: bool) -> Result<String, ServiceError> {
    let options = serde_json::to_string(options).map_err(ServiceError::internal)?;
    Ok(format!("v1 rated={rated} {options}"))
}

fn check(request: &SeekRequest, guest: bool) -> Result<(), ServiceError> {
    // A seek's game is exactly one `POST /v1/games` could create.
    Game::new(request.options.clone())?;
    if request.rated && guest {
        return Err(ServiceError::new(
            Code::RatedNeedsAccount,
            "guests seek casual games only (rated: false)",
        ));
    }
    let range = request.rating_range.unwrap_or_default();
    let within = |end: Option<i32>| end.is_none_or(|r| (MIN_RATING..=MAX_RATING).contains(&r));
    let ordered = match (range.min, range.max) {
        (Some(min), Some(max)) => min <= max,
        _ => true,
    };
    if !within(range.min) || !within(range.max) || !ordered {
        return Err(ServiceError::new(
            Code::InvalidRatingRange,
            format!("each end of rating_range is {MIN_RATING}..={MAX_RATING}, min at most max"),
        ));
    }
    let expires_in = request.expires_in.unwrap_or(DEFAULT_EXPIRES_IN);
    if !(MIN_EXPIRES_IN..=MAX_EXPIRES_IN).contains(&expires_in) {
        return Err(ServiceError::new(
            Code::InvalidSeekExpiry,
            format!("expires_in is {MIN_EXPIRES_IN}..={MAX_EXPIRES_IN} seconds"),
        ));
    }
    Ok(())
}

/// Stores the caller's seek and pairs its pool at once: the answer says `matched` (with the
/// game) when partners were waiting, else `open`.
pub fn create(
    store: &Service,
    caller: &Caller,
    guest: bool,
    request: &SeekRequest,
) -> Result<SeekView, ServiceError> {
    check(request, guest)?;
    let range = request.rating_range.unwrap_or_default();
    let created_at = store.now();
    let expires_in = request.expires_in.unwrap_or(DEFAULT_EXPIRES_IN);
    let seek = NewSeek {
        id: Uuid::new_v4(),
        account_id: caller.id,
        pool: pool_key(&request.options, request.rated)?,
        options: request.options.clone(),
        rated: request.rated,
        rating: rating_of(store, caller.id, &request.options)?,
        range: (range.min, range.max),
        created_at,
        expires_at: created_at + Duration::seconds(i64::from(expires_in)),
    };
    let stored = match store.insert_seek(&seek, MAX_OPEN_SEEKS) {
        Err(StoreError::Conflict(Conflict::TooManySeeks)) => {
            return Err(ServiceError::new(
                Code::TooManySeeks,
                format!("at most {MAX_OPEN_SEEKS} open seeks per account"),
            ))
        }
        other => other?,
    };
    // The seek is stored whatever the pairing does: a pass that fails here is made up by the
    // next one in its pool (another seek's, or the housekeeping sweep).
    if let Err(e) = seek_pairing::pair_pool(store, &seek.pool) {
        tracing::warn!(error = %e, "pairing a new seek's pool failed");
    }
    let now = store.now();
    match store.seek(caller.id, stored.id)? {
        Some(seek) => Ok(SeekView::of(seek, now)),
        None => Ok(SeekView::of(stored, now)),
    }
}

fn not_found() -> ServiceError {
    ServiceError::new(Code::SeekNotFound, "you have no seek with this id")
}

/// The caller's seek `id`.
pub fn get(store: &Store, caller: &Caller, id: Uuid) -> Result<SeekView, ServiceError> {
    let seek = store.seek(caller.id, id)?.ok_or_else(not_found)?;
    Ok(SeekView::of(seek, store.now()))
}

/// The caller's seeks, newest first (at most [`LISTED_SEEKS`]).
pub fn list(store: &Store, caller: &Caller) -> Result<SeekList, ServiceError> {
    let now = store.now();
    let seeks = store
        .seeks_of(caller.id, LISTED_SEEKS)?
        .into_iter()
        .map(|s| SeekView::of(s, now))
        .collect();
    Ok(SeekList { seeks })
}

/// Cancels the caller's open seek `id`: `seek_closed` when it was matched, cancelled or has
/// expired (the seek as it is then is in the detail's place: fetch it).
pub fn cancel(store: &Store, caller: &Caller, id: Uuid) -> Result<SeekView, ServiceError> {
    let now = store.now();
    let (cancelled, seek) = store
        .cancel_seek(caller.id, id, now)?
        .ok_or_else(not_found)?;
    let view = SeekView::of(seek, now);
    if !cancelled {
        return Err(ServiceError::new(
            Code::SeekClosed,
            format!("the seek is {:?}, not open", view.status).to_lowercase(),
        ));
    }
    Ok(view)
}
