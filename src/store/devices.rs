//! Push devices of an account, and the push outbox rows: written by `feed::append` in the
//! transaction of the change that causes them (PostgreSQL's one-statement write writes them
//! in SQL, `pg_write`), sent through [`super::push_outbox`].

use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::prelude::*;
use uuid::Uuid;

use super::conn::AnyConnection;
use super::feed::StoredFeedItem;
use super::rows::{from_json, to_json, utc, uuid};
use super::schema::{push_devices as pd, push_outbox as po};
use super::{Conflict, Store, StoreError};

/// A device to register (checked by the service).
#[derive(Clone, Debug, PartialEq)]
pub struct NewDevice {
    pub account_id: Uuid,
    /// `web`, `apns` or `fcm`.
    pub provider: String,
    /// The Web Push endpoint, the APNs device token or the FCM registration token.
    pub address: String,
    pub p256dh: Option<String>,
    pub auth: Option<String>,
    pub topic: Option<String>,
    pub sandbox: bool,
    pub kinds: Vec<String>,
    pub language: String,
    /// Minutes of the device's day (from, until), and the device's offset from UTC.
    pub quiet: Option<(i32, i32)>,
    pub utc_offset: i32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Device {
    pub id: Uuid,
    pub created_at: DateTime<Utc>,
    pub device: NewDevice,
}

/// One push outbox row, as the device's delivery log shows it.
#[derive(Clone, Debug)]
pub struct PushDelivery {
    pub id: String,
    pub feed_seq: i64,
    pub kind: String,
    /// pending, delivered, collapsed or failed.
    pub status: String,
    pub attempts: i32,
    pub next_at: DateTime<Utc>,
    pub last_status: Option<i32>,
    pub last_error: Option<String>,
    pub created_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
}

#[derive(Queryable)]
pub(super) struct DeviceRow {
    pub id: String,
    pub account_id: String,
    pub provider: String,
    pub address: String,
    pub p256dh: Option<String>,
    pub auth: Option<String>,
    pub topic: Option<String>,
    pub sandbox: bool,
    pub kinds: String,
    pub language: String,
    pub quiet_from: Option<i32>,
    pub quiet_until: Option<i32>,
    pub utc_offset: i32,
    pub created_at: NaiveDateTime,
}

impl DeviceRow {
    pub(super) fn into_record(self) -> Result<Device, StoreError> {
        Ok(Device {
            id: uuid("device id", &self.id)?,
            created_at: utc(self.created_at),
            device: NewDevice {
                account_id: uuid("device account", &self.account_id)?,
                provider: self.provider,
                address: self.address,
                p256dh: self.p256dh,
                auth: self.auth,
                topic: self.topic,
                sandbox: self.sandbox,
                kinds: from_json("device kinds", &self.kinds)?,
                language: self.language,
                quiet: self.quiet_from.zip(self.quiet_until),
                utc_offset: self.utc_offset,
            },
        })
    }
}

/// The account's devices: (id, kinds), for [`enqueue`].
pub(super) fn wanting(
    conn: &mut AnyConnection,
    account: &str,
) -> Result<Vec<(String, Vec<String>)>, StoreError> {
    pd::table
        .filter(pd::account_id.eq(account))
        .select((pd::id, pd::kinds))
        .load::<(String, String)>(conn)?
        .into_iter()
        .map(|(id, kinds)| Ok((id, from_json("device kinds", &kinds)?)))
        .collect()
}

/// Writes a push row per device that wants `item`'s kind (in the caller's transaction).
/// The body (`delivery_bodies`) is the feed item as the stream shows it (public facts only,
/// R8).
pub(super) fn enqueue(
    conn: &mut AnyConnection,
    devices: &[(String, Vec<String>)],
    item: &StoredFeedItem,
    body: &super::delivery_bodies::BodyAroundSeq,
) -> Result<(), StoreError> {
    let wanted: Vec<&String> = devices
        .iter()
        .filter(|(_, kinds)| kinds.contains(&item.kind))
        .map(|(id, _)| id)
        .collect();
    if wanted.is_empty() {
        return Ok(());
    }
    let body = body.with_seq(item.seq);
    let at = item.created_at.naive_utc();
    for device in wanted {
        diesel::insert_into(po::table)
            .values((
                po::id.eq(format!("push_{}", Uuid::new_v4().simple())),
                po::device_id.eq(device),
                po::feed_seq.eq(item.seq),
                po::kind.eq(&item.kind),
                po::game_id.eq(item.game_id.map(|g| g.to_string())),
                po::body.eq(&body),
                po::status.eq("pending"),
                po::attempts.eq(0),
                po::next_at.eq(at),
                po::created_at.eq(at),
            ))
            .execute(conn)?;
    }
    Ok(())
}

impl Store {
    /// Registers a device, or updates the account's device with the same provider and
    /// address (a browser subscribing again, an app starting again). `max` bounds the
    /// account's devices: `TooManyDevices` past it.
    pub fn put_device(&self, new: &NewDevice, max: i64) -> Result<Device, StoreError> {
        let account = new.account_id.to_string();
        let kinds = to_json("device kinds", &new.kinds)?;
        let (quiet_from, quiet_until) = new.quiet.unzip();
        let row = self.write(|conn| {
            let same = pd::table
                .filter(pd::account_id.eq(&account))
                .filter(pd::provider.eq(&new.provider))
                .filter(pd::address.eq(&new.address))
                .select(pd::id)
                .first::<String>(conn)
                .optional()?;
            let id = match same {
                Some(id) => {
                    diesel::update(pd::table.find(&id))
                        .set((
                            pd::p256dh.eq(&new.p256dh),
                            pd::auth.eq(&new.auth),
                            pd::topic.eq(&new.topic),
                            pd::sandbox.eq(new.sandbox),
                            pd::kinds.eq(&kinds),
                            pd::language.eq(&new.language),
                            pd::quiet_from.eq(quiet_from),
                            pd::quiet_until.eq(quiet_until),
                            pd::utc_offset.eq(new.utc_offset),
                        ))
                        .execute(conn)?;
                    id
                }
                None => {
                    let count: i64 = pd::table
                        .filter(pd::account_id.eq(&account))
                        .count()
                        .get_result(conn)?;
                    if count >= max {
                        return Err(StoreError::Conflict(Conflict::TooManyDevices));
                    }
                    let id = Uuid::new_v4().to_string();
                    diesel::insert_into(pd::table)
                        .values((
                            pd::id.eq(&id),
                            pd::account_id.eq(&account),
                            pd::provider.eq(&new.provider),
                            pd::address.eq(&new.address),
                            pd::p256dh.eq(&new.p256dh),
                            pd::auth.eq(&new.auth),
                            pd::topic.eq(&new.topic),
                            pd::sandbox.eq(new.sandbox),
                            pd::kinds.eq(&kinds),
                            pd::language.eq(&new.language),
                            pd::quiet_from.eq(quiet_from),
                            pd::quiet_until.eq(quiet_until),
                            pd::utc_offset.eq(new.utc_offset),
                            pd::created_at.eq(super::rows::now()),
                        ))
                        .execute(conn)?;
                    id
                }
            };
            Ok::<_, StoreError>(pd::table.find(&id).first::<DeviceRow>(conn)?)
        })?;
        row.into_record()
    }

    /// The account's devices, oldest first.
    pub fn devices(&self, account: Uuid) -> Result<Vec<Device>, StoreError> {
        self.read(|c| {
            Ok(pd::table
                .filter(pd::account_id.eq(account.to_string()))
                .order((pd::created_at, pd::id))
                .load::<DeviceRow>(c)?)
        })?
        .into_iter()
        .map(DeviceRow::into_record)
        .collect()
    }

    /// Deletes the account's device `id` and its deliveries; NotFound when it has none.
    pub fn delete_device(&self, account: Uuid, id: Uuid) -> Result<(), StoreError> {
        self.write(|conn| {
            let owned = pd::table
                .find(id.to_string())
                .filter(pd::account_id.eq(account.to_string()))
                .select(pd::id)
                .first::<String>(conn)
                .optional()?
                .ok_or(StoreError::NotFound)?;
            diesel::delete(po::table.filter(po::device_id.eq(&owned))).execute(conn)?;
            diesel::delete(pd::table.find(&owned)).execute(conn)?;
            Ok(())
        })
    }

    /// The delivery log of the account's device `id`, newest first.
    pub fn push_deliveries(
        &self,
        account: Uuid,
        id: Uuid,
        limit: i64,
    ) -> Result<Vec<PushDelivery>, StoreError> {
        self.read(|c| {
            let owned = pd::table
                .find(id.to_string())
                .filter(pd::account_id.eq(account.to_string()))
                .select(pd::id)
                .first::<String>(c)
                .optional()?
                .ok_or(StoreError::NotFound)?;
            Ok(po::table
                .filter(po::device_id.eq(owned))
                .order((po::created_at.desc(), po::feed_seq.desc()))
                .limit(limit.max(0))
                .select((
                    po::id,
                    po::feed_seq,
                    po::kind,
                    po::status,
                    po::attempts,
                    po::next_at,
                    po::last_status,
                    po::last_error,
                    po::created_at,
                    po::finished_at,
                ))
                .load::<(
                    String,
                    i64,
                    String,
                    String,
                    i32,
                    NaiveDateTime,
                    Option<i32>,
                    Option<String>,
                    NaiveDateTime,
                    Option<NaiveDateTime>,
                )>(c)?)
        })
        .map(|rows| {
            rows.into_iter()
                .map(|r| PushDelivery {
                    id: r.0,
                    feed_seq: r.1,
                    kind: r.2,
                    status: r.3,
                    attempts: r.4,
                    next_at: utc(r.5),
                    last_status: r.6,
                    last_error: r.7,
                    created_at: utc(r.8),
                    finished_at: r.9.map(utc),
                })
                .collect()
        })
    }
}

/// The same rows written by PostgreSQL's one-statement write (`pg_write`), as a part of that
/// statement after its feed items (`items`), with the body built as for [`enqueue`]: only the
/// seq is put in here.
pub(super) const PG_ENQUEUE: &str = r#", push AS (
    INSERT INTO push_outbox
           (id, device_id, feed_seq, kind, game_id, body, status, attempts, next_at, created_at)
    SELECT 'push_' || replace(gen_random_uuid()::text, '-', ''), d.id, i.seq, i.kind, i.game_id,
           i.push_before || i.seq || i.push_after, 'pending', 0, i.at, i.at
      FROM items i
      JOIN push_devices d ON d.account_id = i.account_id
     WHERE d.kinds::jsonb ? i.kind
)"#;

/// Rewrites the bodies of `reader`'s pushes of feed item `seq` by `rename` (None: unchanged),
/// for an erased account's name (`erase`).
pub(super) fn rename_bodies(
    conn: &mut AnyConnection,
    reader: &str,
    seq: i64,
    rename: impl Fn(&str) -> Option<String>,
) -> Result<(), StoreError> {
    let devices = pd::table.filter(pd::account_id.eq(reader)).select(pd::id);
    let bodies: Vec<(String, String)> = po::table
        .filter(po::device_id.eq_any(devices))
        .filter(po::feed_seq.eq(seq))
        .select((po::id, po::body))
        .load(conn)?;
    for (push, body) in bodies {
        if let Some(body) = rename(&body) {
            diesel::update(po::table.find(push))
                .set(po::body.eq(body))
                .execute(conn)?;
        }
    }
    Ok(())
}
