//! Push notification settings: the Web Push VAPID key, the APNs provider key and the FCM
//! service account, and every provider's base URL (tests and private relays point them
//! elsewhere). A provider without its key is not pushed to; devices for it are refused.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::Secret;

pub const APNS_URL: &str = "https://api.push.apple.com";
pub const APNS_SANDBOX_URL: &str = "https://api.sandbox.push.apple.com";
pub const FCM_URL: &str = "https://fcm.googleapis.com";

#[derive(Args, Clone, Debug)]
pub struct PushArgs {
    /// Web Push: the VAPID private key (RFC 8292), the 32 bytes of a P-256 key in base64url.
    /// Unset: in development one is generated once and kept in the store; in production Web
    /// Push is off.
    #[arg(
        global = true,
        long,
        env = "RACKO_VAPID_PRIVATE_KEY",
        hide_env_values = true
    )]
    pub vapid_private_key: Option<Secret>,
    /// Web Push: the contact in every VAPID token (`mailto:` or `https:`).
    #[arg(global = true, long, env = "RACKO_VAPID_SUBJECT")]
    pub vapid_subject: Option<String>,
    /// APNs: the provider token's signing key (the `.p8` file from Apple).
    #[arg(global = true, long, env = "RACKO_APNS_KEY_FILE")]
    pub apns_key_file: Option<PathBuf>,
    /// APNs: the key's id (10 characters).
    #[arg(global = true, long, env = "RACKO_APNS_KEY_ID")]
    pub apns_key_id: Option<String>,
    /// APNs: the team id (10 characters).
    #[arg(global = true, long, env = "RACKO_APNS_TEAM_ID")]
    pub apns_team_id: Option<String>,
    /// APNs: the production base URL.
    #[arg(global = true, long, env = "RACKO_APNS_URL")]
    pub apns_url: Option<String>,
    /// APNs: the sandbox (development) base URL.
    #[arg(global = true, long, env = "RACKO_APNS_SANDBOX_URL")]
    pub apns_sandbox_url: Option<String>,
    /// FCM HTTP v1: the service account key file (JSON from the Firebase console).
    #[arg(global = true, long, env = "RACKO_FCM_SERVICE_ACCOUNT_FILE")]
    pub fcm_service_account_file: Option<PathBuf>,
    /// FCM: the base URL of `projects/{id}/messages:send`.
    #[arg(global = true, long, env = "RACKO_FCM_URL")]
    pub fcm_url: Option<String>,
    /// Seconds a push service has to answer.
    #[arg(global = true, long, env = "RACKO_PUSH_TIMEOUT_SECS", default_value_t = 10,
          value_parser = clap::value_parser!(u64).range(1..=300))]
    pub push_timeout_secs: u64,
    /// Accept Web Push endpoints over plain http (a local push service in tests and
    /// development). Off: endpoints must be https. Refused in production.
    #[arg(global = true, long, env = "RACKO_PUSH_ALLOW_HTTP",
          value_parser = clap::builder::BoolishValueParser::new())]
    pub push_allow_http: bool,
    /// A PEM root certificate trusted besides the system's, for APNs and FCM (a private relay).
    #[arg(global = true, long, env = "RACKO_PUSH_CA_FILE")]
    pub push_ca_file: Option<PathBuf>,
}

/// The APNs provider key.
#[derive(Clone, Debug)]
pub struct ApnsKey {
    pub key_file: PathBuf,
    pub key_id: String,
    pub team_id: String,
}

#[derive(Clone, Debug)]
pub struct PushConfig {
    pub vapid_private_key: Option<Secret>,
    pub vapid_subject: String,
    pub apns: Option<ApnsKey>,
    pub apns_url: String,
    pub apns_sandbox_url: String,
    pub fcm_service_account_file: Option<PathBuf>,
    pub fcm_url: String,
    pub ca_file: Option<PathBuf>,
    /// Web Push endpoints may be plain http (development and tests only).
    pub allow_http: bool,
    /// How often an idle push worker looks for due pushes (not an option).
    pub poll: Duration,
    /// A provider must answer within this.
    pub timeout: Duration,
    /// The pause after a push's first failed attempt, doubled after each (not an option).
    pub retry_base: Duration,
    /// How long a push is retried (not an option: a day; the deadline ends it sooner).
    pub retry_for: Duration,
}

impl Default for PushArgs {
    fn default() -> PushArgs {
        PushArgs {
            vapid_private_key: None,
            vapid_subject: None,
            apns_key_file: None,
            apns_key_id: None,
            apns_team_id: None,
            apns_url: None,
            apns_sandbox_url: None,
            fcm_service_account_file: None,
            fcm_url: None,
            push_timeout_secs: 10,
            push_allow_http: false,
            push_ca_file: None,
        }
    }
}

impl Default for PushConfig {
    fn default() -> PushConfig {
        PushArgs::default().into_config()
    }
}

impl PushArgs {
    pub fn into_config(self) -> PushConfig {
        let apns = match (self.apns_key_file, self.apns_key_id, self.apns_team_id) {
            (Some(key_file), Some(key_id), Some(team_id)) => Some(ApnsKey {
                key_file,
                key_id,
                team_id,
            }),
            _ => None,
        };
        PushConfig {
            vapid_private_key: self.vapid_private_key,
            vapid_subject: self
                .vapid_subject
                .unwrap_or_else(|| "mailto:push@racko.invalid".to_string()),
            apns,
            apns_url: self.apns_url.unwrap_or_else(|| APNS_URL.to_string()),
            apns_sandbox_url: self
                .apns_sandbox_url
                .unwrap_or_else(|| APNS_SANDBOX_URL.to_string()),
            fcm_service_account_file: self.fcm_service_account_file,
            fcm_url: self.fcm_url.unwrap_or_else(|| FCM_URL.to_string()),
            ca_file: self.push_ca_file,
            allow_http: self.push_allow_http,
            poll: Duration::from_millis(200),
            timeout: Duration::from_secs(self.push_timeout_secs.max(1)),
            retry_base: Duration::from_secs(5),
            retry_for: Duration::from_secs(24 * 3600),
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use crate::config::{Config, ConfigArgs, ConfigError};

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: ConfigArgs,
    }

    fn parse(flags: &[&str]) -> Result<Config, ConfigError> {
        let cli = Cli::try_parse_from(std::iter::once("racko").chain(flags.iter().copied()))
            .expect("flags parse");
        Config::from_args(cli.args)
    }

    #[test]
    fn plain_http_push_is_for_development_only() {
        let secret = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
        let flags = [
            "--env",
            "production",
            "--jwt-secret",
            secret,
            "--push-allow-http",
        ];
        let err = parse(&flags).expect_err("refused in production");
        assert_eq!(err, ConfigError::HttpPushInProduction);
        assert!(err.to_string().contains("RACKO_PUSH_ALLOW_HTTP"), "{err}");
        assert!(
            parse(&["--push-allow-http"])
                .expect("development")
                .push
                .allow_http
        );
        assert!(!parse(&[]).expect("development").push.allow_http);
    }
}
