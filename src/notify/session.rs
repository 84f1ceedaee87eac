//! The token that holds a stream or a long-poll open. It is checked again whenever the
//! account's sessions change (signing out everywhere, a guest registering, leaving for good, a
//! session ended or found reused: announced in this process at once and in every other on the
//! wake-up channel) and at each heartbeat, so nothing more is sent on a revoked token. A
//! stream outlives its access token's expiry: it ends with its session, not with the token.

use tokio::sync::watch;
use uuid::Uuid;

use super::Hub;
use crate::blocking::blocking;
use crate::store::{SignedInAccount, Store};

/// Who holds the connection: the account, its token's generation and session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Session {
    pub account: Uuid,
    pub token_generation: i64,
    /// None for a token from before sessions.
    pub session: Option<Uuid>,
}

/// The final frame of a stream whose token was revoked; an `EventSource` that reconnects then
/// gets 401 `unauthorized`.
pub const REVOKED_FRAME: &[u8] =
    b"event: revoked\ndata: {\"code\":\"unauthorized\",\"detail\":\"the token was revoked; sign in again\"}\n\n";

impl Session {
    /// Changes whenever the account's sessions may have changed.
    pub fn watch(&self, hub: &Hub) -> watch::Receiver<u64> {
        hub.sessions(self.account)
    }

    /// True while the token is good: the account exists, with the token's generation, and
    /// the token's session is live.
    /// `fresh`: read the database rather than the few-second cache (after an announcement).
    /// A failed read is no proof of a revocation: the connection stays, and the next check
    /// decides.
    pub async fn holds(&self, store: &Store, fresh: bool) -> bool {
        let good = |a: &SignedInAccount| {
            a.account.token_generation == self.token_generation
                && self
                    .session
                    .is_none_or(|session| a.has_session(session, store.now()))
        };
        // A cached read that refuses may predate a refresh elsewhere: only the database's
        // own answer ends the connection.
        if !fresh && store.recent_account(self.account).is_some_and(|a| good(&a)) {
            return true;
        }
        let id = self.account;
        match blocking(store, move |s| s.account_for_token(id)).await {
            Ok(account) => account.is_some_and(|a| good(&a)),
            Err(_) => true,
        }
    }
}
