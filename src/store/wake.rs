//! Wake-ups across processes. PostgreSQL: `pg_notify` inside the write transaction (delivered
//! at commit, never for a rollback), and one `LISTEN` connection per process that hands what
//! it hears to the hub. SQLite has one process per file: the store wakes its hub after commit.

use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::sql_types::Text;

use super::conn::AnyConnection;
use super::signed_in::SignedIn;
use super::StoreError;
use crate::notify::{Hub, Wake};

/// The channel every process listens on.
const CHANNEL: &str = "racko";
/// How often the listener asks libpq for what arrived (diesel offers no blocking wait).
const POLL: Duration = Duration::from_millis(10);
/// A round trip this often notices a connection that died without a word.
const PING: Duration = Duration::from_secs(5);

/// Sends `wakes` at commit of the caller's transaction (PostgreSQL; nothing on SQLite).
pub(super) fn announce(conn: &mut AnyConnection, wakes: &[Wake]) -> Result<(), StoreError> {
    if let AnyConnection::Pg(pg) = conn {
        for wake in wakes {
            diesel::sql_query("SELECT pg_notify('racko', $1)")
                .bind::<Text, _>(wake.payload())
                .execute(pg)?;
        }
    }
    Ok(())
}

/// Tells every process, at commit of the caller's transaction, that account `id` changed in a
/// way a token check reads (PostgreSQL; nothing on SQLite). See `signed_in`.
pub(super) fn announce_account_change(
    conn: &mut AnyConnection,
    id: uuid::Uuid,
) -> Result<(), StoreError> {
    if let AnyConnection::Pg(pg) = conn {
        diesel::sql_query("SELECT pg_notify('racko', $1)")
            .bind::<Text, _>(super::signed_in::payload(id))
            .execute(pg)?;
    }
    Ok(())
}

/// Relays other processes' wake-ups to this process's hub; see [`Relay::run`].
pub struct Relay {
    pub(super) url: String,
    pub(super) hub: Weak<Hub>,
    /// Accounts kept for token checks: a change to one, heard here, forgets it.
    pub(super) signed_in: Weak<SignedIn>,
}

impl Relay {
    /// Listens until the hub is dropped (the store is gone), reconnecting with a growing pause
    /// when the connection fails. After each (re)connect every waiter is woken once, as
    /// wake-ups may have been missed while nobody listened. Blocks: run it on its own thread.
    pub fn run(self) {
        let mut pause = Duration::from_millis(100);
        while self.hub.strong_count() > 0 {
            match self.listen() {
                Ok(()) => return,
                Err(e) => {
                    tracing::warn!(error = %e, "wake-up listener lost its connection; reconnecting");
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_secs(5));
                }
            }
        }
    }

    /// Ok when the hub is gone; Err when the connection failed.
    fn listen(&self) -> Result<(), StoreError> {
        let mut conn = PgConnection::establish(&self.url)
            .map_err(|e| StoreError::Internal(format!("cannot connect to PostgreSQL: {e}")))?;
        conn.batch_execute(&format!("LISTEN {CHANNEL}"))?;
        match self.hub.upgrade() {
            Some(hub) => hub.wake_all(),
            None => return Ok(()),
        }
        // Changes to accounts may have been missed too.
        if let Some(signed_in) = self.signed_in.upgrade() {
            signed_in.forget_all();
        }
        let mut pinged = Instant::now();
        loop {
            let Some(hub) = self.hub.upgrade() else {
                return Ok(());
            };
            for heard in conn.notifications_iter() {
                let payload = heard?.payload;
                if let Some(wake) = Wake::parse(&payload) {
                    hub.wake(wake);
                } else if let Some(account) = super::signed_in::parse(&payload) {
                    if let Some(signed_in) = self.signed_in.upgrade() {
                        signed_in.forget(account);
                    }
                }
            }
            drop(hub);
            if pinged.elapsed() >= PING {
                conn.batch_execute("SELECT 1")?;
                pinged = Instant::now();
            }
            std::thread::sleep(POLL);
        }
    }
}

/// For `Store::open`: a fresh hub.
pub(super) fn new_hub() -> Arc<Hub> {
    Arc::new(Hub::new())
}
