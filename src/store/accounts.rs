//! Accounts and settings.

use diesel::prelude::*;
use uuid::Uuid;

use super::conn::AnyConnection;
use super::rows::{enum_text, now, AccountRow};
use super::schema::{accounts, settings};
use super::{Account, Committed, Conflict, NewAccount, News, SignedInAccount, Store, StoreError};

impl Store {
    /// `StoreError::Conflict(Conflict::UsernameTaken)` when the username exists (case-insensitive).
    pub fn insert_account(&self, new: &NewAccount) -> Result<Account, StoreError> {
        let row = AccountRow {
            id: Uuid::new_v4().to_string(),
            username: new.username.clone(),
            username_lower: new.username.to_lowercase(),
            password_hash: new.password_hash.clone(),
            role: enum_text(&new.role)?,
            guest: new.guest,
            created_at: now(),
            token_generation: 0,
            deleted_at: None,
        };
        self.write(|conn| {
            diesel::insert_into(accounts::table)
                .values(&row)
                .execute(conn)
                .map_err(StoreError::from)
        })?;
        row.into_record()
    }

    pub(super) fn account_where(
        &self,
        id: Option<Uuid>,
        username: Option<&str>,
    ) -> Result<Option<Account>, StoreError> {
        let row = self.read(|conn| {
            let mut query = accounts::table.into_boxed();
            if let Some(id) = id {
                query = query.filter(accounts::id.eq(id.to_string()));
            }
            if let Some(name) = username {
                query = query.filter(accounts::username_lower.eq(name.to_lowercase()));
            }
            Ok(query.first::<AccountRow>(conn).optional()?)
        })?;
        row.map(AccountRow::into_record).transpose()
    }

    /// Turns a guest into a registered account (new username and password hash); the guest's
    /// tokens are revoked and its sessions ended.
    /// `Conflict(UsernameTaken)` as above; `Conflict(NotAGuest)` when the account is registered
    /// already (also when two upgrades of one guest race); NotFound for an unknown id.
    pub fn upgrade_guest(
        &self,
        id: Uuid,
        username: &str,
        password_hash: &str,
    ) -> Result<Committed<Account>, StoreError> {
        let row = self.write(|conn| {
            // Only a guest is upgraded: two racing upgrades of one guest cannot both rename it.
            let changed = diesel::update(
                accounts::table
                    .find(id.to_string())
                    .filter(accounts::guest.eq(true)),
            )
            .set((
                accounts::username.eq(username),
                accounts::username_lower.eq(username.to_lowercase()),
                accounts::password_hash.eq(password_hash),
                accounts::guest.eq(false),
                // The guest's tokens were bearer-only credentials: whoever held one would keep
                // the registered account. They stop working; the upgrade answers a new token.
                accounts::token_generation.eq(accounts::token_generation + 1),
            ))
            .execute(conn)?;
            super::sessions::end_all_sessions(conn, id)?;
            super::wake::announce_account_change(conn, id)?;
            if changed == 0 {
                let exists = accounts::table
                    .find(id.to_string())
                    .count()
                    .get_result::<i64>(conn)?;
                return Err(if exists == 0 {
                    StoreError::NotFound
                } else {
                    StoreError::Conflict(Conflict::NotAGuest)
                });
            }
            Ok(accounts::table
                .find(id.to_string())
                .first::<AccountRow>(conn)?)
        })?;
        self.signed_in.forget(id);
        Ok(Committed::new(row.into_record()?, News::sessions_of(id)))
    }

    /// "Sign out everywhere": tokens issued so far stop working and every session ends.
    /// NotFound for no such account.
    pub fn revoke_tokens(&self, id: Uuid) -> Result<Committed<()>, StoreError> {
        let changed = self.write(|conn| {
            super::wake::announce_account_change(conn, id)?;
            super::sessions::end_all_sessions(conn, id)?;
            diesel::update(accounts::table.find(id.to_string()))
                .set(accounts::token_generation.eq(accounts::token_generation + 1))
                .execute(conn)
                .map_err(StoreError::from)
        })?;
        self.signed_in.forget(id);
        if changed == 0 {
            return Err(StoreError::NotFound);
        }
        Ok(Committed::new((), News::sessions_of(id)))
    }

    /// The first step of leaving for good, in one commit: every token is revoked, the password
    /// hash erased and the account marked deleted, so that from here on nothing can sign in
    /// as it or seat it in a game (the seat check refuses it inside the seating transaction).
    /// Repeatable; NotFound for an unknown id.
    pub fn begin_deletion(&self, id: Uuid) -> Result<Committed<()>, StoreError> {
        let changed = self.write(|conn| {
            super::wake::announce_account_change(conn, id)?;
            diesel::update(accounts::table.find(id.to_string()))
                .set((
                    accounts::token_generation.eq(accounts::token_generation + 1),
                    accounts::password_hash.eq(None::<String>),
                    accounts::deleted_at.eq(Some(now())),
                ))
                .execute(conn)
                .map_err(StoreError::from)
                .and_then(|n| super::sessions::end_all_sessions(conn, id).map(|()| n))
        })?;
        self.signed_in.forget(id);
        if changed == 0 {
            return Err(StoreError::NotFound);
        }
        Ok(Committed::new((), News::sessions_of(id)))
    }

    /// Accounts whose deletion began but whose name is not erased yet (a deletion cut short),
    /// at most `limit`. `erased_prefix` starts every erased name.
    pub fn unfinished_deletions(
        &self,
        erased_prefix: &str,
        limit: i64,
    ) -> Result<Vec<Uuid>, StoreError> {
        let ids: Vec<String> = self.read(|conn| {
            Ok(accounts::table
                .filter(accounts::deleted_at.is_not_null())
                .filter(accounts::username_lower.not_like(format!("{erased_prefix}%")))
                .select(accounts::id)
                .limit(limit)
                .load(conn)?)
        })?;
        ids.iter()
            .map(|id| Uuid::parse_str(id).map_err(|e| super::error::bad_data("account id", e)))
            .collect()
    }

    /// Returns the value stored under `key`, or stores `make()` under it and returns that;
    /// safe against concurrent callers (the first writer wins, everyone gets its value).
    pub fn setting_or_insert(
        &self,
        key: &str,
        make: impl FnOnce() -> String,
    ) -> Result<String, StoreError> {
        if let Some(value) = self.read(|c| setting(c, key))? {
            return Ok(value);
        }
        let value = make();
        let inserted = self.write(|conn| {
            diesel::insert_into(settings::table)
                .values((settings::key.eq(key), settings::value.eq(&value)))
                .execute(conn)
                .map_err(StoreError::from)
        });
        match inserted {
            Ok(_) => Ok(value),
            // Another writer came first: its value wins.
            Err(StoreError::Conflict(Conflict::SettingTaken)) => self
                .read(|c| setting(c, key))?
                .ok_or_else(|| StoreError::Internal(format!("setting {key} vanished"))),
            Err(e) => Err(e),
        }
    }
}

pub(super) fn setting(conn: &mut AnyConnection, key: &str) -> Result<Option<String>, StoreError> {
    Ok(settings::table
        .find(key)
        .select(settings::value)
        .first::<String>(conn)
        .optional()?)
}

pub(super) fn put_setting(
    conn: &mut AnyConnection,
    key: &str,
    value: &str,
) -> Result<(), StoreError> {
    let updated = diesel::update(settings::table.find(key))
        .set(settings::value.eq(value))
        .execute(conn)?;
    if updated == 0 {
        diesel::insert_into(settings::table)
            .values((settings::key.eq(key), settings::value.eq(value)))
            .execute(conn)?;
    }
    Ok(())
}

/// Reads of accounts and settings.
impl Store {
    pub fn account(&self, id: Uuid) -> Result<Option<Account>, StoreError> {
        self.account_where(Some(id), None)
    }

    /// The account and its live sessions as a token check needs them, if this process read
    /// them within the last few seconds and they have not changed since (see `signed_in`);
    /// None: ask [`Store::account_for_token`]. Never waits.
    pub fn recent_account(&self, id: Uuid) -> Option<SignedInAccount> {
        self.signed_in.get(id)
    }

    /// The account and its live sessions, for a token check (one statement): kept for
    /// [`Store::recent_account`].
    pub fn account_for_token(&self, id: Uuid) -> Result<Option<SignedInAccount>, StoreError> {
        let ticket = self.signed_in.ticket();
        let signed_in = self.signed_in_account(id)?;
        if let Some(signed_in) = &signed_in {
            self.signed_in.put(ticket, signed_in.clone());
        }
        Ok(signed_in)
    }

    /// Case-insensitive.
    pub fn account_by_username(&self, username: &str) -> Result<Option<Account>, StoreError> {
        self.account_where(None, Some(username))
    }

    /// Stores `value` under `key`, replacing what was there.
    pub fn put_setting(&self, key: &str, value: &str) -> Result<(), StoreError> {
        self.write(|conn| put_setting(conn, key, value))
    }

    /// The value stored under `key`, if any.
    pub fn setting(&self, key: &str) -> Result<Option<String>, StoreError> {
        self.read(|c| setting(c, key))
    }
}
