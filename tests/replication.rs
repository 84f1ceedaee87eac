//! PostgreSQL replication under a real `racko serve`: a standby that takes over when the
//! primary is killed (`failover`), and a read replica that never hides a caller's own writes
//! (`replica`). Each test starts the servers it needs (`common::replicated`).

#[macro_use]
#[path = "common/mod.rs"]
mod common;
#[path = "replication/failover.rs"]
mod failover;
#[path = "replication/play.rs"]
mod play;
#[path = "replication/replica.rs"]
mod replica;
