//! Server configuration: command-line flags, each with an environment variable behind it
//! (`clap` with `env`), validated once into a [`Config`]. Secrets are wrapped in [`Secret`] so
//! that neither `Debug` nor a log line can print them.

use std::time::Duration;

use clap::{Args, ValueEnum};

mod push;
mod replica;
mod secret;
mod streams;
mod webhooks;
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
    #[arg(global = true, long, env = "RACKO_POOL_SIZE", default_value_t = 10)]
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
            pool_size: 10,
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
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: ConfigArgs,
    }

    // Flags only: clap reads the environment too, so each test sets every flag it relies on.
    fn parse(flags: &[&str]) -> Result<Config, ConfigError> {
        let cli = Cli::try_parse_from(std::iter::once("racko").chain(flags.iter().copied()))
            .expect("flags parse");
        Config::from_args(cli.args)
    }

    // Random hex of 32 bytes, as `openssl rand -hex 32` prints.
    const SECRET: &str = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

    #[test]
    fn production_without_secret_is_refused() {
        let c = Config {
            environment: Environment::Production,
            ..Config::defaults()
        };
        assert_eq!(c.validate().unwrap_err(), ConfigError::MissingSecret);
    }

    #[test]
    fn production_with_secret_is_accepted() {
        let c = parse(&["--env", "production", "--jwt-secret", SECRET]).expect("valid");
        assert_eq!(c.environment, Environment::Production);
    }

    #[test]
    fn short_secret_is_refused() {
        let c = Config {
            jwt_secret: Some(Secret::new("short")),
            ..Config::defaults()
        };
        assert_eq!(c.validate().unwrap_err(), ConfigError::ShortSecret);
    }

    #[test]
    fn patterned_secrets_are_refused_with_their_estimate() {
        for weak in [" ".repeat(40), "a".repeat(64), "0123".repeat(10)] {
            let c = Config {
                jwt_secret: Some(Secret::new(weak.clone())),
                ..Config::defaults()
            };
            let e = c.validate().unwrap_err();
            assert!(
                matches!(e, ConfigError::WeakSecret { bits, .. } if bits < 128),
                "{weak:?}"
            );
            assert!(e.to_string().contains("openssl rand -hex 32"), "{e}");
        }
    }

    #[test]
    fn the_documented_command_is_accepted() {
        // What `RACKO_JWT_SECRET=$(openssl rand -hex 32)` passes, through the flag's parser.
        for _ in 0..1000 {
            let secret = hex::encode(rand::random::<[u8; 32]>());
            let c = parse(&["--env", "production", "--jwt-secret", &secret]);
            assert!(c.is_ok(), "{secret}: {:?}", c.err());
        }
    }

    #[test]
    fn test_mode_in_production_is_refused() {
        let err =
            parse(&["--env", "production", "--jwt-secret", SECRET, "--test-mode"]).unwrap_err();
        assert_eq!(err, ConfigError::TestModeInProduction);
    }

    #[test]
    fn private_webhooks_in_production_are_refused() {
        let flags = [
            "--env",
            "production",
            "--jwt-secret",
            SECRET,
            "--webhooks-allow-private",
        ];
        let err = parse(&flags).unwrap_err();
        assert_eq!(err, ConfigError::PrivateWebhooksInProduction);
        assert!(
            err.to_string().contains("RACKO_WEBHOOKS_ALLOW_PRIVATE"),
            "{err}"
        );
        let dev = parse(&["--webhooks-allow-private"]).expect("valid in development");
        assert!(dev.webhooks_allow_private);
    }

    #[test]
    fn test_mode_in_development_is_accepted() {
        let c = Config {
            test_mode: true,
            ..Config::defaults()
        };
        assert!(c.validate().is_ok());
    }

    #[test]
    fn unset_database_url_selects_embedded_sqlite() {
        let c = Config::defaults();
        assert_eq!(c.database_url(), DEFAULT_SQLITE_PATH);
        let blank = Config::from_args(ConfigArgs {
            database_url: Some("  ".into()),
            ..args()
        })
        .expect("valid");
        assert_eq!(blank.database_url(), DEFAULT_SQLITE_PATH);
    }

    #[test]
    fn database_url_is_passed_through() {
        let url = "postgres://racko@localhost/racko";
        let c = parse(&["--database-url", url]).expect("valid");
        assert_eq!(c.database_url(), url);
        let c = parse(&["--database-url", "sqlite://data/x.sqlite3"]).expect("valid");
        assert_eq!(c.database_url(), "sqlite://data/x.sqlite3");
    }

    #[test]
    fn zero_pool_is_refused() {
        let err = Config::from_args(ConfigArgs {
            pool_size: 0,
            ..args()
        })
        .unwrap_err();
        assert_eq!(err, ConfigError::Zero("RACKO_POOL_SIZE"));
    }

    #[test]
    fn debug_never_shows_the_secret() {
        let c = Config {
            jwt_secret: Some(Secret::new(SECRET)),
            ..Config::defaults()
        };
        let shown = format!("{c:?}");
        assert!(!shown.contains(SECRET), "{shown}");
        assert!(shown.contains("redacted"));
    }

    fn args() -> ConfigArgs {
        ConfigArgs {
            environment: Environment::Development,
            database_url: None,
            replica: ReplicaArgs {
                read_database_url: None,
                read_max_lag_ms: 5000,
            },
            bind: "127.0.0.1:0".into(),
            jwt_secret: None,
            token_ttl_secs: DEFAULT_TOKEN_TTL_SECS,
            session_ttl_secs: DEFAULT_SESSION_TTL_SECS,
            test_mode: false,
            max_body_bytes: 1024,
            pool_size: 2,
            log_format: LogFormat::Text,
            workers: None,
            auth_burst: DEFAULT_AUTH_BURST,
            auth_per_minute: DEFAULT_AUTH_PER_MINUTE,
            behind_proxy: false,
            metrics_token: None,
            idempotency_ttl_secs: DEFAULT_IDEMPOTENCY_TTL_SECS,
            db_lock_timeout_ms: 2000,
            db_statement_timeout_ms: 10_000,
            db_connect_timeout_ms: 2000,
            cors_origins: None,
            webhooks_allow_private: false,
            webhook_timeout_secs: 10,
            reminder_lead_secs: 21_600,
            streams_per_account: 16,
            streams_per_address: 64,
            streams_max: None,
            stream_drop_after_secs: 60,
            push: PushArgs::default(),
        }
    }

    #[test]
    fn database_waits_are_read_and_zero_is_refused() {
        let c = parse(&["--db-lock-timeout-ms", "1500"]).expect("valid");
        assert_eq!(c.db_waits.lock, Duration::from_millis(1500));
        assert_eq!(c.db_waits.statement, Duration::from_secs(10));
        assert_eq!(
            parse(&["--db-connect-timeout-ms", "0"]).err(),
            Some(ConfigError::Zero("RACKO_DB_CONNECT_TIMEOUT_MS"))
        );
    }

    #[test]
    fn cors_origins_are_read_as_a_comma_separated_list() {
        let c = parse(&[
            "--cors-origins",
            " https://App.example.com , http://localhost:5173,",
        ])
        .expect("valid");
        assert_eq!(
            c.cors_origins,
            ["https://app.example.com", "http://localhost:5173"]
        );
        assert!(parse(&[]).expect("valid").cors_origins.is_empty());
        let v6 = parse(&["--cors-origins", "http://[::1]:8000"]).expect("valid");
        assert_eq!(v6.cors_origins, ["http://[::1]:8000"]);
    }

    #[test]
    fn malformed_cors_origins_are_refused_with_the_culprit() {
        for bad in [
            "*",
            "app.example.com",
            "https://app.example.com/",
            "https://app.example.com/path",
            "ftp://app.example.com",
            "https://",
            "https://app.example.com:0",
            "https://app.example.com:99999",
            "https://user@app.example.com",
            "https://app example.com",
            "null",
        ] {
            let err = parse(&["--cors-origins", bad]).unwrap_err();
            assert!(
                matches!(&err, ConfigError::CorsOrigin(o, _) if o == bad),
                "{bad}: {err:?}"
            );
            assert!(err.to_string().contains("RACKO_CORS_ORIGINS"), "{err}");
        }
    }

    #[test]
    fn the_sign_in_limit_can_be_turned_off_but_not_to_a_zero_burst() {
        let off = parse(&["--auth-per-minute", "0"]).expect("valid");
        assert_eq!(off.auth_per_minute, 0);
        let err = parse(&["--auth-burst", "0"]).unwrap_err();
        assert_eq!(err, ConfigError::Zero("RACKO_AUTH_BURST"));
    }

    #[test]
    fn debug_never_shows_the_metrics_token() {
        let c = parse(&["--metrics-token", SECRET]).expect("valid");
        let shown = format!("{c:?}");
        assert!(!shown.contains(SECRET), "{shown}");
        assert!(c.metrics_token.is_some());
    }
}
