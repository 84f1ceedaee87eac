//! The push worker's series in `/metrics`: attempts by provider and outcome, and the outbox's
//! pending pushes with the age of the oldest (read by the worker every few seconds).

use chrono::{DateTime, Utc};
use prometheus::{Gauge, IntCounterVec, IntGauge, Opts};

#[derive(Clone)]
pub struct PushMetrics {
    sent: IntCounterVec,
    pending: IntGauge,
    oldest: Gauge,
}

impl PushMetrics {
    pub fn new(metrics: &crate::metrics::Metrics) -> Result<PushMetrics, prometheus::Error> {
        let push = PushMetrics {
            sent: IntCounterVec::new(
                Opts::new(
                    "racko_push_deliveries_total",
                    "Push attempts by provider (web_push, apns, fcm) and outcome (delivered, \
                     retry, refused, gone)",
                ),
                &["provider", "outcome"],
            )?,
            pending: IntGauge::new("racko_push_pending", "Pushes waiting in the outbox")?,
            oldest: Gauge::new(
                "racko_push_oldest_pending_seconds",
                "Age of the oldest pending push (0: none)",
            )?,
        };
        let registry = metrics.registry();
        registry.register(Box::new(push.sent.clone()))?;
        registry.register(Box::new(push.pending.clone()))?;
        registry.register(Box::new(push.oldest.clone()))?;
        Ok(push)
    }

    pub fn sent(&self, provider: &str, outcome: &str) {
        self.sent.with_label_values(&[provider, outcome]).inc();
    }

    /// The outbox as the store counted it: pending pushes and when the oldest was made.
    pub fn backlog(&self, (pending, oldest): (i64, Option<DateTime<Utc>>)) {
        self.pending.set(pending);
        let age = oldest.map_or(0.0, |t| {
            (Utc::now() - t).to_std().map_or(0.0, |d| d.as_secs_f64())
        });
        self.oldest.set(age);
    }
}
