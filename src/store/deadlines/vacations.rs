//! R10.5: vacations as stored. Taking one checks the year's allowance under the account's
//! row lock (PostgreSQL; SQLite writes one at a time), so two requests at once cannot both
//! pass it. The games a vacation touches are changed through their write path by the service.

use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::prelude::*;
use uuid::Uuid;

use super::super::conn::AnyConnection;
use super::super::rows::{utc, uuid};
use super::super::schema::{accounts, game_seats, vacations};
use super::super::{Store, StoreError, VacationRecord};

type Row = (
    String,
    String,
    NaiveDateTime,
    NaiveDateTime,
    Option<NaiveDateTime>,
);

fn record((id, account, starts, ends, ended): Row) -> Result<VacationRecord, StoreError> {
    Ok(VacationRecord {
        id: uuid("vacation id", &id)?,
        account_id: uuid("vacation account", &account)?,
        starts_at: utc(starts),
        ends_at: utc(ends),
        ended_at: ended.map(utc),
    })
}

fn columns() -> (
    vacations::id,
    vacations::account_id,
    vacations::starts_at,
    vacations::ends_at,
    vacations::ended_at,
) {
    (
        vacations::id,
        vacations::account_id,
        vacations::starts_at,
        vacations::ends_at,
        vacations::ended_at,
    )
}

fn of_account(
    conn: &mut AnyConnection,
    account: Uuid,
    since: DateTime<Utc>,
) -> Result<Vec<VacationRecord>, StoreError> {
    let rows: Vec<Row> = vacations::table
        .filter(vacations::account_id.eq(account.to_string()))
        .filter(vacations::starts_at.ge(since.naive_utc()))
        .order((vacations::starts_at, vacations::id))
        .select(columns())
        .load(conn)?;
    rows.into_iter().map(record).collect()
}

impl Store {
    /// Stores `vacation` if `allowed` passes it, given the account's vacations that started
    /// at `since` or later (oldest first); its refusal otherwise.
    pub fn take_vacation<E>(
        &self,
        vacation: &VacationRecord,
        since: DateTime<Utc>,
        allowed: impl FnOnce(&[VacationRecord]) -> Result<(), E>,
    ) -> Result<Result<VacationRecord, E>, StoreError> {
        let account = vacation.account_id.to_string();
        self.write(|conn| {
            if let AnyConnection::Pg(pg) = conn {
                accounts::table
                    .find(&account)
                    .select(accounts::id)
                    .for_update()
                    .first::<String>(pg)
                    .optional()?;
            }
            let taken = of_account(conn, vacation.account_id, since)?;
            if let Err(refused) = allowed(&taken) {
                return Ok(Err(refused));
            }
            diesel::insert_into(vacations::table)
                .values((
                    vacations::id.eq(vacation.id.to_string()),
                    vacations::account_id.eq(&account),
                    vacations::starts_at.eq(vacation.starts_at.naive_utc()),
                    vacations::ends_at.eq(vacation.ends_at.naive_utc()),
                ))
                .execute(conn)?;
            Ok(Ok(vacation.clone()))
        })
    }

    /// The account's vacations that started at `since` or later, oldest first.
    pub fn vacations_of(
        &self,
        account: Uuid,
        since: DateTime<Utc>,
    ) -> Result<Vec<VacationRecord>, StoreError> {
        self.read(|conn| of_account(conn, account, since))
    }

    /// Ends the account's vacation that is on at `at`, as of `at`; the vacation as ended,
    /// None when none is on.
    pub fn end_vacation(
        &self,
        account: Uuid,
        at: DateTime<Utc>,
    ) -> Result<Option<VacationRecord>, StoreError> {
        let now = at.naive_utc();
        self.write(|conn| {
            let on: Option<Row> = vacations::table
                .filter(vacations::account_id.eq(account.to_string()))
                .filter(vacations::ended_at.is_null())
                .filter(vacations::starts_at.le(now))
                .filter(vacations::ends_at.gt(now))
                .select(columns())
                .first(conn)
                .optional()?;
            let Some(row) = on else {
                return Ok(None);
            };
            diesel::update(vacations::table.find(&row.0))
                .set(vacations::ended_at.eq(now))
                .execute(conn)?;
            let mut ended = record(row)?;
            ended.ended_at = Some(at);
            Ok(Some(ended))
        })
    }

    /// The vacations since `since` of the accounts seated at game `game`, oldest first.
    pub fn vacations_at_table(
        &self,
        game: Uuid,
        since: DateTime<Utc>,
    ) -> Result<Vec<VacationRecord>, StoreError> {
        self.read(|conn| {
            let seated = game_seats::table
                .filter(game_seats::game_id.eq(game.to_string()))
                .select(game_seats::account_id);
            let rows: Vec<Row> = vacations::table
                .filter(vacations::account_id.eq_any(seated))
                .filter(vacations::starts_at.ge(since.naive_utc()))
                .order((vacations::starts_at, vacations::id))
                .select(columns())
                .load(conn)?;
            rows.into_iter().map(record).collect()
        })
    }
}

/// Deletes the account's vacations, inside the caller's transaction (leaving for good).
pub(in crate::store) fn forget_account(
    conn: &mut AnyConnection,
    account: Uuid,
) -> Result<(), StoreError> {
    diesel::delete(vacations::table.filter(vacations::account_id.eq(account.to_string())))
        .execute(conn)?;
    Ok(())
}
