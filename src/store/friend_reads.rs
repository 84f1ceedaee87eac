//! Reading who is whose friend, who asked whom, and who blocks whom.

use std::collections::HashSet;

use chrono::NaiveDateTime;
use diesel::prelude::*;
use uuid::Uuid;

use super::friends::{Circle, Related};
use super::rows::{utc, uuid};
use super::schema::{accounts, blocks, friendships};
use super::{Store, StoreError};

impl Store {
    /// The account's friends and requests, each list by username.
    pub fn circle(&self, me: Uuid) -> Result<Circle, StoreError> {
        let id = me.to_string();
        let rows: Vec<(String, String, String, NaiveDateTime, Option<NaiveDateTime>)> =
            self.read(|conn| {
                Ok(friendships::table
                    .filter(friendships::low_id.eq(&id).or(friendships::high_id.eq(&id)))
                    .select((
                        friendships::low_id,
                        friendships::high_id,
                        friendships::requested_by,
                        friendships::created_at,
                        friendships::accepted_at,
                    ))
                    .load(conn)?)
            })?;
        let others: Vec<String> = rows
            .iter()
            .map(|(low, high, ..)| {
                if *low == id {
                    high.clone()
                } else {
                    low.clone()
                }
            })
            .collect();
        let names = self.usernames(&others)?;
        let mut circle = Circle::default();
        for ((_, _, by, created, accepted), other) in rows.into_iter().zip(others) {
            let Some(username) = names
                .iter()
                .find(|(i, _)| *i == other)
                .map(|(_, n)| n.clone())
            else {
                continue;
            };
            let related = Related {
                account: uuid("friend id", &other)?,
                username,
                since: utc(accepted.unwrap_or(created)),
            };
            match accepted {
                Some(_) => circle.friends.push(related),
                None if by == id => circle.outgoing.push(related),
                None => circle.incoming.push(related),
            }
        }
        for list in [
            &mut circle.friends,
            &mut circle.incoming,
            &mut circle.outgoing,
        ] {
            list.sort_by(|a, b| a.username.cmp(&b.username));
        }
        Ok(circle)
    }

    /// The accounts `me` blocks, by username.
    pub fn blocked_by(&self, me: Uuid) -> Result<Vec<Related>, StoreError> {
        let id = me.to_string();
        let rows: Vec<(String, NaiveDateTime)> = self.read(|conn| {
            Ok(blocks::table
                .filter(blocks::blocker_id.eq(&id))
                .select((blocks::blocked_id, blocks::created_at))
                .load(conn)?)
        })?;
        let ids: Vec<String> = rows.iter().map(|(i, _)| i.clone()).collect();
        let names = self.usernames(&ids)?;
        let mut out = Vec::new();
        for (other, at) in rows {
            if let Some((_, username)) = names.iter().find(|(i, _)| *i == other) {
                out.push(Related {
                    account: uuid("blocked id", &other)?,
                    username: username.clone(),
                    since: utc(at),
                });
            }
        }
        out.sort_by(|a, b| a.username.cmp(&b.username));
        Ok(out)
    }

    /// Every account that `me` blocks or that blocks `me`.
    pub fn blocks_either_way(&self, me: Uuid) -> Result<HashSet<Uuid>, StoreError> {
        let id = me.to_string();
        let rows: Vec<(String, String)> = self.read(|conn| {
            Ok(blocks::table
                .filter(blocks::blocker_id.eq(&id).or(blocks::blocked_id.eq(&id)))
                .select((blocks::blocker_id, blocks::blocked_id))
                .load(conn)?)
        })?;
        rows.into_iter()
            .map(|(a, b)| uuid("blocked id", if a == id { &b } else { &a }))
            .collect()
    }

    /// Whether `me` is a friend (accepted) of any of `others`.
    pub fn is_friend_of_any(&self, me: Uuid, others: &[Uuid]) -> Result<bool, StoreError> {
        let others: Vec<String> = others
            .iter()
            .filter(|o| **o != me)
            .map(Uuid::to_string)
            .collect();
        if others.is_empty() {
            return Ok(false);
        }
        let id = me.to_string();
        let n: i64 = self.read(|conn| {
            Ok(friendships::table
                .filter(
                    (friendships::low_id
                        .eq(&id)
                        .and(friendships::high_id.eq_any(&others)))
                    .or(friendships::high_id
                        .eq(&id)
                        .and(friendships::low_id.eq_any(&others))),
                )
                .filter(friendships::accepted_at.is_not_null())
                .count()
                .get_result(conn)?)
        })?;
        Ok(n > 0)
    }

    /// (id, username) of the accounts among `ids`.
    fn usernames(&self, ids: &[String]) -> Result<Vec<(String, String)>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        self.read(|conn| {
            Ok(accounts::table
                .filter(accounts::id.eq_any(ids))
                .filter(accounts::deleted_at.is_null())
                .select((accounts::id, accounts::username))
                .load(conn)?)
        })
    }
}
