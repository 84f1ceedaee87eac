//! Sessions: every sign-in (register, log in, a new guest, a guest's upgrade) opens one for
//! its device, with a refresh token that is exchanged for a new access token and a new
//! refresh token. Each exchange spends the token and moves the session's end forward, so a
//! session (a guest's account with it) lasts as long as its device comes back within the
//! session life; a spent token presented again ends the session at once.

use std::net::IpAddr;
use std::time::Duration;

use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::{
    auth::{refresh, CurrentUser},
    blocking::blocking,
    error::{Code, ServiceError},
    service::Service,
    store::{Account, NewSession, Refreshed, SessionRecord, Store},
};

/// Sessions one account may hold; opening another ends the one unused longest.
pub const MAX_SESSIONS: usize = 50;
/// A longer `User-Agent` is cut to this many characters.
pub const MAX_USER_AGENT: usize = 256;
/// How long after a rotation the refresh token it spent is still answered (see [`refresh`]).
pub const REFRESH_GRACE: Duration = Duration::from_secs(30);

/// Where a sign-in comes from, as the session list shows it.
#[derive(Clone, Debug, Default)]
pub struct Device {
    pub user_agent: Option<String>,
    pub address: Option<IpAddr>,
}

/// A session just opened or refreshed, with its refresh token: shown this once, never stored.
pub struct Opened {
    pub account: Account,
    pub session: SessionRecord,
    pub refresh_token: String,
}

impl std::fmt::Debug for Opened {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Opened")
            .field("account", &self.account)
            .field("session", &self.session)
            .finish_non_exhaustive()
    }
}

/// Opens a session of `account` on `device`, living `life` unless refreshed.
pub async fn open(
    store: &Service,
    account: Account,
    device: &Device,
    life: Duration,
) -> Result<Opened, ServiceError> {
    let id = Uuid::new_v4();
    let (refresh_token, refresh_hash) = refresh::new_token(id);
    let new = NewSession {
        id,
        account: account.id,
        refresh_hash,
        user_agent: device.user_agent.as_deref().and_then(user_agent),
        client_address: device.address.map(coarse),
        expires_at: end_after(store.now(), life)?,
    };
    let session = blocking(store, move |s| {
        s.open_session(&new, MAX_SESSIONS).map(|done| s.after(done))
    })
    .await?;
    Ok(Opened {
        account,
        session,
        refresh_token,
    })
}

/// Opens a session for the holder of a token from before sessions (one naming none), so that
/// the account outlives that token. 403 `forbidden` for a token of a session: it refreshes.
pub async fn adopt(
    store: &Service,
    user: &CurrentUser,
    device: &Device,
    life: Duration,
) -> Result<Opened, ServiceError> {
    if user.session.is_some() {
        return Err(ServiceError::new(
            Code::Forbidden,
            "this token belongs to a session already; refresh it with its refresh token",
        ));
    }
    let account = super::accounts::existing(store, user.id).await?;
    open(store, account, device, life).await
}

/// Exchanges the refresh token `token` for a new one (and the session for another `life`).
/// 401 `invalid_refresh_token` for a token that is malformed, unknown or expired;
/// 401 `refresh_token_reused` for a spent one, whose session is ended by it.
///
/// A refresh whose answer is lost in transit must not cost the session: the token the
/// session's last rotation spent, presented again within [`REFRESH_GRACE`] of it, gets a
/// fresh pair, and the pair that rotation issued (never seen, or seen by a thief) is spent.
/// Only that one token, only in that window, counted from the first rotation: any older
/// token, or this one later, still ends the session (RFC 9700 §4.14.2). A thief who
/// replays the last token within the window gets a pair, but the owner's next refresh then
/// presents a spent token and ends the session for both.
pub async fn refresh(store: &Service, token: &str, life: Duration) -> Result<Opened, ServiceError> {
    let Some(presented) = refresh::parse(token) else {
        return Err(invalid());
    };
    let id = presented.session;
    let (refresh_token, next) = refresh::new_token(id);
    let expires_at = end_after(store.now(), life)?;
    let outcome = blocking(store, move |s| {
        s.refresh_session(id, (&presented.hash, &next), expires_at, REFRESH_GRACE)
            .map(|done| s.after(done))
    })
    .await?;
    match outcome {
        Refreshed::Rotated { account, session } => Ok(Opened {
            account,
            session,
            refresh_token,
        }),
        Refreshed::RotatedAgain { account, session } => {
            tracing::info!(account = %account.id, session = %id, "the last spent refresh token came back within the grace window; rotated again");
            Ok(Opened {
                account,
                session,
                refresh_token,
            })
        }
        Refreshed::Reused { account } => {
            tracing::warn!(%account, session = %id, "a spent refresh token came back; session ended");
            Err(ServiceError::new(
                Code::RefreshTokenReused,
                "this refresh token was already used, so the session has been ended; sign in again",
            ))
        }
        Refreshed::Unknown => Err(invalid()),
    }
}

/// The account's live sessions, the most recently used first.
pub async fn list(store: &Store, account: Uuid) -> Result<Vec<SessionRecord>, ServiceError> {
    blocking(store, move |s| s.sessions(account)).await
}

/// Ends the account's session `id`; 404 `session_not_found` when it has none such.
pub async fn end(store: &Service, account: Uuid, id: Uuid) -> Result<(), ServiceError> {
    match blocking(store, move |s| {
        s.end_session(account, id).map(|done| s.after(done))
    })
    .await
    {
        Err(e) if e.code == Code::NotFound => Err(ServiceError::new(
            Code::SessionNotFound,
            "no such session among this account's",
        )),
        result => result,
    }
}

fn invalid() -> ServiceError {
    ServiceError::new(
        Code::InvalidRefreshToken,
        "the refresh token is invalid or expired, or its session has ended; sign in again",
    )
}

fn end_after(now: DateTime<Utc>, life: Duration) -> Result<DateTime<Utc>, ServiceError> {
    chrono::Duration::from_std(life)
        .ok()
        .and_then(|life| now.checked_add_signed(life))
        .ok_or_else(|| ServiceError::internal("session life out of range"))
}

/// The network of `address`, not the address: an IPv4 /24 or an IPv6 /48 is enough to tell
/// "my phone at home" from "somewhere else" and says little about the person.
fn coarse(address: IpAddr) -> String {
    match address {
        IpAddr::V4(v4) => {
            let [a, b, c, _] = v4.octets();
            format!("{a}.{b}.{c}.0/24")
        }
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => coarse(IpAddr::V4(v4)),
            None => {
                let s = v6.segments();
                let net = std::net::Ipv6Addr::new(s[0], s[1], s[2], 0, 0, 0, 0, 0);
                format!("{net}/48")
            }
        },
    }
}

/// The `User-Agent` as shown: printable characters only, at most [`MAX_USER_AGENT`]; None
/// when nothing is left.
fn user_agent(raw: &str) -> Option<String> {
    let clean: String = raw
        .chars()
        .filter(|c| !c.is_control())
        .take(MAX_USER_AGENT)
        .collect();
    let clean = clean.trim();
    (!clean.is_empty()).then(|| clean.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_coarsened_to_their_network() {
        let v4: IpAddr = "203.0.113.77".parse().expect("v4");
        assert_eq!(coarse(v4), "203.0.113.0/24");
        let v6: IpAddr = "2001:db8:abcd:12:1:2:3:4".parse().expect("v6");
        assert_eq!(coarse(v6), "2001:db8:abcd::/48");
        let mapped: IpAddr = "::ffff:198.51.100.9".parse().expect("mapped");
        assert_eq!(coarse(mapped), "198.51.100.0/24");
    }

    #[test]
    fn user_agents_are_cleaned_and_bounded() {
        assert_eq!(
            user_agent("Racko/1.0 (iPhone)").as_deref(),
            Some("Racko/1.0 (iPhone)")
        );
        assert_eq!(user_agent("a\u{7}b\nc").as_deref(), Some("abc"));
        assert_eq!(user_agent(" \t ").as_deref(), None);
        let long = "x".repeat(1000);
        assert_eq!(
            user_agent(&long).map(|s| s.chars().count()),
            Some(MAX_USER_AGENT)
        );
    }
}
