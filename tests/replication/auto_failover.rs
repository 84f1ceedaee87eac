//! Failover under pg_auto_failover: a monitor and two nodes run by `pg_autoctl` (the test's
//! own, `common::autoctl`), synchronous replication, and the URL `pg_autoctl show uri` gives.
//! Part-way through 16 games, the primary's keeper and PostgreSQL are killed with SIGKILL
//! (the machine died; killing PostgreSQL alone, its keeper would restart it); the monitor
//! sees the node gone and promotes the standby. The checks and figures are `failover`'s.

use std::sync::Arc;
use std::time::Instant;

use crate::common::autoctl::Formation;
use crate::common::db::{enabled, TestBackend};
use crate::failover::{one_failover, report, runs};

#[actix_web::test]
async fn the_monitor_promotes_the_standby_and_no_acknowledged_action_is_lost() {
    if !enabled(TestBackend::Postgres) {
        eprintln!("skipped: PostgreSQL is not in RACKO_TEST_BACKENDS");
        return;
    }
    let mut measured = Vec::new();
    for run in 0..runs() {
        let formation = Arc::new(Formation::start());
        let url = formation.url();
        let primary = formation.primary();
        let standby = 1 - primary;
        let failing = formation.clone();
        let fail = move || {
            let killed = Instant::now();
            failing.kill_9(primary);
            failing.wait_promoted(standby);
            (killed, Instant::now())
        };
        measured.push(one_failover("pg_auto_failover", run, &url, fail).await);
        assert_eq!(
            formation.query_node(standby, "SELECT pg_is_in_recovery()"),
            "f",
            "the standby is the primary now: {}",
            formation.states()
        );
    }
    report("failover (pg_auto_failover)", &measured);
}
