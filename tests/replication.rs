//! PostgreSQL replication under a real `racko serve`: a standby that takes over when the
//! primary is killed (`failover`: the test promotes a streaming standby; `auto_failover`:
//! pg_auto_failover's monitor does), and a read replica that never hides a caller's own writes
//! (`replica`). Each test starts the servers it needs (`common::replicated`,
//! `common::autoctl`).

#[macro_use]
#[path = "common/mod.rs"]
mod common;
#[path = "replication/auto_failover.rs"]
mod auto_failover;
#[path = "replication/failover.rs"]
mod failover;
#[path = "replication/play.rs"]
mod play;
#[path = "replication/replica.rs"]
mod replica;
