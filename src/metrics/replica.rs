//! The read replica's series: the reads that may go to it, by where they went, and its lag.

use prometheus::{Gauge, IntCounterVec, Opts, Registry};

use crate::store::ReplicaReads;

#[derive(Clone)]
pub(super) struct ReplicaSeries {
    reads: IntCounterVec,
    lag: Gauge,
}

impl ReplicaSeries {
    pub(super) fn new(registry: &Registry) -> Result<ReplicaSeries, prometheus::Error> {
        let series = ReplicaSeries {
            reads: IntCounterVec::new(
                Opts::new(
                    "racko_db_replica_reads_total",
                    "Reads the read replica may answer, by the database that answered them \
                     (primary: the replica lagged, had not caught up with the caller, or failed)",
                ),
                &["target"],
            )?,
            lag: Gauge::new(
                "racko_db_replica_lag_seconds",
                "How far the read replica was behind the primary at its last check",
            )?,
        };
        registry.register(Box::new(series.reads.clone()))?;
        registry.register(Box::new(series.lag.clone()))?;
        Ok(series)
    }

    /// The store's counts (it keeps its own, as for statements).
    pub(super) fn observe(&self, reads: &ReplicaReads) {
        for (target, count) in [("replica", reads.to_replica), ("primary", reads.to_primary)] {
            let counter = self.reads.with_label_values(&[target]);
            counter.reset();
            counter.inc_by(count);
        }
        self.lag.set(reads.lag_seconds);
    }
}
