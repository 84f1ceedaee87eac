//! The optional read replica: a hot standby that answers the reads which do not need the
//! primary (`store::replica` decides, read by read).

use std::time::Duration;

use clap::Args;

/// The replica's flags, flattened into the server's.
#[derive(Args, Clone, Debug)]
pub struct ReplicaArgs {
    /// A hot standby (postgres://…) for replays, exports, verifications, event pages of
    /// finished games and the admin audit queries. Unset: every read goes to DATABASE_URL.
    #[arg(
        global = true,
        long,
        env = "RACKO_READ_DATABASE_URL",
        hide_env_values = true
    )]
    pub read_database_url: Option<String>,
    /// Past this lag, in ms, reads go to the primary instead of the replica.
    #[arg(
        global = true,
        long,
        env = "RACKO_READ_MAX_LAG_MS",
        default_value_t = 5000
    )]
    pub read_max_lag_ms: u64,
}

/// Where the replica is and how far behind it may be.
#[derive(Clone, Debug)]
pub struct ReadReplica {
    pub url: String,
    pub max_lag: Duration,
}

impl ReplicaArgs {
    pub fn replica(&self) -> Option<ReadReplica> {
        let url = self.read_database_url.as_deref().map(str::trim)?;
        (!url.is_empty()).then(|| ReadReplica {
            url: url.to_string(),
            max_lag: Duration::from_millis(self.read_max_lag_ms),
        })
    }
}
