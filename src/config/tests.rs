//! Configuration as flags and checks read it.

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
    let err = parse(&["--env", "production", "--jwt-secret", SECRET, "--test-mode"]).unwrap_err();
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
