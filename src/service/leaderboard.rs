//! The leaderboard of a rating pool and an account's public stats (games, wins, points per
//! round, Rackos called, ratings and their history).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use super::ratings::{pool_key, shown_deviation, PROVISIONAL_GAMES};
use super::Service;
use crate::error::{Code, ServiceError};
use crate::store::{RatingChange, RatingRecord};

/// Leaderboard bounds: a page of 1 to 100 (50 unless asked), from an offset up to 10,000, and
/// a minimum of rated games from the provisional bound up to 10,000.
pub const MAX_PAGE: i64 = 100;
pub const DEFAULT_PAGE: i64 = 50;
pub const MAX_OFFSET: i64 = 10_000;
pub const MAX_MIN_GAMES: i32 = 10_000;
/// Rating changes shown in the stats, newest first.
pub const HISTORY: i64 = 50;

/// A variant family: free-for-all, or Partner's two teams (R7.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Family {
    #[default]
    Standard,
    Partner,
}

/// What a leaderboard asks for (each bound checked here, `invalid_leaderboard` or
/// `invalid_limit`).
#[derive(Clone, Copy, Debug, Default)]
pub struct BoardQuery {
    pub family: Option<Family>,
    pub players: Option<u8>,
    pub min_games: Option<i32>,
    pub offset: Option<i64>,
    pub limit: Option<i64>,
}

/// One place on the leaderboard.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct BoardEntry {
    /// 1 for the highest rating; from the page's `offset`.
    #[schema(minimum = 1)]
    pub position: i64,
    pub username: String,
    /// The rating shown (1500 for a newcomer).
    #[schema(minimum = 0, maximum = 4000)]
    pub rating: i32,
    /// How sure the rating is, on its scale (smaller: surer).
    #[schema(minimum = 0, maximum = 4000)]
    pub deviation: i32,
    /// Rated games in the pool.
    #[schema(minimum = 0)]
    pub games: i32,
}

/// A page of the leaderboard of one pool; provisional ratings are left out.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct Leaderboard {
    pub family: Family,
    #[schema(minimum = 2, maximum = 4)]
    pub players: u8,
    #[schema(minimum = 10, maximum = 10000)]
    pub min_games: i32,
    #[schema(minimum = 0, maximum = 10000)]
    pub offset: i64,
    #[schema(max_items = 100)]
    pub entries: Vec<BoardEntry>,
    /// The `offset` of the next page; null on the last.
    #[schema(minimum = 0)]
    pub next_offset: Option<i64>,
}

fn bad(detail: String) -> ServiceError {
    ServiceError::new(Code::InvalidLeaderboard, detail)
}

/// The pool a query names: standard 2 to 4 (2 unless given), partner 4.
fn pool_of(query: &BoardQuery) -> Result<(Family, u8), ServiceError> {
    let family = query.family.unwrap_or_default();
    let players = match (family, query.players) {
        (Family::Standard, None) => 2,
        (Family::Partner, None) => 4,
        (Family::Standard, Some(n @ 2..=4)) | (Family::Partner, Some(n @ 4)) => n,
        (Family::Standard, Some(n)) => return Err(bad(format!("players must be 2 to 4, not {n}"))),
        (Family::Partner, Some(n)) => {
            return Err(bad(format!("partner is played by 4 players, not {n}")))
        }
    };
    Ok((family, players))
}

/// A page of the leaderboard (see [`BoardQuery`] for the bounds).
pub fn leaderboard(store: &Service, query: &BoardQuery) -> Result<Leaderboard, ServiceError> {
    let (family, players) = pool_of(query)?;
    let min_games = query.min_games.unwrap_or(PROVISIONAL_GAMES);
    if !(PROVISIONAL_GAMES..=MAX_MIN_GAMES).contains(&min_games) {
        return Err(bad(format!(
            "min_games must be {PROVISIONAL_GAMES} to {MAX_MIN_GAMES} (fewer is provisional), not {min_games}"
        )));
    }
    let offset = query.offset.unwrap_or(0);
    if !(0..=MAX_OFFSET).contains(&offset) {
        return Err(bad(format!(
            "offset must be 0 to {MAX_OFFSET}, not {offset}"
        )));
    }
    let limit = query.limit.unwrap_or(DEFAULT_PAGE);
    if !(1..=MAX_PAGE).contains(&limit) {
        return Err(ServiceError::new(
            Code::InvalidLimit,
            format!("limit must be 1 to {MAX_PAGE}, not {limit}"),
        ));
    }
    let pool = pool_key(family == Family::Partner, players);
    // One more than asked says whether a next page exists.
    let mut rows = store.leaderboard(&pool, min_games, offset, limit + 1)?;
    let more = rows.len() as i64 > limit;
    rows.truncate(usize::try_from(limit).unwrap_or(0));
    let entries = (offset + 1..)
        .zip(rows)
        .map(|(position, r)| BoardEntry {
            position,
            deviation: shown_deviation(r.skill),
            username: r.username,
            rating: r.rating,
            games: r.games,
        })
        .collect::<Vec<_>>();
    let next_offset = (more && offset + limit <= MAX_OFFSET).then_some(offset + limit);
    Ok(Leaderboard {
        family,
        players,
        min_games,
        offset,
        entries,
        next_offset,
    })
}

/// An account's rating in one pool.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct PoolRating {
    pub family: Family,
    #[schema(minimum = 2, maximum = 4)]
    pub players: u8,
    #[schema(minimum = 0, maximum = 4000)]
    pub rating: i32,
    #[schema(minimum = 0, maximum = 4000)]
    pub deviation: i32,
    /// Weng-Lin's mu and sigma, for those who recompute ratings from exported games.
    pub mu: f64,
    #[schema(minimum = 0)]
    pub sigma: f64,
    #[schema(minimum = 0)]
    pub games: i32,
    /// Fewer than 10 rated games in the pool: the rating is still finding its level, and
    /// the leaderboard leaves it out.
    pub provisional: bool,
}

/// An account's finished games in one pool (rated and casual).
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct PoolResults {
    pub family: Family,
    #[schema(minimum = 2, maximum = 4)]
    pub players: u8,
    #[schema(minimum = 0)]
    pub games: i64,
    #[schema(minimum = 0)]
    pub wins: i64,
    /// The seat's points over the rounds it played, averaged; null before any round.
    #[schema(minimum = 0)]
    pub points_per_round: Option<f64>,
}

/// One change of a rating, with the game that caused it.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct RatingEvent {
    pub game_id: Uuid,
    pub family: Family,
    #[schema(minimum = 2, maximum = 4)]
    pub players: u8,
    /// The account's place in the game's final standings (1 the best; ties share).
    #[schema(minimum = 1, maximum = 4)]
    pub rank: i32,
    #[schema(minimum = 0, maximum = 4000)]
    pub rating_before: i32,
    #[schema(minimum = 0, maximum = 4000)]
    pub rating_after: i32,
    pub at: DateTime<Utc>,
}

/// An account's public stats.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct AccountStats {
    pub username: String,
    /// Finished games, all pools.
    #[schema(minimum = 0)]
    pub games: i64,
    #[schema(minimum = 0)]
    pub wins: i64,
    /// Points per round played over all finished games; null before any round.
    #[schema(minimum = 0)]
    pub points_per_round: Option<f64>,
    /// Rackos the account called (R4.2), in every game it played.
    #[schema(minimum = 0)]
    pub rackos_called: i64,
    #[schema(max_items = 4)]
    pub results: Vec<PoolResults>,
    #[schema(max_items = 4)]
    pub ratings: Vec<PoolRating>,
    /// The last 50 rating changes, newest first.
    #[schema(max_items = 50)]
    pub rating_history: Vec<RatingEvent>,
}

/// The family and players of a stored pool key.
fn family_of(pool: &str) -> (Family, u8) {
    match pool {
        "partner_4" => (Family::Partner, 4),
        "standard_3" => (Family::Standard, 3),
        "standard_4" => (Family::Standard, 4),
        _ => (Family::Standard, 2),
    }
}

fn per_round(points: i64, rounds: i64) -> Option<f64> {
    (rounds > 0).then(|| points as f64 / rounds as f64)
}

/// The stats of the account named `username` (`player_not_found` when none has it).
pub fn stats(store: &Service, username: &str) -> Result<AccountStats, ServiceError> {
    let account = store
        .account_by_username(username)?
        .ok_or_else(|| ServiceError::new(Code::PlayerNotFound, "no account has this username"))?;
    let (pools, rackos_called) = store.result_totals(account.id)?;
    let ratings = store.ratings_of(account.id)?;
    let history = store.rating_history(account.id, HISTORY)?;
    let (mut games, mut wins, mut points, mut rounds) = (0, 0, 0, 0);
    let results = pools
        .into_iter()
        .map(|(pool, t)| {
            (games, wins, points, rounds) = (
                games + t.games,
                wins + t.wins,
                points + t.points,
                rounds + t.rounds,
            );
            let (family, players) = family_of(&pool);
            PoolResults {
                family,
                players,
                games: t.games,
                wins: t.wins,
                points_per_round: per_round(t.points, t.rounds),
            }
        })
        .collect();
    Ok(AccountStats {
        username: account.username,
        games,
        wins,
        points_per_round: per_round(points, rounds),
        rackos_called,
        results,
        ratings: ratings.iter().map(pool_rating).collect(),
        rating_history: history.into_iter().map(rating_event).collect(),
    })
}

fn pool_rating(r: &RatingRecord) -> PoolRating {
    let (family, players) = family_of(&r.pool);
    PoolRating {
        family,
        players,
        rating: r.rating,
        deviation: shown_deviation(r.skill),
        mu: r.skill.mu,
        sigma: r.skill.sigma,
        games: r.games,
        provisional: r.games < PROVISIONAL_GAMES,
    }
}

fn rating_event(c: RatingChange) -> RatingEvent {
    let (family, players) = family_of(&c.pool);
    RatingEvent {
        game_id: c.game_id,
        family,
        players,
        rank: c.rank,
        rating_before: c.rating_before,
        rating_after: c.rating_after,
        at: c.at,
    }
}
