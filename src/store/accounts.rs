//! Accounts and settings.

use diesel::prelude::*;
use uuid::Uuid;

use super::conn::AnyConnection;
use super::rows::{enum_text, now, AccountRow};
use super::schema::{accounts, settings};
use super::{Account, NewAccount, Store, StoreError};
use crate::error::Code;

impl Store {
    pub(super) fn insert_account_impl(&self, new: &NewAccount) -> Result<Account, StoreError> {
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

    pub(super) fn upgrade_guest_impl(
        &self,
        id: Uuid,
        username: &str,
        password_hash: &str,
    ) -> Result<Account, StoreError> {
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
                    StoreError::Conflict(Code::NotAGuest)
                });
            }
            Ok(accounts::table
                .find(id.to_string())
                .first::<AccountRow>(conn)?)
        })?;
        self.signed_in.forget(id);
        self.hub().sessions_changed(id);
        row.into_record()
    }

    pub(super) fn revoke_tokens_impl(&self, id: Uuid) -> Result<(), StoreError> {
        let changed = self.write(|conn| {
            super::wake::announce_account_change(conn, id)?;
            super::sessions::end_all_sessions(conn, id)?;
            diesel::update(accounts::table.find(id.to_string()))
                .set(accounts::token_generation.eq(accounts::token_generation + 1))
                .execute(conn)
                .map_err(StoreError::from)
        })?;
        self.signed_in.forget(id);
        self.hub().sessions_changed(id);
        if changed == 0 {
            return Err(StoreError::NotFound);
        }
        Ok(())
    }

    pub(super) fn begin_deletion_impl(&self, id: Uuid) -> Result<(), StoreError> {
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
        self.hub().sessions_changed(id);
        if changed == 0 {
            return Err(StoreError::NotFound);
        }
        Ok(())
    }

    pub(super) fn unfinished_deletions_impl(
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

    pub(super) fn setting_or_insert_impl(
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
            Err(StoreError::Conflict(Code::SettingTaken)) => self
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
