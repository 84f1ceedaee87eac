//! Results and ratings: what a game's end writes in the transaction that ends it (each seat's
//! result; for a rated game every player's new rating and a log entry per change), and the
//! reads of the leaderboard and an account's stats. How a rating moves is the service's
//! (`Rater`): the store reads the ratings under lock, hands them over and writes the answer.

use chrono::{DateTime, NaiveDateTime};
use diesel::prelude::*;
use uuid::Uuid;

use super::conn::AnyConnection;
use super::rows::{utc, uuid};
use super::schema::{accounts, game_events, game_results, rating_log, ratings};
use super::{Store, StoreError};

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

type RatingRow = (String, String, String, f64, f64, i32, i32);

fn rating_record(
    (id, username, pool, mu, sigma, rating, games): RatingRow,
) -> Result<RatingRecord, StoreError> {
    Ok(RatingRecord {
        account_id: uuid("account id", &id)?,
        username,
        pool,
        skill: Skill { mu, sigma },
        rating,
        games,
    })
}

/// Reads of ratings, results and rating logs.
impl Store {
    /// Pool `pool`'s ratings of accounts with at least `min_games` rated games, highest
    /// first (ties by account id), `limit` of them from `offset`; deleted accounts left out.
    pub fn leaderboard(
        &self,
        pool: &str,
        min_games: i32,
        offset: i64,
        limit: i64,
    ) -> Result<Vec<RatingRecord>, StoreError> {
        let rows: Vec<RatingRow> = self.read(|c| {
            Ok(ratings::table
                .inner_join(accounts::table)
                .filter(ratings::pool.eq(pool))
                .filter(ratings::games.ge(min_games))
                .filter(accounts::deleted_at.is_null())
                .order((ratings::rating.desc(), ratings::account_id.asc()))
                .offset(offset.max(0))
                .limit(limit.max(0))
                .select((
                    ratings::account_id,
                    accounts::username,
                    ratings::pool,
                    ratings::mu,
                    ratings::sigma,
                    ratings::rating,
                    ratings::games,
                ))
                .load(c)?)
        })?;
        rows.into_iter().map(rating_record).collect()
    }

    /// Account `account`'s ratings, one per pool it played rated games in.
    pub fn ratings_of(&self, account: Uuid) -> Result<Vec<RatingRecord>, StoreError> {
        let rows: Vec<RatingRow> = self.read(|c| {
            Ok(ratings::table
                .inner_join(accounts::table)
                .filter(ratings::account_id.eq(account.to_string()))
                .order(ratings::pool)
                .select((
                    ratings::account_id,
                    accounts::username,
                    ratings::pool,
                    ratings::mu,
                    ratings::sigma,
                    ratings::rating,
                    ratings::games,
                ))
                .load(c)?)
        })?;
        rows.into_iter().map(rating_record).collect()
    }

    /// Account `account`'s last `limit` rating changes, newest first.
    pub fn rating_history(
        &self,
        account: Uuid,
        limit: i64,
    ) -> Result<Vec<RatingChange>, StoreError> {
        type Row = (
            String,
            String,
            i32,
            f64,
            f64,
            f64,
            f64,
            i32,
            i32,
            NaiveDateTime,
        );
        let rows: Vec<Row> = self.read(|c| {
            Ok(rating_log::table
                .filter(rating_log::account_id.eq(account.to_string()))
                .order((rating_log::at.desc(), rating_log::game_id.desc()))
                .limit(limit.max(0))
                .select((
                    rating_log::game_id,
                    rating_log::pool,
                    rating_log::rank,
                    rating_log::mu_before,
                    rating_log::sigma_before,
                    rating_log::mu_after,
                    rating_log::sigma_after,
                    rating_log::rating_before,
                    rating_log::rating_after,
                    rating_log::at,
                ))
                .load(c)?)
        })?;
        rows.into_iter()
            .map(|(game, pool, rank, mb, sb, ma, sa, rb, ra, at)| {
                Ok(RatingChange {
                    game_id: uuid("game id", &game)?,
                    pool,
                    rank,
                    before: Skill { mu: mb, sigma: sb },
                    after: Skill { mu: ma, sigma: sa },
                    rating_before: rb,
                    rating_after: ra,
                    at: utc(at),
                })
            })
            .collect()
    }

    /// Account `account`'s finished games summed per pool, and the Rackos it called (R4.2).
    pub fn result_totals(
        &self,
        account: Uuid,
    ) -> Result<(Vec<(String, ResultTotals)>, i64), StoreError> {
        let id = account.to_string();
        let (rows, rackos) = self.read(|c| {
            let rows: Vec<(String, bool, i64, i32)> = game_results::table
                .filter(game_results::account_id.eq(&id))
                .select((
                    game_results::pool,
                    game_results::won,
                    game_results::points,
                    game_results::rounds,
                ))
                .load(c)?;
            let rackos: i64 = game_events::table
                .filter(game_events::actor.eq(&id))
                .filter(game_events::kind.eq("racko_called"))
                .count()
                .get_result(c)?;
            Ok((rows, rackos))
        })?;
        let mut pools: Vec<(String, ResultTotals)> = Vec::new();
        for (pool, won, points, rounds) in rows {
            let at = match pools.iter().position(|(p, _)| *p == pool) {
                Some(at) => at,
                None => {
                    pools.push((pool, ResultTotals::default()));
                    pools.len() - 1
                }
            };
            let totals = &mut pools[at].1;
            totals.games += 1;
            totals.wins += i64::from(won);
            totals.points += points;
            totals.rounds += i64::from(rounds);
        }
        pools.sort_by(|a, b| a.0.cmp(&b.0));
        Ok((pools, rackos))
    }
}
