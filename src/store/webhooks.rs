//! Webhook endpoints, the delivery log, and the outbox rows: written by
//! `feed::append` in the transaction of the change that causes them, delivered through
//! [`super::outbox`].

use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::prelude::*;
use uuid::Uuid;

use super::conn::AnyConnection;
use super::delivery_bodies::BodyAroundSeq;
use super::feed::StoredFeedItem;
use super::rows::{from_json, to_json, utc, uuid};
use super::schema::{webhook_endpoints as we, webhook_outbox as wo};
use super::{Store, StoreError};
/// A new endpoint of `account_id`.
#[derive(Clone, Debug)]
pub struct NewWebhook {
    pub account_id: Uuid,
    pub url: String,
    /// Feed kinds to deliver; empty: every kind.
    pub kinds: Vec<String>,
    /// The signing key, base64 (without the `whsec_` prefix).
    pub secret: String,
}

#[derive(Clone, Debug)]
pub struct Webhook {
    pub id: Uuid,
    pub account_id: Uuid,
    pub url: String,
    pub kinds: Vec<String>,
    pub secret: String,
    pub enabled: bool,
    pub created_at: DateTime<Utc>,
}

/// One outbox row, as the delivery log shows it.
#[derive(Clone, Debug)]
pub struct Delivery {
    /// The `webhook-id` (`msg_…`): the same on every attempt.
    pub id: String,
    pub feed_seq: i64,
    pub kind: String,
    /// pending, delivered or failed.
    pub status: String,
    pub attempts: i32,
    pub next_at: DateTime<Utc>,
    pub last_status: Option<i32>,
    pub last_error: Option<String>,
    pub created_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
}

#[derive(Queryable)]
struct EndpointRow {
    id: String,
    account_id: String,
    url: String,
    kinds: String,
    secret: String,
    enabled: bool,
    created_at: NaiveDateTime,
}

impl EndpointRow {
    fn into_record(self) -> Result<Webhook, StoreError> {
        Ok(Webhook {
            id: uuid("webhook id", &self.id)?,
            account_id: uuid("webhook account", &self.account_id)?,
            url: self.url,
            kinds: from_json("webhook kinds", &self.kinds)?,
            secret: self.secret,
            enabled: self.enabled,
            created_at: utc(self.created_at),
        })
    }
}

#[derive(Queryable)]
struct OutboxRow {
    id: String,
    feed_seq: i64,
    kind: String,
    status: String,
    attempts: i32,
    next_at: NaiveDateTime,
    last_status: Option<i32>,
    last_error: Option<String>,
    created_at: NaiveDateTime,
    finished_at: Option<NaiveDateTime>,
}

/// The account's enabled endpoints: (id, kinds), for [`enqueue`].
pub(super) fn enabled_endpoints(
    conn: &mut AnyConnection,
    account: &str,
) -> Result<Vec<(String, Vec<String>)>, StoreError> {
    we::table
        .filter(we::account_id.eq(account))
        .filter(we::enabled.eq(true))
        .select((we::id, we::kinds))
        .load::<(String, String)>(conn)?
        .into_iter()
        .map(|(id, kinds)| Ok((id, from_json("webhook kinds", &kinds)?)))
        .collect()
}

/// Writes an outbox row per endpoint that wants `item`'s kind (in the caller's transaction).
/// The body (`delivery_bodies`) is a Standard Webhooks payload: `type`, `timestamp`, and the
/// feed item as `data` (the same JSON as on `GET /v1/me/stream`; public facts only, R8).
pub(super) fn enqueue(
    conn: &mut AnyConnection,
    endpoints: &[(String, Vec<String>)],
    item: &StoredFeedItem,
    body: &BodyAroundSeq,
) -> Result<(), StoreError> {
    let wanted = endpoints
        .iter()
        .filter(|(_, kinds)| kinds.is_empty() || kinds.contains(&item.kind));
    let body = body.with_seq(item.seq);
    let at = item.created_at.naive_utc();
    for (endpoint, _) in wanted {
        diesel::insert_into(wo::table)
            .values((
                wo::id.eq(format!("msg_{}", Uuid::new_v4().simple())),
                wo::endpoint_id.eq(endpoint),
                wo::feed_seq.eq(item.seq),
                wo::kind.eq(&item.kind),
                wo::body.eq(&body),
                wo::status.eq("pending"),
                wo::attempts.eq(0),
                wo::next_at.eq(at),
                wo::created_at.eq(at),
            ))
            .execute(conn)?;
    }
    Ok(())
}

impl Store {
    pub fn insert_webhook(&self, new: &NewWebhook) -> Result<Webhook, StoreError> {
        let row = EndpointRow {
            id: Uuid::new_v4().to_string(),
            account_id: new.account_id.to_string(),
            url: new.url.clone(),
            kinds: to_json("webhook kinds", &new.kinds)?,
            secret: new.secret.clone(),
            enabled: true,
            created_at: super::rows::now(),
        };
        self.write(|conn| {
            diesel::insert_into(we::table)
                .values((
                    we::id.eq(&row.id),
                    we::account_id.eq(&row.account_id),
                    we::url.eq(&row.url),
                    we::kinds.eq(&row.kinds),
                    we::secret.eq(&row.secret),
                    we::enabled.eq(row.enabled),
                    we::created_at.eq(row.created_at),
                ))
                .execute(conn)
                .map_err(StoreError::from)
        })?;
        row.into_record()
    }

    /// The account's endpoints, oldest first.
    pub fn webhooks(&self, account: Uuid) -> Result<Vec<Webhook>, StoreError> {
        self.read(|c| {
            Ok(we::table
                .filter(we::account_id.eq(account.to_string()))
                .order((we::created_at, we::id))
                .load::<EndpointRow>(c)?)
        })?
        .into_iter()
        .map(EndpointRow::into_record)
        .collect()
    }

    /// Deletes the account's endpoint `id` and its deliveries; NotFound when it has none.
    pub fn delete_webhook(&self, account: Uuid, id: Uuid) -> Result<(), StoreError> {
        self.write(|conn| {
            let target = we::table
                .find(id.to_string())
                .filter(we::account_id.eq(account.to_string()));
            let owned = target.select(we::id).first::<String>(conn).optional()?;
            let Some(owned) = owned else {
                return Err(StoreError::NotFound);
            };
            diesel::delete(wo::table.filter(wo::endpoint_id.eq(&owned))).execute(conn)?;
            diesel::delete(we::table.find(&owned)).execute(conn)?;
            Ok(())
        })
    }

    /// Replaces the signing secret of the account's endpoint `id` (and enables it again);
    /// NotFound when it has none.
    pub fn rotate_webhook(
        &self,
        account: Uuid,
        id: Uuid,
        secret: &str,
    ) -> Result<Webhook, StoreError> {
        self.write(|conn| {
            let target = we::table
                .find(id.to_string())
                .filter(we::account_id.eq(account.to_string()));
            let changed = diesel::update(target)
                .set((we::secret.eq(secret), we::enabled.eq(true)))
                .execute(conn)?;
            if changed == 0 {
                return Err(StoreError::NotFound);
            }
            we::table
                .find(id.to_string())
                .first::<EndpointRow>(conn)?
                .into_record()
        })
    }

    /// The delivery log of the account's endpoint `id`, newest first; NotFound when the
    /// account has no such endpoint.
    pub fn webhook_deliveries(
        &self,
        account: Uuid,
        id: Uuid,
        limit: i64,
    ) -> Result<Vec<Delivery>, StoreError> {
        let mut conn = self.conn()?;
        let owned = self
            .fresh(&mut conn, |c| {
                Ok(we::table
                    .find(id.to_string())
                    .filter(we::account_id.eq(account.to_string()))
                    .select(we::id)
                    .first::<String>(c)
                    .optional()?)
            })?
            .ok_or(StoreError::NotFound)?;
        wo::table
            .filter(wo::endpoint_id.eq(owned))
            .order((wo::created_at.desc(), wo::feed_seq.desc()))
            .limit(limit.max(0))
            .select((
                wo::id,
                wo::feed_seq,
                wo::kind,
                wo::status,
                wo::attempts,
                wo::next_at,
                wo::last_status,
                wo::last_error,
                wo::created_at,
                wo::finished_at,
            ))
            .load::<OutboxRow>(&mut *conn)?
            .into_iter()
            .map(|r| {
                Ok(Delivery {
                    id: r.id,
                    feed_seq: r.feed_seq,
                    kind: r.kind,
                    status: r.status,
                    attempts: r.attempts,
                    next_at: utc(r.next_at),
                    last_status: r.last_status,
                    last_error: r.last_error,
                    created_at: utc(r.created_at),
                    finished_at: r.finished_at.map(utc),
                })
            })
            .collect()
    }
}
