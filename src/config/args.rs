//! The command line and environment a server is configured by.

use clap::Args;

use super::*;

/// The flags (and their environment variables) shared by the subcommands that touch the server.
#[derive(Args, Clone, Debug)]
pub struct ConfigArgs {
    /// development or production.
    #[arg(
        global = true,
        long = "env",
        env = "RACKO_ENV",
        value_enum,
        default_value = "development"
    )]
    pub environment: Environment,
    /// postgres://… (or libpq's host=… pairs; several hosts with
    /// target_session_attrs=read-write follow a failover) selects PostgreSQL; unset selects the
    /// embedded SQLite file racko-data/racko.sqlite3 (or give sqlite://PATH).
    #[arg(global = true, long, env = "DATABASE_URL", hide_env_values = true)]
    pub database_url: Option<String>,
    #[command(flatten)]
    pub replica: ReplicaArgs,
    /// Address to listen on.
    #[arg(
        global = true,
        long,
        env = "RACKO_BIND",
        default_value = "127.0.0.1:8080"
    )]
    pub bind: String,
    /// HS256 token secret, at least 32 bytes. Required in production; in development a secret
    /// is generated once and kept in the store.
    #[arg(global = true, long, env = "RACKO_JWT_SECRET", hide_env_values = true)]
    pub jwt_secret: Option<Secret>,
    /// Access token lifetime in seconds.
    #[arg(global = true, long, env = "RACKO_TOKEN_TTL_SECS", default_value_t = DEFAULT_TOKEN_TTL_SECS)]
    pub token_ttl_secs: u64,
    /// How long a session (its refresh token) lasts unused, in seconds; each refresh starts it
    /// again.
    #[arg(global = true, long, env = "RACKO_SESSION_TTL_SECS", default_value_t = DEFAULT_SESSION_TTL_SECS)]
    pub session_ttl_secs: u64,
    /// Test mode: allows stacked decks. Refused in production.
    #[arg(global = true, long, env = "RACKO_TEST_MODE", value_parser = clap::builder::BoolishValueParser::new())]
    pub test_mode: bool,
    /// Largest accepted request body.
    #[arg(global = true, long, env = "RACKO_MAX_BODY_BYTES", default_value_t = 64 * 1024)]
    pub max_body_bytes: usize,
    /// Database connections in the pool.
    #[arg(global = true, long, env = "RACKO_POOL_SIZE", default_value_t = DEFAULT_POOL_SIZE)]
    pub pool_size: u32,
    /// text or json.
    #[arg(
        global = true,
        long,
        env = "RACKO_LOG_FORMAT",
        value_enum,
        default_value = "text"
    )]
    pub log_format: LogFormat,
    /// HTTP worker threads (default: one per CPU).
    #[arg(global = true, long, env = "RACKO_WORKERS")]
    pub workers: Option<usize>,
    /// Tries a client address may make at once on sign-in, register, guests and upgrade.
    #[arg(global = true, long, env = "RACKO_AUTH_BURST", default_value_t = DEFAULT_AUTH_BURST)]
    pub auth_burst: u32,
    /// How fast those tries come back, per minute; 0 turns the limit off.
    #[arg(global = true, long, env = "RACKO_AUTH_PER_MINUTE", default_value_t = DEFAULT_AUTH_PER_MINUTE)]
    pub auth_per_minute: u32,
    /// Behind a reverse proxy: take the client address from the last X-Forwarded-For entry.
    #[arg(global = true, long, env = "RACKO_BEHIND_PROXY", value_parser = clap::builder::BoolishValueParser::new())]
    pub behind_proxy: bool,
    /// When set, GET /metrics needs `Authorization: Bearer <this token>`.
    #[arg(
        global = true,
        long,
        env = "RACKO_METRICS_TOKEN",
        hide_env_values = true
    )]
    pub metrics_token: Option<Secret>,
    /// How long the answer to a request with an Idempotency-Key is kept: a retry within it gets
    /// the first answer, a retry after it is a new request.
    #[arg(global = true, long, env = "RACKO_IDEMPOTENCY_TTL_SECS", default_value_t = DEFAULT_IDEMPOTENCY_TTL_SECS)]
    pub idempotency_ttl_secs: u64,
    /// Longest wait, in ms, for a lock: a game another change holds (PostgreSQL row lock, the
    /// SQLite file's write lock). Past it the request answers 409 `game_busy`.
    #[arg(
        global = true,
        long,
        env = "RACKO_DB_LOCK_TIMEOUT_MS",
        default_value_t = 2000
    )]
    pub db_lock_timeout_ms: u64,
    /// Longest run, in ms, of one SQL statement (PostgreSQL). Past it: 503 `busy`.
    #[arg(
        global = true,
        long,
        env = "RACKO_DB_STATEMENT_TIMEOUT_MS",
        default_value_t = 10_000
    )]
    pub db_statement_timeout_ms: u64,
    /// Longest wait, in ms, for a database connection (a new one, or a free one from the
    /// pool). Past it: 503 `store_unavailable` (database down) or `busy` (all in use).
    #[arg(
        global = true,
        long,
        env = "RACKO_DB_CONNECT_TIMEOUT_MS",
        default_value_t = 2000
    )]
    pub db_connect_timeout_ms: u64,
    /// Web origins allowed to call the API from a browser (CORS), comma-separated exact
    /// origins such as `https://app.example.com,http://localhost:5173`. Unset: no CORS headers.
    #[arg(global = true, long, env = "RACKO_CORS_ORIGINS")]
    pub cors_origins: Option<String>,
    /// Allow webhook URLs that resolve to loopback, private, link-local or other special-purpose
    /// addresses (tests, a private deployment). Off: such URLs are refused. Refused in
    /// production.
    #[arg(global = true, long, env = "RACKO_WEBHOOKS_ALLOW_PRIVATE", value_parser = clap::builder::BoolishValueParser::new())]
    pub webhooks_allow_private: bool,
    /// Seconds a webhook receiver has to answer a delivery.
    #[arg(
        global = true,
        long,
        env = "RACKO_WEBHOOK_TIMEOUT_SECS",
        default_value_t = 10
    )]
    pub webhook_timeout_secs: u64,
    /// Seconds before a turn's deadline that its player gets a "deadline near" feed item and
    /// webhook (at most half the game's turn time).
    #[arg(
        global = true,
        long,
        env = "RACKO_REMINDER_LEAD_SECS",
        default_value_t = 21_600
    )]
    pub reminder_lead_secs: u64,
    /// Open streams and long-polls one account may hold in one process.
    #[arg(
        global = true,
        long,
        env = "RACKO_STREAMS_PER_ACCOUNT",
        default_value_t = 16
    )]
    pub streams_per_account: usize,
    /// Open streams and long-polls one client address may hold in one process.
    #[arg(
        global = true,
        long,
        env = "RACKO_STREAMS_PER_ADDRESS",
        default_value_t = 64
    )]
    pub streams_per_address: usize,
    /// Open streams and long-polls of one process in all (default: three quarters of its
    /// open-files limit, less 64).
    #[arg(global = true, long, env = "RACKO_STREAMS_MAX")]
    pub streams_max: Option<usize>,
    /// Seconds a stream's client may take no bytes before it is disconnected (1..=3600).
    #[arg(
        global = true,
        long,
        env = "RACKO_STREAM_DROP_AFTER_SECS",
        default_value_t = 60,
        value_parser = clap::value_parser!(u64).range(1..=3600)
    )]
    pub stream_drop_after_secs: u64,
    #[command(flatten)]
    pub push: PushArgs,
}
