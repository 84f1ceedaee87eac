//! The sending side of the push outbox: any server process claims due rows with a lease (one
//! claim at a time: an advisory lock on PostgreSQL, the write lock on SQLite), so a process
//! that dies mid-send leaves them to another after the lease; and records each attempt. A claim leaves a device with its share
//! in flight alone and takes the accounts in turn. A device the provider reports gone is
//! deleted with its rows.

use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text, Timestamp};

use super::conn::AnyConnection;
use super::devices::{Device, DeviceRow};
use super::rows::{from_json, utc};
use super::schema::{game_seats, push_devices as pd, push_outbox as po};
use super::{Store, StoreError};

/// A push claimed by this process, with what it needs to send it.
#[derive(Clone, Debug)]
pub struct ClaimedPush {
    pub id: String,
    pub device: Device,
    /// The feed item as the stream shows it (see `delivery_bodies`).
    pub body: serde_json::Value,
    pub attempts: i32,
    pub created_at: DateTime<Utc>,
    /// The deadline of the account's seat in the game, if it has one: the push expires then.
    pub deadline: Option<DateTime<Utc>>,
}

/// How an attempt went.
#[derive(Clone, Debug)]
pub enum PushAttempt {
    Delivered {
        status: u16,
    },
    /// `retry_at` None: the retries are over (or the provider refused it for good).
    Failed {
        status: Option<u16>,
        error: String,
        retry_at: Option<DateTime<Utc>>,
    },
    /// Not sent now (quiet hours): tried again at `at`, the attempt not counted.
    Deferred {
        at: DateTime<Utc>,
    },
    /// The provider says the device no longer exists: it is deleted, with its rows.
    Gone,
}

#[derive(QueryableByName)]
struct ClaimedId {
    #[diesel(sql_type = Text)]
    id: String,
}

/// A newer push of the same kind about the same game replaces an unsent older one.
const COLLAPSE: &str = "UPDATE push_outbox SET status = 'collapsed', finished_at = $1 \
     WHERE status = 'pending' AND kind IN ('your_turn', 'deadline_near') \
       AND (claimed_until IS NULL OR claimed_until < $1) AND EXISTS ( \
         SELECT 1 FROM push_outbox n WHERE n.device_id = push_outbox.device_id \
           AND n.game_id = push_outbox.game_id AND n.kind = push_outbox.kind \
           AND n.feed_seq > push_outbox.feed_seq)";

/// The claim, fair and bounded: a due push is taken only while its device has fewer than
/// `$4` in flight (claimed, lease running; counted over every process, since claims take
/// turns), each device's oldest first, and the accounts in turn: every account's first push
/// before any account's second. So a device that hangs or fails holds up only its own
/// pushes, and an account (at most `MAX_DEVICES`, fewer than a process's sends in flight)
/// cannot take every send. Only devices with a due push are read (the partial index on
/// pending rows), so idle devices cost a claim nothing.
macro_rules! claim_sql {
    ($oldest_due:literal) => {
        concat!(
            "WITH busy AS ( \
               SELECT device_id, COUNT(*) AS n FROM push_outbox \
               WHERE status = 'pending' AND claimed_until >= $2 GROUP BY device_id \
             ), ready AS ( \
               SELECT DISTINCT device_id FROM push_outbox \
               WHERE status = 'pending' AND next_at <= $2 \
                 AND (claimed_until IS NULL OR claimed_until < $2) \
             ), due AS ( \
               SELECT o.id, o.next_at, d.account_id, COALESCE(b.n, 0) + ROW_NUMBER() OVER ( \
                   PARTITION BY d.id ORDER BY o.next_at, o.id) AS place \
               FROM ready r JOIN push_devices d ON d.id = r.device_id \
               LEFT JOIN busy b ON b.device_id = d.id ",
            $oldest_due,
            " ), fair AS ( \
               SELECT id, next_at, ROW_NUMBER() OVER ( \
                   PARTITION BY account_id ORDER BY place, next_at, id) AS turn \
               FROM due WHERE place <= $4 \
             ) \
             UPDATE push_outbox SET claimed_until = $1 \
             WHERE status = 'pending' AND id IN ( \
               SELECT id FROM fair ORDER BY turn, next_at, id LIMIT $3) \
             RETURNING id"
        )
    };
}

/// A device's oldest due pushes: one index range per device (LATERAL).
const CLAIM_PG: &str = claim_sql!(
    "CROSS JOIN LATERAL ( \
       SELECT i.id, i.next_at FROM push_outbox i \
       WHERE i.device_id = d.id AND i.status = 'pending' AND i.next_at <= $2 \
         AND (i.claimed_until IS NULL OR i.claimed_until < $2) \
       ORDER BY i.next_at, i.id LIMIT $4) o"
);

/// The same without LATERAL, which SQLite lacks: it runs the subquery once per device.
const CLAIM_SQLITE: &str = claim_sql!(
    "JOIN push_outbox o ON o.id IN ( \
       SELECT i.id FROM push_outbox i \
       WHERE i.device_id = d.id AND i.status = 'pending' AND i.next_at <= $2 \
         AND (i.claimed_until IS NULL OR i.claimed_until < $2) \
       ORDER BY i.next_at, i.id LIMIT $4)"
);

/// Any fixed number: the PostgreSQL advisory lock that makes push claims take turns.
const CLAIM_LOCK: i64 = 0x7261_636b_6f70_7573;

fn claim(
    conn: &mut AnyConnection,
    now: NaiveDateTime,
    until: NaiveDateTime,
    limit: i64,
    per_device: i64,
) -> Result<Vec<String>, StoreError> {
    let ids: Vec<ClaimedId> = match conn {
        // Claims take turns (until the commit), so that two processes cannot both see a
        // device with room and together exceed its share.
        AnyConnection::Pg(pg) => {
            diesel::sql_query("SELECT pg_advisory_xact_lock($1)")
                .bind::<BigInt, _>(CLAIM_LOCK)
                .execute(pg)?;
            diesel::sql_query(COLLAPSE)
                .bind::<Timestamp, _>(now)
                .execute(pg)?;
            diesel::sql_query(CLAIM_PG)
                .bind::<Timestamp, _>(until)
                .bind::<Timestamp, _>(now)
                .bind::<BigInt, _>(limit)
                .bind::<BigInt, _>(per_device)
                .load(pg)?
        }
        // One writer at a time (the write lock): claims already take turns.
        AnyConnection::Sqlite(lite) => {
            diesel::sql_query(COLLAPSE.replace('$', "?"))
                .bind::<Timestamp, _>(now)
                .execute(lite)?;
            diesel::sql_query(CLAIM_SQLITE.replace('$', "?"))
                .bind::<Timestamp, _>(until)
                .bind::<Timestamp, _>(now)
                .bind::<BigInt, _>(limit)
                .bind::<BigInt, _>(per_device)
                .load(lite)?
        }
    };
    Ok(ids.into_iter().map(|c| c.id).collect())
}

/// What the pushes `ids` need to be sent (read after the claim's commit, outside the write
/// lock: nothing read here changes while they are claimed).
fn load(conn: &mut AnyConnection, ids: &[String]) -> Result<Vec<ClaimedPush>, StoreError> {
    let rows = po::table
        .inner_join(pd::table)
        .filter(po::id.eq_any(ids))
        .select((
            po::id,
            po::body,
            po::attempts,
            po::created_at,
            po::game_id,
            pd::all_columns,
        ))
        .load::<(
            String,
            String,
            i32,
            NaiveDateTime,
            Option<String>,
            DeviceRow,
        )>(conn)?;
    // The seats' deadlines of the games these pushes are about, in one query.
    let games: Vec<&String> = rows.iter().filter_map(|r| r.4.as_ref()).collect();
    let deadlines: std::collections::HashMap<(String, String), NaiveDateTime> = if games.is_empty()
    {
        Default::default()
    } else {
        game_seats::table
            .filter(game_seats::game_id.eq_any(games))
            .select((
                game_seats::game_id,
                game_seats::account_id,
                game_seats::deadline,
            ))
            .load::<(String, String, Option<NaiveDateTime>)>(conn)?
            .into_iter()
            .filter_map(|(game, account, deadline)| Some(((game, account), deadline?)))
            .collect()
    };
    let mut out = Vec::with_capacity(rows.len());
    for (id, body, attempts, created, game, device) in rows {
        let device = device.into_record()?;
        let deadline = game
            .and_then(|g| deadlines.get(&(g, device.device.account_id.to_string())))
            .copied()
            .map(utc);
        out.push(ClaimedPush {
            id,
            device,
            body: from_json("push body", &body)?,
            attempts,
            created_at: utc(created),
            deadline,
        });
    }
    Ok(out)
}

fn finish(
    conn: &mut AnyConnection,
    claimed: &ClaimedPush,
    attempt: &PushAttempt,
    now: NaiveDateTime,
) -> Result<(), StoreError> {
    let row = po::table.find(&claimed.id);
    let (status, code, error, next, counted) = match attempt {
        PushAttempt::Delivered { status } => ("delivered", Some(*status), None, None, 1),
        PushAttempt::Failed {
            status,
            error,
            retry_at,
        } => (
            if retry_at.is_some() {
                "pending"
            } else {
                "failed"
            },
            *status,
            Some(error.clone()),
            retry_at.map(|r| r.naive_utc()),
            1,
        ),
        PushAttempt::Deferred { at } => ("pending", None, None, Some(at.naive_utc()), 0),
        PushAttempt::Gone => {
            let device = claimed.device.id.to_string();
            diesel::delete(po::table.filter(po::device_id.eq(&device))).execute(conn)?;
            diesel::delete(pd::table.find(&device)).execute(conn)?;
            return Ok(());
        }
    };
    diesel::update(row)
        .set((
            po::status.eq(status),
            po::attempts.eq(po::attempts + counted),
            po::last_status.eq(code.map(i32::from)),
            po::last_error.eq(error),
            po::claimed_until.eq(None::<NaiveDateTime>),
            po::next_at.eq(next.unwrap_or(now)),
            po::finished_at.eq(next.is_none().then_some(now)),
        ))
        .execute(conn)?;
    Ok(())
}

impl Store {
    /// Claims up to `limit` pushes due at `now`, holding them until `until` (the lease), at
    /// most `per_device` in flight per device; one transaction.
    pub fn claim_pushes(
        &self,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
        limit: i64,
        per_device: i64,
    ) -> Result<Vec<ClaimedPush>, StoreError> {
        let ids =
            self.write(|conn| claim(conn, now.naive_utc(), until.naive_utc(), limit, per_device))?;
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        self.read(|conn| load(conn, &ids))
    }

    /// Records how the attempts at `attempts` went, in one transaction.
    pub fn finish_pushes(&self, attempts: &[(ClaimedPush, PushAttempt)]) -> Result<(), StoreError> {
        let now = super::now().naive_utc();
        self.write(|conn| {
            for (claimed, attempt) in attempts {
                finish(conn, claimed, attempt, now)?;
            }
            Ok(())
        })
    }

    /// Records how an attempt at `claimed` went.
    pub fn finish_push(
        &self,
        claimed: &ClaimedPush,
        attempt: &PushAttempt,
    ) -> Result<(), StoreError> {
        let now = super::now().naive_utc();
        self.write(|conn| finish(conn, claimed, attempt, now))
    }
}

impl Store {
    /// Pending pushes, and when the oldest of them was made.
    pub fn push_backlog(&self) -> Result<(i64, Option<DateTime<Utc>>), StoreError> {
        self.read(|conn| {
            let (n, oldest) = po::table
                .filter(super::literal::push_pending())
                .select((diesel::dsl::count_star(), diesel::dsl::min(po::created_at)))
                .first::<(i64, Option<NaiveDateTime>)>(conn)?;
            Ok((n, oldest.map(utc)))
        })
    }
}

impl Store {
    /// Deletes up to `batch` pushes that finished before `before` (the delivery log keeps a
    /// week, as the webhooks' does); returns how many.
    pub fn delete_finished_pushes(
        &self,
        before: DateTime<Utc>,
        batch: i64,
    ) -> Result<usize, StoreError> {
        let before = before.naive_utc();
        self.write(|conn| {
            let ids: Vec<String> = po::table
                .filter(po::status.ne("pending"))
                .filter(po::finished_at.lt(before))
                .order(po::finished_at.asc())
                .select(po::id)
                .limit(batch.max(0))
                .load(conn)?;
            Ok(diesel::delete(po::table.filter(po::id.eq_any(ids))).execute(conn)?)
        })
    }
}
