//! Webhook endpoints and the transactional outbox (issue 10). Outbox rows are written by
//! `feed::append` in the transaction of the change that causes them; any server process
//! claims due rows (`FOR UPDATE SKIP LOCKED` on PostgreSQL; under the write lock on SQLite)
//! with a lease, so a process that dies mid-delivery leaves them to another after the lease.

use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text, Timestamp};
use serde_json::json;
use uuid::Uuid;

use super::conn::AnyConnection;
use super::feed::{append_about, NewFeedItem, StoredFeedItem};
use super::rows::{from_json, to_json, utc, uuid};
use super::schema::{webhook_endpoints as we, webhook_outbox as wo};
use super::{Store, StoreError};
use crate::notify::Wake;

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

/// A delivery claimed by this process, with what it needs to send it.
#[derive(Clone, Debug)]
pub struct Claimed {
    pub id: String,
    pub endpoint_id: Uuid,
    pub account_id: Uuid,
    pub url: String,
    pub secret: String,
    pub body: String,
    pub attempts: i32,
    pub created_at: DateTime<Utc>,
}

/// How an attempt went.
#[derive(Clone, Debug)]
pub enum Attempt {
    Delivered {
        status: u16,
    },
    /// `retry_at` None: the retries are over; the delivery fails and its endpoint is disabled.
    Failed {
        status: Option<u16>,
        error: String,
        retry_at: Option<DateTime<Utc>>,
    },
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

#[derive(QueryableByName)]
struct ClaimedId {
    #[diesel(sql_type = Text)]
    id: String,
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
/// The body is a Standard Webhooks payload: `type`, `timestamp`, and the feed item as `data`
/// (the same JSON as on `GET /v1/me/stream`; public facts only, R8).
pub(super) fn enqueue(
    conn: &mut AnyConnection,
    endpoints: &[(String, Vec<String>)],
    item: &StoredFeedItem,
) -> Result<(), StoreError> {
    let wanted = endpoints
        .iter()
        .filter(|(_, kinds)| kinds.is_empty() || kinds.contains(&item.kind));
    let body = json!({
        "type": item.kind,
        "timestamp": item.created_at,
        "data": {
            "seq": item.seq,
            "kind": item.kind,
            "game_id": item.game_id,
            "game_version": item.game_version,
            "at": item.created_at,
            "data": item.payload,
        },
    });
    let body = to_json("webhook body", &body)?;
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

/// Claims up to `limit` due deliveries until `until`; one transaction.
fn claim(
    conn: &mut AnyConnection,
    now: NaiveDateTime,
    until: NaiveDateTime,
    limit: i64,
) -> Result<Vec<Claimed>, StoreError> {
    let ids: Vec<ClaimedId> = match conn {
        // SKIP LOCKED: processes claiming at once take different rows instead of queueing.
        AnyConnection::Pg(pg) => diesel::sql_query(
            "UPDATE webhook_outbox SET claimed_until = $1 WHERE id IN ( \
               SELECT id FROM webhook_outbox WHERE status = 'pending' AND next_at <= $2 \
               AND (claimed_until IS NULL OR claimed_until < $2) \
               ORDER BY next_at LIMIT $3 FOR UPDATE SKIP LOCKED) RETURNING id",
        )
        .bind::<Timestamp, _>(until)
        .bind::<Timestamp, _>(now)
        .bind::<BigInt, _>(limit)
        .load(pg)?,
        // One writer at a time (the write lock): a plain UPDATE … RETURNING is enough.
        AnyConnection::Sqlite(lite) => diesel::sql_query(
            "UPDATE webhook_outbox SET claimed_until = ?1 WHERE id IN ( \
               SELECT id FROM webhook_outbox WHERE status = 'pending' AND next_at <= ?2 \
               AND (claimed_until IS NULL OR claimed_until < ?2) \
               ORDER BY next_at LIMIT ?3) RETURNING id",
        )
        .bind::<Timestamp, _>(until)
        .bind::<Timestamp, _>(now)
        .bind::<BigInt, _>(limit)
        .load(lite)?,
    };
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let ids: Vec<String> = ids.into_iter().map(|c| c.id).collect();
    wo::table
        .inner_join(we::table)
        .filter(wo::id.eq_any(&ids))
        .select((
            wo::id,
            wo::endpoint_id,
            we::account_id,
            we::url,
            we::secret,
            wo::body,
            wo::attempts,
            wo::created_at,
        ))
        .load::<(
            String,
            String,
            String,
            String,
            String,
            String,
            i32,
            NaiveDateTime,
        )>(conn)?
        .into_iter()
        .map(
            |(id, endpoint, account, url, secret, body, attempts, created)| {
                Ok(Claimed {
                    id,
                    endpoint_id: uuid("outbox endpoint", &endpoint)?,
                    account_id: uuid("webhook account", &account)?,
                    url,
                    secret,
                    body,
                    attempts,
                    created_at: utc(created),
                })
            },
        )
        .collect()
}

/// Records an attempt; when the retries are over, fails the delivery, disables the endpoint
/// (failing its other pending deliveries) and tells the account on its feed.
fn finish(
    conn: &mut AnyConnection,
    claimed: &Claimed,
    attempt: &Attempt,
    now: DateTime<Utc>,
) -> Result<Vec<Wake>, StoreError> {
    let at = now.naive_utc();
    let row = wo::table.find(&claimed.id);
    let (status, code, error, next) = match attempt {
        Attempt::Delivered { status } => ("delivered", Some(*status), None, None),
        Attempt::Failed {
            status,
            error,
            retry_at: Some(retry),
        } => (
            "pending",
            *status,
            Some(error.clone()),
            Some(retry.naive_utc()),
        ),
        Attempt::Failed {
            status,
            error,
            retry_at: None,
        } => ("failed", *status, Some(error.clone()), None),
    };
    diesel::update(row)
        .set((
            wo::status.eq(status),
            wo::attempts.eq(wo::attempts + 1),
            wo::last_status.eq(code.map(i32::from)),
            wo::last_error.eq(error),
            wo::claimed_until.eq(None::<NaiveDateTime>),
            wo::next_at.eq(next.unwrap_or(at)),
            wo::finished_at.eq(next.is_none().then_some(at)),
        ))
        .execute(conn)?;
    if status != "failed" {
        return Ok(Vec::new());
    }
    let endpoint = claimed.endpoint_id.to_string();
    let disabled = diesel::update(we::table.find(&endpoint).filter(we::enabled.eq(true)))
        .set(we::enabled.eq(false))
        .execute(conn)?;
    if disabled == 0 {
        return Ok(Vec::new());
    }
    diesel::update(
        wo::table
            .filter(wo::endpoint_id.eq(&endpoint))
            .filter(wo::status.eq("pending")),
    )
    .set((
        wo::status.eq("failed"),
        wo::last_error.eq("the endpoint was disabled"),
        wo::finished_at.eq(Some(at)),
    ))
    .execute(conn)?;
    let url = we::table
        .find(&endpoint)
        .select(we::url)
        .first::<String>(conn)?;
    let item = NewFeedItem {
        account_id: claimed.account_id,
        kind: "webhook_disabled".to_string(),
        payload: json!({ "webhook_id": claimed.endpoint_id, "url": url }),
    };
    append_about(conn, None, now, &[item])
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

    /// Claims up to `limit` deliveries due at `now`, holding them until `until` (the lease).
    pub fn claim_deliveries(
        &self,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
        limit: i64,
    ) -> Result<Vec<Claimed>, StoreError> {
        self.write(|conn| claim(conn, now.naive_utc(), until.naive_utc(), limit))
    }

    /// Records how an attempt at `claimed` went (see [`Attempt`]).
    pub fn finish_delivery(&self, claimed: &Claimed, attempt: &Attempt) -> Result<(), StoreError> {
        let now = super::now();
        let wakes = self.write(|conn| finish(conn, claimed, attempt, now))?;
        self.woke(&wakes);
        Ok(())
    }
}
