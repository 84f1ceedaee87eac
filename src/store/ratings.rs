//! Results and ratings: what a game's end writes in the transaction that ends it (each seat's
//! result; for a rated game every player's new rating and a log entry per change), and the
//! reads of the leaderboard and an account's stats. How a rating moves is the service's
//! (`Rater`): the store reads the ratings under lock, hands them over and writes the answer.

use chrono::{DateTime, NaiveDateTime};
use diesel::prelude::*;
use uuid::Uuid;

use super::conn::AnyConnection;
use super::schema::{accounts, game_results, rating_log, ratings};
use super::StoreError;

mod reads;

/// A rating's two numbers (Weng-Lin's mu and sigma).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Skill {
    pub mu: f64,
    pub sigma: f64,
}

/// One seat's result of a finished game.
#[derive(Clone, Debug, PartialEq)]
pub struct SeatResult {
    pub account_id: Uuid,
    /// The side the seat played for: its seat, or its team with Partner.
    pub side: u8,
    /// 1 for the best; sides that tie share a rank.
    pub rank: u32,
    pub won: bool,
    /// The seat's total.
    pub points: u32,
    /// Rounds scored.
    pub rounds: u32,
}

/// A side's skills (one per seat, in seat order) and its rank.
pub type Ranked = (Vec<Skill>, u32);

/// How a rated game moves ratings: the service's method, the store only keeps the numbers.
#[derive(Clone, Copy, Debug)]
pub struct Rater {
    /// Each side's new skills (in the order given) from its skills and its rank.
    pub rate: fn(&[Ranked]) -> Vec<Vec<Skill>>,
    /// The rating shown for a skill.
    pub shown: fn(Skill) -> i32,
    /// The skill of an account with no rated game in the pool yet.
    pub fresh: Skill,
}

/// What a game's end writes besides the game: its results, and its ratings when rated.
#[derive(Clone, Debug)]
pub struct GameEnd {
    /// The rating pool (variant family and player count).
    pub pool: String,
    /// One per seat, in seat order.
    pub results: Vec<SeatResult>,
    pub rater: Option<Rater>,
}

/// An account's current rating in a pool.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingRecord {
    pub account_id: Uuid,
    pub username: String,
    pub pool: String,
    pub skill: Skill,
    pub rating: i32,
    pub games: i32,
}

/// One change of an account's rating.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingChange {
    pub game_id: Uuid,
    pub pool: String,
    pub rank: i32,
    pub before: Skill,
    pub after: Skill,
    pub rating_before: i32,
    pub rating_after: i32,
    pub at: DateTime<chrono::Utc>,
}

/// An account's results in one pool, summed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ResultTotals {
    pub games: i64,
    pub wins: i64,
    pub points: i64,
    pub rounds: i64,
}

#[derive(Insertable)]
#[diesel(table_name = game_results)]
struct ResultRow<'a> {
    account_id: String,
    game_id: String,
    pool: &'a str,
    rated: bool,
    rank: i32,
    won: bool,
    points: i64,
    rounds: i32,
    ended_at: NaiveDateTime,
}

#[derive(Insertable)]
#[diesel(table_name = rating_log)]
struct LogRow<'a> {
    account_id: String,
    game_id: String,
    pool: &'a str,
    rank: i32,
    mu_before: f64,
    sigma_before: f64,
    mu_after: f64,
    sigma_after: f64,
    rating_before: i32,
    rating_after: i32,
    at: NaiveDateTime,
}

fn int(n: u32, what: &str) -> Result<i32, StoreError> {
    i32::try_from(n).map_err(|e| StoreError::Internal(format!("{what}: {e}")))
}

/// Writes game `game`'s `end` inside the transaction that ends it.
pub(super) fn record_end(
    conn: &mut AnyConnection,
    game: Uuid,
    end: &GameEnd,
    at: NaiveDateTime,
) -> Result<(), StoreError> {
    for result in &end.results {
        diesel::insert_into(game_results::table)
            .values(&ResultRow {
                account_id: result.account_id.to_string(),
                game_id: game.to_string(),
                pool: &end.pool,
                rated: end.rater.is_some(),
                rank: int(result.rank, "rank")?,
                won: result.won,
                points: i64::from(result.points),
                rounds: int(result.rounds, "rounds")?,
                ended_at: at,
            })
            .execute(conn)?;
    }
    match &end.rater {
        Some(rater) => rate(conn, game, end, rater, at),
        None => Ok(()),
    }
}

/// Moves the ratings of a rated game's players and logs each change.
fn rate(
    conn: &mut AnyConnection,
    game: Uuid,
    end: &GameEnd,
    rater: &Rater,
    at: NaiveDateTime,
) -> Result<(), StoreError> {
    let mut ids: Vec<String> = end
        .results
        .iter()
        .map(|r| r.account_id.to_string())
        .collect();
    ids.sort();
    ids.dedup();
    // Two games of one player ending at once would each read the rating the other replaces:
    // their ends queue on the players' account rows (in id order, so they cannot deadlock).
    // Not a key lock: nothing that only refers to an account waits. SQLite: the write lock.
    if let AnyConnection::Pg(pg) = conn {
        accounts::table
            .filter(accounts::id.eq_any(&ids))
            .order(accounts::id)
            .select(accounts::id)
            .for_no_key_update()
            .load::<String>(pg)?;
    }
    let stored: Vec<(String, f64, f64, i32)> = ratings::table
        .filter(ratings::pool.eq(&end.pool))
        .filter(ratings::account_id.eq_any(&ids))
        .select((
            ratings::account_id,
            ratings::mu,
            ratings::sigma,
            ratings::games,
        ))
        .load(conn)?;
    let before = |account: Uuid| {
        let id = account.to_string();
        stored
            .iter()
            .find(|(a, ..)| *a == id)
            .map(|(_, mu, sigma, games)| {
                (
                    Skill {
                        mu: *mu,
                        sigma: *sigma,
                    },
                    Some(*games),
                )
            })
            .unwrap_or((rater.fresh, None))
    };
    let mut sides: Vec<(u8, u32, Vec<&SeatResult>)> = Vec::new();
    for result in &end.results {
        match sides.iter_mut().find(|(side, ..)| *side == result.side) {
            Some((_, _, seats)) => seats.push(result),
            None => sides.push((result.side, result.rank, vec![result])),
        }
    }
    let teams: Vec<Ranked> = sides
        .iter()
        .map(|(_, rank, seats)| {
            (
                seats.iter().map(|s| before(s.account_id).0).collect(),
                *rank,
            )
        })
        .collect();
    let after = (rater.rate)(&teams);
    for ((_, rank, seats), new) in sides.iter().zip(&after) {
        for (seat, skill) in seats.iter().zip(new) {
            let (old, games) = before(seat.account_id);
            let id = seat.account_id.to_string();
            let shown = (rater.shown)(*skill);
            match games {
                Some(games) => {
                    diesel::update(ratings::table.find((&id, &end.pool)))
                        .set((
                            ratings::mu.eq(skill.mu),
                            ratings::sigma.eq(skill.sigma),
                            ratings::rating.eq(shown),
                            ratings::games.eq(games + 1),
                            ratings::updated_at.eq(at),
                        ))
                        .execute(conn)?;
                }
                None => {
                    diesel::insert_into(ratings::table)
                        .values((
                            ratings::account_id.eq(&id),
                            ratings::pool.eq(&end.pool),
                            ratings::mu.eq(skill.mu),
                            ratings::sigma.eq(skill.sigma),
                            ratings::rating.eq(shown),
                            ratings::games.eq(1),
                            ratings::updated_at.eq(at),
                        ))
                        .execute(conn)?;
                }
            }
            diesel::insert_into(rating_log::table)
                .values(&LogRow {
                    account_id: id,
                    game_id: game.to_string(),
                    pool: &end.pool,
                    rank: int(*rank, "rank")?,
                    mu_before: old.mu,
                    sigma_before: old.sigma,
                    mu_after: skill.mu,
                    sigma_after: skill.sigma,
                    rating_before: (rater.shown)(old),
                    rating_after: shown,
                    at,
                })
                .execute(conn)?;
        }
    }
    Ok(())
}
