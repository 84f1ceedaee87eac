//! Prometheus metrics, served as text on `GET /metrics`. One registry per application, so
//! servers started side by side in tests do not share counters.

use std::time::Duration;

use chrono::{DateTime, Utc};
use prometheus::{
    Encoder, Gauge, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge, IntGaugeVec,
    Opts, Registry,
};

use crate::store::{Backlog, GroupCommits, PoolUsage, ReplicaReads};

mod replica;

#[derive(Clone)]
pub struct Metrics {
    registry: Registry,
    http_requests: IntCounterVec,
    http_latency: HistogramVec,
    actions_applied: IntCounter,
    version_conflicts: IntCounter,
    db_statements: IntCounter,
    db_writes: IntCounter,
    db_commits: IntCounter,
    game_decisions: IntCounter,
    now: NowGauges,
    replica: replica::ReplicaSeries,
}

/// Gauges set at each scrape from what the process and the database hold then.
#[derive(Clone)]
struct NowGauges {
    streams_open: IntGauge,
    pool: IntGaugeVec,
    deliveries: IntGaugeVec,
    oldest_pending: Gauge,
    overdue_games: IntGauge,
    sweeper_lag: Gauge,
}

impl NowGauges {
    fn new(registry: &Registry) -> Result<NowGauges, prometheus::Error> {
        let gauges = NowGauges {
            streams_open: IntGauge::new(
                "racko_streams_open",
                "Open streams and long-polls of this process",
            )?,
            pool: IntGaugeVec::new(
                Opts::new(
                    "racko_db_pool_connections",
                    "Database connections of this process's pool: idle, busy, and the most it opens",
                ),
                &["state"],
            )?,
            deliveries: IntGaugeVec::new(
                Opts::new(
                    "racko_webhook_deliveries",
                    "Webhook deliveries in the outbox by status (finished ones are kept a week)",
                ),
                &["status"],
            )?,
            oldest_pending: Gauge::new(
                "racko_webhook_oldest_pending_seconds",
                "Age of the oldest pending webhook delivery (0: none)",
            )?,
            overdue_games: IntGauge::new(
                "racko_sweeper_overdue_games",
                "Games with a deadline, reminder or computer turn due and not handled yet",
            )?,
            sweeper_lag: Gauge::new(
                "racko_sweeper_lag_seconds",
                "How long the most overdue of those has been due (0: none)",
            )?,
        };
        registry.register(Box::new(gauges.streams_open.clone()))?;
        registry.register(Box::new(gauges.pool.clone()))?;
        registry.register(Box::new(gauges.deliveries.clone()))?;
        registry.register(Box::new(gauges.oldest_pending.clone()))?;
        registry.register(Box::new(gauges.overdue_games.clone()))?;
        registry.register(Box::new(gauges.sweeper_lag.clone()))?;
        Ok(gauges)
    }
}

/// What a scrape reads besides the counters.
#[derive(Clone, Debug)]
pub struct Now {
    pub at: DateTime<Utc>,
    pub streams_open: usize,
    pub pool: PoolUsage,
    pub backlog: Backlog,
}

impl Metrics {
    pub fn new() -> Result<Metrics, prometheus::Error> {
        let registry = Registry::new();
        let http_requests = IntCounterVec::new(
            Opts::new("racko_http_requests_total", "HTTP requests answered"),
            &["method", "route", "status"],
        )?;
        let http_latency = HistogramVec::new(
            HistogramOpts::new(
                "racko_http_request_duration_seconds",
                "Time to answer an HTTP request",
            ),
            &["method", "route"],
        )?;
        let actions_applied = IntCounter::new(
            "racko_actions_applied_total",
            "Game actions applied and stored",
        )?;
        let version_conflicts = IntCounter::new(
            "racko_version_conflicts_total",
            "Game writes refused because the game had changed (stale version)",
        )?;
        let db_statements = IntCounter::new(
            "racko_db_statements_total",
            "Statements (round trips) sent to PostgreSQL",
        )?;
        let db_writes = IntCounter::new(
            "racko_db_writes_total",
            "Writes committed: on SQLite every write, on PostgreSQL the game changes of the shared statement",
        )?;
        let db_commits = IntCounter::new(
            "racko_db_commits_total",
            "The commits (on PostgreSQL the statements) that held those writes",
        )?;
        let game_decisions = IntCounter::new(
            "racko_game_decisions_total",
            "Decisions of a game change: one per change, one more per compare-and-set lost to another writer",
        )?;
        registry.register(Box::new(db_statements.clone()))?;
        registry.register(Box::new(game_decisions.clone()))?;
        registry.register(Box::new(db_writes.clone()))?;
        registry.register(Box::new(db_commits.clone()))?;
        registry.register(Box::new(http_requests.clone()))?;
        registry.register(Box::new(http_latency.clone()))?;
        registry.register(Box::new(actions_applied.clone()))?;
        registry.register(Box::new(version_conflicts.clone()))?;
        let now = NowGauges::new(&registry)?;
        let replica = replica::ReplicaSeries::new(&registry)?;
        Ok(Metrics {
            now,
            replica,
            registry,
            http_requests,
            http_latency,
            actions_applied,
            version_conflicts,
            db_statements,
            db_writes,
            db_commits,
            game_decisions,
        })
    }

    /// One answered request. `route` is the matched pattern (e.g. `/v1/games/{id}`), never the
    /// raw path, so that the number of series stays bounded.
    pub fn http_request(&self, method: &str, route: &str, status: u16, latency: Duration) {
        self.http_requests
            .with_label_values(&[method, route, &status.to_string()])
            .inc();
        self.http_latency
            .with_label_values(&[method, route])
            .observe(latency.as_secs_f64());
    }

    /// A game action was applied and stored.
    pub fn action_applied(&self) {
        self.actions_applied.inc();
    }

    /// A game write lost a race (compare-and-set on the version failed).
    pub fn version_conflict(&self) {
        self.version_conflicts.inc();
    }

    /// The service's count of decisions made (it keeps its own; the counter shows it).
    pub fn game_decisions(&self, total: u64) {
        self.game_decisions.reset();
        self.game_decisions.inc_by(total);
    }

    /// The store's count of statements sent (it keeps its own; the counter shows it).
    pub fn db_statements(&self, total: u64) {
        self.db_statements.reset();
        self.db_statements.inc_by(total);
    }

    /// The writes and the commits (statements) they shared.
    pub fn shared_commits(&self, total: GroupCommits) {
        self.db_writes.reset();
        self.db_writes.inc_by(total.writes);
        self.db_commits.reset();
        self.db_commits.inc_by(total.commits);
    }

    /// The read replica's counts and lag, when there is one.
    pub fn replica(&self, reads: &ReplicaReads) {
        self.replica.observe(reads);
    }

    /// Sets the gauges to what `now` says, before a render.
    pub fn observe_now(&self, now: &Now) {
        let g = &self.now;
        g.streams_open
            .set(i64::try_from(now.streams_open).unwrap_or(i64::MAX));
        let busy = now.pool.open.saturating_sub(now.pool.idle);
        g.pool
            .with_label_values(&["idle"])
            .set(now.pool.idle.into());
        g.pool.with_label_values(&["busy"]).set(busy.into());
        g.pool.with_label_values(&["max"]).set(now.pool.max.into());
        g.deliveries.reset();
        for status in ["pending", "delivered", "failed"] {
            g.deliveries.with_label_values(&[status]).set(0);
        }
        for (status, count) in &now.backlog.deliveries {
            g.deliveries.with_label_values(&[status]).set(*count);
        }
        let age = |since: Option<DateTime<Utc>>| {
            since.map_or(0.0, |t| {
                (now.at - t).to_std().map_or(0.0, |d| d.as_secs_f64())
            })
        };
        g.oldest_pending.set(age(now.backlog.oldest_pending));
        g.overdue_games.set(now.backlog.overdue_games);
        g.sweeper_lag.set(age(now.backlog.oldest_overdue));
    }

    /// For series kept by other parts (the push worker's).
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The Prometheus text exposition format.
    pub fn render(&self) -> Result<String, prometheus::Error> {
        let mut out = Vec::new();
        prometheus::TextEncoder::new().encode(&self.registry.gather(), &mut out)?;
        String::from_utf8(out).map_err(|e| prometheus::Error::Msg(e.to_string()))
    }
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_all_series() {
        let m = Metrics::new().expect("metrics");
        m.http_request("GET", "/healthz", 200, Duration::from_millis(3));
        m.action_applied();
        m.version_conflict();
        let text = m.render().expect("render");
        assert!(text.contains(
            r#"racko_http_requests_total{method="GET",route="/healthz",status="200"} 1"#
        ));
        assert!(text.contains("racko_actions_applied_total 1"));
        assert!(text.contains("racko_version_conflicts_total 1"));
        assert!(text.contains("racko_http_request_duration_seconds_bucket"));
    }

    #[test]
    fn the_gauges_show_the_moment_of_the_scrape() {
        let m = Metrics::new().expect("metrics");
        let at = Utc::now();
        m.observe_now(&Now {
            at,
            streams_open: 3,
            pool: PoolUsage {
                open: 4,
                idle: 1,
                max: 10,
            },
            backlog: Backlog {
                deliveries: vec![("pending".into(), 5), ("delivered".into(), 7)],
                oldest_pending: Some(at - chrono::Duration::seconds(90)),
                overdue_games: 2,
                oldest_overdue: Some(at - chrono::Duration::seconds(4)),
            },
        });
        let text = m.render().expect("render");
        for line in [
            "racko_streams_open 3",
            r#"racko_db_pool_connections{state="busy"} 3"#,
            r#"racko_db_pool_connections{state="max"} 10"#,
            r#"racko_webhook_deliveries{status="pending"} 5"#,
            r#"racko_webhook_deliveries{status="failed"} 0"#,
            "racko_webhook_oldest_pending_seconds 90",
            "racko_sweeper_overdue_games 2",
            "racko_sweeper_lag_seconds 4",
        ] {
            assert!(text.contains(line), "{line} in {text}");
        }
    }
}
