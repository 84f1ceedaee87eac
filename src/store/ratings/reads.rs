//! The reads of ratings, results and rating logs: the leaderboard and an account's stats.

use chrono::NaiveDateTime;
use diesel::prelude::*;
use uuid::Uuid;

use super::super::rows::{utc, uuid};
use super::super::schema::{accounts, game_events, game_results, rating_log, ratings};
use super::super::{Store, StoreError};
use super::{RatingChange, RatingRecord, ResultTotals, Skill};

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
