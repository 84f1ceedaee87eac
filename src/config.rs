//! Server configuration: command-line flags, each with an environment variable behind it
//! (`clap` with `env`), validated once into a [`Config`]. Secrets are wrapped in [`Secret`] so
//! that neither `Debug` nor a log line can print them.

use std::time::Duration;

use clap::ValueEnum;

mod args;
mod push;
mod replica;
mod secret;
mod streams;
mod webhooks;
pub use args::ConfigArgs;
pub use push::{ApnsKey, PushArgs, PushConfig};
pub use replica::{ReadReplica, ReplicaArgs};
pub use secret::{strength, Secret, Strength, MIN_SECRET_BITS};
pub use streams::StreamLimits;
pub use webhooks::{HostLookup, SystemLookup, WebhookLookup};

/// Where the embedded store lives when `DATABASE_URL` is unset (relative to the working folder).
pub const DEFAULT_SQLITE_PATH: &str = "racko-data/racko.sqlite3";
/// An access token lives a quarter of an hour: a stolen one is soon useless, and the client
/// gets the next with its refresh token.
pub const DEFAULT_TOKEN_TTL_SECS: u64 = 15 * 60;
/// Database connections per process. Writers that wait for a connection cannot join the
/// statement other games' writers share (`store::pg_batch`), so the pool should hold the
/// requests in flight: at 50 busy games, 10 connections made 3 writes per commit, 32 made 7
/// and cost PostgreSQL a fifth less CPU per action. Opened as needed.
pub const DEFAULT_POOL_SIZE: u32 = 32;
/// Play-by-mail: a session unused for three months ends; each refresh starts the time again.
pub const DEFAULT_SESSION_TTL_SECS: u64 = 90 * 24 * 60 * 60;
/// Ten years: longer lifetimes are surely a mistake (and overflow date arithmetic).
pub const MAX_TOKEN_TTL_SECS: u64 = 10 * 366 * 24 * 60 * 60;
/// A family's worth of sign-ins at once, then one every two seconds per address.
pub const DEFAULT_AUTH_BURST: u32 = 20;
pub const DEFAULT_AUTH_PER_MINUTE: u32 = 30;
/// HS256 keys shorter than the hash output are weak (RFC 7518 §3.2).
pub const MIN_SECRET_BYTES: usize = 32;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Environment {
    Development,
    Production,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

/// A day: longer than any client's retry loop, short enough that the keys do not pile up.
pub const DEFAULT_IDEMPOTENCY_TTL_SECS: u64 = 24 * 3600;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ConfigError {
    #[error("RACKO_JWT_SECRET is required in production")]
    MissingSecret,
    #[error("RACKO_JWT_SECRET must be at least {MIN_SECRET_BYTES} bytes")]
    ShortSecret,
    #[error(
        "RACKO_JWT_SECRET holds about {bits} bits of randomness (judged as {alphabet}, with \
         repetitions counted once), fewer than the {MIN_SECRET_BITS} needed; use random bytes, \
         e.g. `openssl rand -hex 32`"
    )]
    WeakSecret { bits: u32, alphabet: &'static str },
    #[error("RACKO_TEST_MODE cannot be used in production")]
    TestModeInProduction,
    #[error(
        "RACKO_WEBHOOKS_ALLOW_PRIVATE cannot be used in production: it lets any account make \
         the server call internal addresses"
    )]
    PrivateWebhooksInProduction,
    #[error(
        "RACKO_PUSH_ALLOW_HTTP cannot be used in production: Web Push payloads would cross the \
         network in the clear"
    )]
    HttpPushInProduction,
    #[error("RACKO_TOKEN_TTL_SECS must be at most {MAX_TOKEN_TTL_SECS}")]
    LongTtl,
    #[error("RACKO_SESSION_TTL_SECS must be at most {MAX_TOKEN_TTL_SECS}")]
    LongSessionTtl,
    #[error("{0} must be greater than zero")]
    Zero(&'static str),
    #[error("RACKO_CORS_ORIGINS: {0:?} is not an origin ({1}); write scheme://host[:port] with no path, e.g. https://app.example.com")]
    CorsOrigin(String, &'static str),
}

/// Refuses a secret below [`MIN_SECRET_BITS`] by the estimate of [`strength`].
fn judge(secret: &str) -> Result<(), ConfigError> {
    let Strength { bits, alphabet } = strength(secret);
    if bits >= f64::from(MIN_SECRET_BITS) {
        return Ok(());
    }
    Err(ConfigError::WeakSecret {
        // Rounded down, so the message never claims the threshold was reached.
        bits: bits.floor() as u32,
        alphabet,
    })
}

/// The validated configuration.
#[derive(Clone, Debug)]
pub struct Config {
    pub environment: Environment,
    /// None: the embedded SQLite store at [`DEFAULT_SQLITE_PATH`].
    pub database_url: Option<String>,
    /// A hot standby for the reads that do not need the primary.
    pub read_replica: Option<ReadReplica>,
    pub bind: String,
    pub jwt_secret: Option<Secret>,
    /// An access token's life.
    pub token_ttl: Duration,
    /// How long a session lasts unused.
    pub session_ttl: Duration,
    pub test_mode: bool,
    pub max_body_bytes: usize,
    pub pool_size: u32,
    /// How long a request may wait for the database (locks, statements, connections).
    pub db_waits: crate::store::Waits,
    pub log_format: LogFormat,
    /// How long a graceful shutdown waits for requests in flight.
    pub shutdown_timeout: Duration,
    /// HTTP worker threads; None: one per CPU.
    pub workers: Option<usize>,
    pub auth_burst: u32,
    /// 0: no limit on the credential endpoints.
    pub auth_per_minute: u32,
    pub behind_proxy: bool,
    pub metrics_token: Option<Secret>,
    pub idempotency_ttl: Duration,
    /// How often each process sweeps expired records (not an option: tests shorten it).
    pub housekeeping_every: Duration,
    /// Exact origins allowed to call from a browser (CORS), lowercase; empty: CORS is off.
    pub cors_origins: Vec<String>,
    /// A comment line on idle Server-Sent Event streams this often (not an option: tests
    /// shorten it).
    pub stream_heartbeat: Duration,
    pub webhooks_allow_private: bool,
    pub webhook_timeout: Duration,
    /// How webhook host names are resolved (not an option: the system resolver; tests give
    /// their own).
    pub webhook_lookup: WebhookLookup,
    /// How often an idle webhook worker looks for due deliveries (not an option).
    pub webhook_poll: Duration,
    /// The pause after a delivery's first failed attempt, doubled after each (not an option).
    pub webhook_retry_base: Duration,
    /// How long a delivery is retried (not an option: 24 h; tests shorten it).
    pub webhook_retry_for: Duration,
    /// How often each process's sweeper looks for due games besides its own wake-ups
    /// (deadlines; other processes' changes). Not an option.
    pub sweep_every: Duration,
    /// How long before a deadline its player is reminded.
    pub reminder_lead: Duration,
    /// Bounds on open streams and long-polls.
    pub stream_limits: StreamLimits,
    pub push: PushConfig,
}

impl Config {
    /// Development defaults, as if no flag or variable were set.
    pub fn defaults() -> Config {
        Config {
            environment: Environment::Development,
            database_url: None,
            read_replica: None,
            bind: "127.0.0.1:8080".to_string(),
            jwt_secret: None,
            token_ttl: Duration::from_secs(DEFAULT_TOKEN_TTL_SECS),
            session_ttl: Duration::from_secs(DEFAULT_SESSION_TTL_SECS),
            test_mode: false,
            max_body_bytes: 64 * 1024,
            pool_size: DEFAULT_POOL_SIZE,
            db_waits: crate::store::Waits::default(),
            log_format: LogFormat::Text,
            shutdown_timeout: Duration::from_secs(30),
            workers: None,
            auth_burst: DEFAULT_AUTH_BURST,
            auth_per_minute: DEFAULT_AUTH_PER_MINUTE,
            behind_proxy: false,
            metrics_token: None,
            idempotency_ttl: Duration::from_secs(DEFAULT_IDEMPOTENCY_TTL_SECS),
            housekeeping_every: Duration::from_secs(60),
            cors_origins: Vec::new(),
            stream_heartbeat: Duration::from_secs(15),
            webhooks_allow_private: false,
            webhook_timeout: Duration::from_secs(10),
            webhook_lookup: WebhookLookup::default(),
            webhook_poll: Duration::from_millis(500),
            webhook_retry_base: Duration::from_secs(5),
            webhook_retry_for: Duration::from_secs(24 * 3600),
            sweep_every: Duration::from_secs(1),
            reminder_lead: crate::store::DEFAULT_REMINDER_LEAD,
            stream_limits: StreamLimits {
                per_account: 16,
                per_address: 64,
                total: streams::default_total(),
                drop_after: Duration::from_secs(60),
            },
            push: PushConfig::default(),
        }
    }

    pub fn from_args(args: ConfigArgs) -> Result<Config, ConfigError> {
        Config {
            environment: args.environment,
            database_url: args.database_url.filter(|url| !url.trim().is_empty()),
            read_replica: args.replica.replica(),
            bind: args.bind,
            jwt_secret: args.jwt_secret,
            token_ttl: Duration::from_secs(args.token_ttl_secs),
            session_ttl: Duration::from_secs(args.session_ttl_secs),
            test_mode: args.test_mode,
            max_body_bytes: args.max_body_bytes,
            pool_size: args.pool_size,
            db_waits: crate::store::Waits {
                lock: Duration::from_millis(args.db_lock_timeout_ms),
                statement: Duration::from_millis(args.db_statement_timeout_ms),
                connect: Duration::from_millis(args.db_connect_timeout_ms),
            },
            log_format: args.log_format,
            workers: args.workers,
            auth_burst: args.auth_burst,
            auth_per_minute: args.auth_per_minute,
            behind_proxy: args.behind_proxy,
            metrics_token: args.metrics_token.filter(|t| !t.expose().is_empty()),
            idempotency_ttl: Duration::from_secs(args.idempotency_ttl_secs),
            webhooks_allow_private: args.webhooks_allow_private,
            webhook_timeout: Duration::from_secs(args.webhook_timeout_secs),
            push: args.push.into_config(),
            reminder_lead: Duration::from_secs(args.reminder_lead_secs),
            stream_limits: StreamLimits {
                per_account: args.streams_per_account.max(1),
                per_address: args.streams_per_address.max(1),
                total: args
                    .streams_max
                    .unwrap_or_else(streams::default_total)
                    .max(1),
                drop_after: Duration::from_secs(args.stream_drop_after_secs),
            },
            cors_origins: args
                .cors_origins
                .iter()
                .flat_map(|list| list.split(','))
                .map(str::trim)
                .filter(|o| !o.is_empty())
                .map(str::to_string)
                .collect(),
            ..Config::defaults()
        }
        .validate()
    }

    /// Refuses combinations that are unsafe or cannot work.
    pub fn validate(self) -> Result<Config, ConfigError> {
        let production = self.environment == Environment::Production;
        match &self.jwt_secret {
            None if production => return Err(ConfigError::MissingSecret),
            Some(s) if s.expose().len() < MIN_SECRET_BYTES => return Err(ConfigError::ShortSecret),
            Some(s) => judge(s.expose())?,
            None => {}
        }
        if production && self.test_mode {
            return Err(ConfigError::TestModeInProduction);
        }
        if production && self.webhooks_allow_private {
            return Err(ConfigError::PrivateWebhooksInProduction);
        }
        if production && self.push.allow_http {
            return Err(ConfigError::HttpPushInProduction);
        }
        if self.idempotency_ttl.is_zero() {
            return Err(ConfigError::Zero("RACKO_IDEMPOTENCY_TTL_SECS"));
        }
        if self.webhook_timeout.is_zero() {
            return Err(ConfigError::Zero("RACKO_WEBHOOK_TIMEOUT_SECS"));
        }
        if self.token_ttl.is_zero() {
            return Err(ConfigError::Zero("RACKO_TOKEN_TTL_SECS"));
        }
        if self.session_ttl.is_zero() {
            return Err(ConfigError::Zero("RACKO_SESSION_TTL_SECS"));
        }
        if self.session_ttl > Duration::from_secs(MAX_TOKEN_TTL_SECS) {
            return Err(ConfigError::LongSessionTtl);
        }
        if self.max_body_bytes == 0 {
            return Err(ConfigError::Zero("RACKO_MAX_BODY_BYTES"));
        }
        if self.pool_size == 0 {
            return Err(ConfigError::Zero("RACKO_POOL_SIZE"));
        }
        let waits = [
            (self.db_waits.lock, "RACKO_DB_LOCK_TIMEOUT_MS"),
            (self.db_waits.statement, "RACKO_DB_STATEMENT_TIMEOUT_MS"),
            (self.db_waits.connect, "RACKO_DB_CONNECT_TIMEOUT_MS"),
        ];
        if let Some((_, name)) = waits.iter().find(|(wait, _)| wait.is_zero()) {
            return Err(ConfigError::Zero(name));
        }
        if self.auth_burst == 0 {
            return Err(ConfigError::Zero("RACKO_AUTH_BURST"));
        }
        if self.workers == Some(0) {
            return Err(ConfigError::Zero("RACKO_WORKERS"));
        }
        if self.token_ttl > Duration::from_secs(MAX_TOKEN_TTL_SECS) {
            return Err(ConfigError::LongTtl);
        }
        let cors_origins = self
            .cors_origins
            .iter()
            .map(|o| origin(o).map_err(|why| ConfigError::CorsOrigin(o.clone(), why)))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Config {
            cors_origins,
            ..self
        })
    }

    /// The URL handed to `Store::open`: `DATABASE_URL`, or the embedded SQLite file's path.
    pub fn database_url(&self) -> String {
        self.database_url
            .clone()
            .unwrap_or_else(|| DEFAULT_SQLITE_PATH.to_string())
    }
}

/// An origin as a browser sends it in `Origin`: `http` or `https`, `://`, a host (a name, an
/// IPv4 address or a bracketed IPv6 one) and an optional port; nothing else. Lowercased.
fn origin(value: &str) -> Result<String, &'static str> {
    let lower = value.trim().to_ascii_lowercase();
    let rest = lower
        .strip_prefix("https://")
        .or_else(|| lower.strip_prefix("http://"))
        .ok_or("the scheme must be http:// or https://")?;
    if rest.contains(['/', '?', '#']) {
        return Err("an origin has no path, query or trailing slash");
    }
    if rest.contains('@') {
        return Err("an origin has no user name");
    }
    let (host, port) = match rest.strip_prefix('[') {
        Some(v6) => {
            let (addr, after) = v6.split_once(']').ok_or("unclosed [ in the host")?;
            if addr.parse::<std::net::Ipv6Addr>().is_err() {
                return Err("not an IPv6 address in [ ]");
            }
            let port = match after {
                "" => None,
                p => Some(p.strip_prefix(':').ok_or("junk after the host")?),
            };
            ("ipv6", port)
        }
        None => match rest.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (rest, None),
        },
    };
    let name_char = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '.';
    if host.is_empty() || !host.chars().all(name_char) || host.starts_with(['.', '-']) {
        return Err("the host must be a name or an address");
    }
    if let Some(port) = port {
        match port.parse::<u16>() {
            Ok(p) if p > 0 && !port.starts_with('0') => {}
            _ => return Err("the port must be a number from 1 to 65535"),
        }
    }
    Ok(lower)
}

#[cfg(test)]
mod tests;
