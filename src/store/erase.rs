//! The last step of leaving for good: the account's name is replaced by its pseudonym
//! everywhere a reader sees it, in one transaction with the account row itself. The game
//! seats, the lobby facts of the games' logs (who created, joined, left, cancelled, sat
//! down), the feed items of everyone in those games and the webhook bodies made of them.
//! The account's table talk loses its text (the entries stay, under the pseudonym).
//! Rules events name seats, never people, so the logs replay and verify as before.
//!
//! Each game the account sat in moves to a new version: its cached records, its `ETag` and
//! every process's stream caches let the old name go (`Hub::names_changed`, announced).

use std::collections::{BTreeMap, HashSet};

use diesel::prelude::*;
use serde_json::Value;
use uuid::Uuid;

use super::conn::AnyConnection;
use super::schema::{
    account_feed, accounts, game_events, game_seats, games, webhook_endpoints, webhook_outbox,
};
use super::{Committed, News, Store, StoreError};

/// The JSON members that hold a person's name in lobby facts, feed items and webhook bodies.
const NAME_KEYS: [&str; 3] = ["username", "created_by", "by"];

/// The kinds of log entry that name people (the service's lobby facts).
const LOBBY_FACTS: [&str; 5] = [
    "game_created",
    "player_joined",
    "player_left",
    "game_cancelled",
    "game_started",
];

impl Store {
    /// The last step of leaving for good, in one transaction: the username becomes `username`
    /// (a pseudonym) on the account and everywhere a reader sees the old one (seats, lobby
    /// facts, feed items, webhook bodies; see `store::erase`), the password hash is erased,
    /// the tokens revoked and the sessions ended. The row stays: seats and logs refer to it.
    /// `Conflict(UsernameTaken)` when `username` exists; NotFound for an unknown id.
    pub fn erase_account(&self, id: Uuid, pseudonym: &str) -> Result<Committed<()>, StoreError> {
        let changed = self.write(|conn| {
            let account = id.to_string();
            let Some(name) = accounts::table
                .find(&account)
                .select(accounts::username)
                .first::<String>(conn)
                .optional()?
            else {
                return Ok::<usize, StoreError>(0);
            };
            // Every game that names the account: where it sits, and where it only joined and
            // left again (its own lobby facts).
            let mut named: BTreeMap<String, HashSet<String>> = BTreeMap::new();
            let seats: Vec<(String, String)> = game_seats::table
                .filter(game_seats::account_id.eq(&account))
                .select((game_seats::game_id, game_seats::username))
                .load(conn)?;
            for (game, seat_name) in seats {
                named.entry(game).or_default().insert(seat_name);
            }
            let acted: Vec<String> = game_events::table
                .filter(game_events::actor.eq(&account))
                .filter(game_events::kind.eq_any(LOBBY_FACTS))
                .select(game_events::game_id)
                .distinct()
                .load(conn)?;
            for game in acted {
                named.entry(game).or_default();
            }
            for (game, names) in &mut named {
                names.insert(name.clone());
                rename_in_game(conn, game, &account, names, pseudonym)?;
            }
            diesel::update(game_seats::table.filter(game_seats::account_id.eq(&account)))
                .set(game_seats::username.eq(pseudonym))
                .execute(conn)?;
            diesel::update(games::table.filter(games::id.eq_any(named.keys())))
                .set(games::version.eq(games::version + 1))
                .execute(conn)?;
            let changed = diesel::update(accounts::table.find(&account))
                .set((
                    accounts::username.eq(pseudonym),
                    accounts::username_lower.eq(pseudonym.to_lowercase()),
                    accounts::password_hash.eq(None::<String>),
                    accounts::token_generation.eq(accounts::token_generation + 1),
                ))
                .execute(conn)?;
            super::sessions::end_all_sessions(conn, id)?;
            super::friends::forget_account(conn, id)?;
            super::seeks::forget_account(conn, id)?;
            super::chat::erase_author(conn, &account)?;
            super::deadlines::vacations::forget_account(conn, id)?;
            super::wake::announce_names_changed(conn, id)?;
            Ok(changed)
        })?;
        self.signed_in.forget(id);
        if changed == 0 {
            return Err(StoreError::NotFound);
        }
        let news = News {
            names_changed: true,
            ..News::sessions_of(id)
        };
        Ok(Committed::new((), news))
    }
}

/// Rewrites the names in `old` (with those the account's own lobby facts of the game give it)
/// to `pseudonym` in game `game`'s lobby facts, in the feed items about the game and in the
/// webhook and push bodies made of those items.
fn rename_in_game(
    conn: &mut AnyConnection,
    game: &str,
    account: &str,
    old: &mut HashSet<String>,
    pseudonym: &str,
) -> Result<(), StoreError> {
    let facts: Vec<(i64, Option<String>, String)> = game_events::table
        .filter(game_events::game_id.eq(game))
        .filter(game_events::kind.eq_any(LOBBY_FACTS))
        .select((game_events::seq, game_events::actor, game_events::payload))
        .load(conn)?;
    // A guest who registered after joining joined under its guest name.
    for (_, actor, payload) in &facts {
        if actor.as_deref() == Some(account) {
            if let Ok(Value::Object(members)) = serde_json::from_str::<Value>(payload) {
                for key in NAME_KEYS {
                    if let Some(Value::String(name)) = members.get(key) {
                        old.insert(name.clone());
                    }
                }
            }
        }
    }
    let old: HashSet<&str> = old.iter().map(String::as_str).collect();
    let old = &old;
    for (seq, _, payload) in facts {
        if let Some(renamed) = renamed(&payload, old, pseudonym) {
            diesel::update(game_events::table.find((game, seq)))
                .set(game_events::payload.eq(renamed))
                .execute(conn)?;
        }
    }
    let items: Vec<(String, i64, String)> = account_feed::table
        .filter(account_feed::game_id.eq(game))
        .select((
            account_feed::account_id,
            account_feed::seq,
            account_feed::payload,
        ))
        .load(conn)?;
    for (reader, seq, payload) in items {
        let Some(item) = renamed(&payload, old, pseudonym) else {
            continue;
        };
        diesel::update(account_feed::table.find((&reader, seq)))
            .set(account_feed::payload.eq(item))
            .execute(conn)?;
        let endpoints = webhook_endpoints::table
            .filter(webhook_endpoints::account_id.eq(&reader))
            .select(webhook_endpoints::id);
        let bodies: Vec<(String, String)> = webhook_outbox::table
            .filter(webhook_outbox::endpoint_id.eq_any(endpoints))
            .filter(webhook_outbox::feed_seq.eq(seq))
            .select((webhook_outbox::id, webhook_outbox::body))
            .load(conn)?;
        for (delivery, body) in bodies {
            if let Some(renamed) = renamed(&body, old, pseudonym) {
                diesel::update(webhook_outbox::table.find(delivery))
                    .set(webhook_outbox::body.eq(renamed))
                    .execute(conn)?;
            }
        }
        super::devices::rename_bodies(conn, &reader, seq, |b| renamed(b, old, pseudonym))?;
    }
    Ok(())
}

/// `json` with every name member holding one of `old` set to `pseudonym`; None when nothing
/// changed (or it is not JSON: left as it is).
fn renamed(json: &str, old: &HashSet<&str>, pseudonym: &str) -> Option<String> {
    let mut value: Value = serde_json::from_str(json).ok()?;
    rename(&mut value, old, pseudonym).then(|| value.to_string())
}

/// True when something was renamed.
fn rename(value: &mut Value, old: &HashSet<&str>, pseudonym: &str) -> bool {
    match value {
        Value::Object(members) => {
            let mut changed = false;
            for (key, member) in members.iter_mut() {
                let is_old_name = NAME_KEYS.contains(&key.as_str())
                    && member.as_str().is_some_and(|n| old.contains(n));
                if is_old_name {
                    *member = Value::String(pseudonym.to_string());
                    changed = true;
                } else {
                    changed |= rename(member, old, pseudonym);
                }
            }
            changed
        }
        Value::Array(items) => items.iter_mut().fold(false, |changed, item| {
            rename(item, old, pseudonym) | changed
        }),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_old_names_in_name_members_change() {
        let old: HashSet<&str> = ["ann", "guest-abc"].into();
        let json = r#"{"type":"game_started","players":[{"seat":0,"username":"ann"},{"seat":1,"username":"bob"}],"note":"ann"}"#;
        let out = renamed(json, &old, "deleted-player-7f").expect("renamed");
        let v: Value = serde_json::from_str(&out).expect("json");
        assert_eq!(v["players"][0]["username"], "deleted-player-7f");
        assert_eq!(v["players"][1]["username"], "bob");
        assert_eq!(v["note"], "ann", "only name members");
        let created = r#"{"type":"game_created","created_by":"guest-abc"}"#;
        assert!(renamed(created, &old, "p").is_some_and(|s| s.contains(r#""created_by":"p""#)));
        assert_eq!(renamed(r#"{"by":"cid"}"#, &old, "p"), None);
        assert_eq!(renamed("not json", &old, "p"), None);
    }
}
