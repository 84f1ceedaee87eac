//! A read replica (PostgreSQL hot standby) for the reads that do not need the primary: replays,
//! exports, verifications, event pages of finished games and the admin audit queries. Streams
//! and long-polls stay on the primary (a standby cannot `LISTEN`), and so does every write and
//! every read a write decides on.
//!
//! Read-your-writes: a read goes to the replica only when the replica has what the primary had
//! when the read began, else to the primary. For one game that is the game's last seq (one
//! row by its key on the primary, then the same row on the replica); for an audit query across
//! games, the primary's WAL position, which the replica must have replayed. Either way a caller
//! never misses a commit it was told about, from this process or any other. A replica that
//! lags more than the configured bound, or fails, is passed over too.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use diesel::prelude::*;
use diesel::r2d2::Pool;
use diesel::sql_types::{BigInt, Bool, Double, Nullable, Text};
use diesel::PgConnection;
use uuid::Uuid;

use super::conn::{AnyConnection, Manager, Target};
use super::{Store, StoreError};

/// The replica's pool and what this process has sent it.
pub(super) struct Replica {
    /// A store like the primary's, whose pool connects to the standby.
    store: Store,
    max_lag: Duration,
    reads: Reads,
    /// The lag last measured, in seconds (an f64's bits).
    lag_seconds: AtomicU64,
}

#[derive(Default)]
struct Reads {
    replica: AtomicU64,
    primary: AtomicU64,
}

/// Reads sent to each database, and the replica's lag, for `/metrics`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ReplicaReads {
    pub to_replica: u64,
    /// Reads a replica could have answered that went to the primary (it lagged or failed).
    pub to_primary: u64,
    /// How far the replica was behind at its last check.
    pub lag_seconds: f64,
}

/// How far the replica is, read on it.
#[derive(QueryableByName)]
struct Standing {
    /// The game's last seq there (per-game check); none when the game is not there yet.
    #[diesel(sql_type = Nullable<BigInt>)]
    seq: Option<i64>,
    /// Whether it has replayed the primary's WAL position (check across games).
    #[diesel(sql_type = Bool)]
    replayed: bool,
    /// Seconds behind: 0 when it has replayed all it received.
    #[diesel(sql_type = Double)]
    lag: f64,
}

/// The lag of a standby: 0 when nothing received waits to be replayed, else the age of the
/// last replayed commit (infinite when it has replayed none since it started). 0 on a server
/// that is not a standby.
const LAG: &str = "(CASE WHEN NOT pg_is_in_recovery() THEN 0.0 \
     WHEN pg_last_wal_receive_lsn() IS NOT DISTINCT FROM pg_last_wal_replay_lsn() THEN 0.0 \
     ELSE COALESCE(EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp())::float8, \
     'Infinity'::float8) END)::float8";

impl Store {
    /// Sends the reads that may go to a hot standby to `url`, when the standby has caught up
    /// with the caller (see the module docs) and lags at most `max_lag`.
    pub fn with_replica(mut self, url: &str, max_lag: Duration) -> Result<Store, StoreError> {
        let target = Target::parse(url)?;
        if !matches!(target, Target::Pg(_)) || !matches!(self.target, Target::Pg(_)) {
            return Err(StoreError::Internal(
                "a read replica is a PostgreSQL standby of a PostgreSQL store".into(),
            ));
        }
        let mut replica = self.clone();
        replica.down = Default::default();
        let manager = Manager {
            target: target.clone(),
            waits: self.waits,
            down: replica.down.clone(),
            statements: self.statements.clone(),
        };
        replica.pool = Pool::builder()
            .max_size(self.pool.max_size())
            .min_idle(Some(0))
            .test_on_check_out(false)
            .connection_timeout(self.waits.connect)
            .build_unchecked(manager);
        replica.target = target;
        replica.replica = None;
        self.replica = Some(Arc::new(Replica {
            store: replica,
            max_lag,
            reads: Reads::default(),
            lag_seconds: AtomicU64::new(0),
        }));
        Ok(self)
    }

    /// Where to read game `id`'s log from: the replica when it has the game as the primary
    /// has it now, else this store.
    pub fn reader_for_game(&self, id: Uuid) -> Store {
        let Some(replica) = &self.replica else {
            return self.clone();
        };
        match self.read(|c| last_seq(c, id)) {
            Ok(Some(seq)) => self.reader_at(id, seq),
            // Not found, or the primary failed: it answers (and says so) itself.
            _ => replica.passed_over(self),
        }
    }

    /// Where to read game `id`'s events up to `seq` from, `seq` read on the primary.
    pub fn reader_at(&self, id: Uuid, seq: i64) -> Store {
        let Some(replica) = &self.replica else {
            return self.clone();
        };
        let standing = replica.standing(|c| {
            diesel::sql_query(format!(
                "SELECT (SELECT last_seq FROM games WHERE id = $1) AS seq, true AS replayed, \
                 {LAG} AS lag"
            ))
            .bind::<Text, _>(id.to_string())
            .get_result::<Standing>(c)
        });
        match standing {
            Some(s) if s.seq.is_some_and(|there| there >= seq) => replica.chosen(),
            _ => replica.passed_over(self),
        }
    }

    /// Where to run an audit query across games from: the replica when it has replayed
    /// everything the primary had committed when the query began.
    pub fn reader_for_audit(&self) -> Store {
        let Some(replica) = &self.replica else {
            return self.clone();
        };
        let Ok(position) = self.read(|c| Ok(wal_position(pg(c)?)?)) else {
            return replica.passed_over(self);
        };
        let standing = replica.standing(|c| {
            diesel::sql_query(format!(
                "SELECT NULL::bigint AS seq, \
                 COALESCE(pg_last_wal_replay_lsn() >= $1::pg_lsn, true) AS replayed, {LAG} AS lag"
            ))
            .bind::<Text, _>(&position)
            .get_result::<Standing>(c)
        });
        match standing {
            Some(s) if s.replayed => replica.chosen(),
            _ => replica.passed_over(self),
        }
    }

    /// The reads sent to each database so far and the replica's lag; None without a replica.
    /// Measures the lag afresh (one round trip to the replica).
    pub fn replica_reads(&self) -> Option<ReplicaReads> {
        let replica = self.replica.as_ref()?;
        replica.standing(|c| {
            diesel::sql_query(format!(
                "SELECT NULL::bigint AS seq, true AS replayed, {LAG} AS lag"
            ))
            .get_result::<Standing>(c)
        });
        Some(ReplicaReads {
            to_replica: replica.reads.replica.load(Ordering::Relaxed),
            to_primary: replica.reads.primary.load(Ordering::Relaxed),
            lag_seconds: f64::from_bits(replica.lag_seconds.load(Ordering::Relaxed)),
        })
    }
}

impl Replica {
    /// How far the replica is, by `query`; None when it failed or lags past the bound.
    fn standing(
        &self,
        query: impl Fn(&mut PgConnection) -> QueryResult<Standing>,
    ) -> Option<Standing> {
        let standing = match self.store.read(|c| Ok(query(pg(c)?)?)) {
            Ok(standing) => standing,
            Err(e) => {
                tracing::warn!(error = %e, "the read replica did not answer; reading the primary");
                return None;
            }
        };
        self.lag_seconds
            .store(standing.lag.to_bits(), Ordering::Relaxed);
        // Infinite (nothing replayed yet) or NaN is never within the bound.
        (standing.lag <= self.max_lag.as_secs_f64()).then_some(standing)
    }

    fn chosen(&self) -> Store {
        self.reads.replica.fetch_add(1, Ordering::Relaxed);
        self.store.clone()
    }

    fn passed_over(&self, primary: &Store) -> Store {
        self.reads.primary.fetch_add(1, Ordering::Relaxed);
        primary.clone()
    }
}

#[derive(QueryableByName)]
struct Seq {
    #[diesel(sql_type = BigInt)]
    last_seq: i64,
}

/// Both stores of a replica are PostgreSQL (`with_replica` checks).
fn pg(conn: &mut AnyConnection) -> Result<&mut PgConnection, StoreError> {
    match conn {
        AnyConnection::Pg(pg) => Ok(pg),
        AnyConnection::Sqlite(_) => Err(StoreError::Internal(
            "a read replica needs PostgreSQL".into(),
        )),
    }
}

fn last_seq(conn: &mut AnyConnection, id: Uuid) -> Result<Option<i64>, StoreError> {
    let row = diesel::sql_query("SELECT last_seq FROM games WHERE id = $1")
        .bind::<Text, _>(id.to_string())
        .get_result::<Seq>(pg(conn)?)
        .optional()?;
    Ok(row.map(|r| r.last_seq))
}

#[derive(QueryableByName)]
struct Position {
    #[diesel(sql_type = Text)]
    lsn: String,
}

/// The primary's WAL position now: every commit acknowledged so far is at or before it.
fn wal_position(conn: &mut PgConnection) -> QueryResult<String> {
    diesel::sql_query("SELECT pg_current_wal_lsn()::text AS lsn")
        .get_result::<Position>(conn)
        .map(|p| p.lsn)
}
