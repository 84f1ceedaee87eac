//! Prometheus metrics, served as text on `GET /metrics`. One registry per application, so
//! servers started side by side in tests do not share counters.

use std::time::Duration;

use prometheus::{Encoder, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, Opts, Registry};

#[derive(Clone)]
pub struct Metrics {
    registry: Registry,
    http_requests: IntCounterVec,
    http_latency: HistogramVec,
    actions_applied: IntCounter,
    version_conflicts: IntCounter,
    db_statements: IntCounter,
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
        registry.register(Box::new(db_statements.clone()))?;
        registry.register(Box::new(http_requests.clone()))?;
        registry.register(Box::new(http_latency.clone()))?;
        registry.register(Box::new(actions_applied.clone()))?;
        registry.register(Box::new(version_conflicts.clone()))?;
        Ok(Metrics {
            registry,
            http_requests,
            http_latency,
            actions_applied,
            version_conflicts,
            db_statements,
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

    /// The store's count of statements sent (it keeps its own; the counter shows it).
    pub fn db_statements(&self, total: u64) {
        self.db_statements.reset();
        self.db_statements.inc_by(total);
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
}
