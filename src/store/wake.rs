//! Wake-ups across processes (PostgreSQL). One thread per process ([`Relay::run`]) holds one
//! connection: it `LISTEN`s and hands what it hears to this process's [`Listener`] (the
//! service, which wakes its hub), and it sends this process's wake-ups, queued after each
//! commit ([`Announcements`]), in one `pg_notify` statement per tick. SQLite has one process
//! per file: the service's post-commit step wakes its hub, and that is all.
//!
//! Why after the commit and not inside the write: PostgreSQL lets only one notifying
//! transaction commit at a time, holding a lock until its commit is flushed, so a `pg_notify`
//! in every write undoes group commit (measured 10-25 % of the throughput). The price:
//! a process killed between its commit and the next tick never announces that commit. Every
//! relay therefore also re-reads, every [`RECHECK`], how far the games and feeds its waiters
//! follow have got, and wakes them where the database is ahead of what they were told.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Text};

use super::conn::AnyConnection;
use super::recent::RecentGames;
use super::signed_in::SignedIn;
use super::topic::{Heard, Topic, Wake};
use super::StoreError;

/// The channel every process listens on.
const CHANNEL: &str = "racko";
/// The relay connection's `application_name` in `pg_stat_activity`.
pub const APPLICATION_NAME: &str = "racko wake-up relay";
/// How often the relay sends what was queued and asks libpq for what arrived (diesel offers
/// no blocking wait): at most this much later than the commit does another process hear it.
const POLL: Duration = Duration::from_millis(10);
/// How often the relay compares its waiters' topics with the database (see the module docs):
/// the longest a commit whose announcement died with its process keeps a stream waiting.
pub const RECHECK: Duration = Duration::from_secs(2);
/// At most this many wake-ups wait to be sent; more (a long outage) are dropped, and the
/// recheck of the other processes finds them.
const QUEUE_LIMIT: usize = 65_536;

/// This process's wake-ups, committed and not yet sent to the others.
#[derive(Default)]
pub struct Announcements {
    queue: Mutex<Vec<String>>,
    /// A relay runs: without one nobody would send, so nothing is queued.
    relayed: AtomicBool,
}

impl Announcements {
    fn lock(&self) -> MutexGuard<'_, Vec<String>> {
        // Pushes and takes only: a panic elsewhere cannot leave the queue inconsistent.
        self.queue.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Queues `wakes` for the other processes; call after they committed.
    pub(super) fn push(&self, wakes: &[Wake]) {
        if !self.relayed.load(Ordering::Relaxed) {
            return;
        }
        let mut queue = self.lock();
        for wake in wakes {
            if queue.len() < QUEUE_LIMIT {
                queue.push(wake.payload());
            }
        }
    }

    fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.lock())
    }

    /// Puts back what could not be sent, ahead of what came since.
    fn put_back(&self, mut unsent: Vec<String>) {
        let mut queue = self.lock();
        unsent.append(&mut queue);
        unsent.truncate(QUEUE_LIMIT);
        *queue = unsent;
    }
}

/// Tells every process, at commit of the caller's transaction, that account `id` changed in a
/// way a token check reads (PostgreSQL; nothing on SQLite). See `signed_in`. Inside the
/// transaction, unlike game wake-ups: a signed-out token must stop working everywhere, even
/// if this process dies at once, and these commits are rare.
pub(super) fn announce_account_change(
    conn: &mut AnyConnection,
    id: uuid::Uuid,
) -> Result<(), StoreError> {
    announce(conn, &super::signed_in::payload(id))
}

/// As [`announce_account_change`], and every process also lets go of what it keeps of games
/// and feeds: the account's name was replaced in them (`store::erase`).
pub(super) fn announce_names_changed(
    conn: &mut AnyConnection,
    id: uuid::Uuid,
) -> Result<(), StoreError> {
    announce(conn, &super::signed_in::names_payload(id))
}

/// `payload` on the wake-up channel, sent at the commit of the caller's transaction.
fn announce(conn: &mut AnyConnection, payload: &str) -> Result<(), StoreError> {
    if let AnyConnection::Pg(pg) = conn {
        diesel::sql_query("SELECT pg_notify($1, $2)")
            .bind::<Text, _>(CHANNEL)
            .bind::<Text, _>(payload)
            .execute(pg)?;
    }
    Ok(())
}

/// Whoever in this process hears what the other processes committed.
pub trait Listener {
    /// False once nobody listens any more: the relay stops.
    fn alive(&self) -> bool;
    fn heard(&self, heard: Heard);
    /// The topics somebody here waits on, for the periodic recheck.
    fn waited(&self) -> Vec<Topic>;
}

/// Relays wake-ups between this process and the others; see [`Relay::run`].
pub struct Relay {
    pub(super) url: String,
    /// The games this process wrote last: another process's write makes one stale.
    pub(super) recent: Weak<RecentGames>,
    /// Accounts kept for token checks: a change to one, heard here, forgets it.
    pub(super) signed_in: Weak<SignedIn>,
    pub(super) announcements: Arc<Announcements>,
}

impl Relay {
    /// Relays until `listener` is no longer alive, reconnecting with a growing pause when
    /// the connection fails. After each (re)connect every waiter is woken once, as wake-ups
    /// may have been missed while nobody listened. Blocks: run it on its own thread.
    pub fn run(self, listener: &dyn Listener) {
        self.announcements.relayed.store(true, Ordering::Relaxed);
        let mut pause = Duration::from_millis(100);
        while listener.alive() {
            match self.listen(listener) {
                Ok(()) => break,
                Err(e) => {
                    tracing::warn!(error = %e, "wake-up relay lost its connection; reconnecting");
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_secs(5));
                }
            }
        }
        self.announcements.relayed.store(false, Ordering::Relaxed);
    }

    /// Ok when the listener is gone; Err when the connection failed.
    fn listen(&self, listener: &dyn Listener) -> Result<(), StoreError> {
        let mut conn = PgConnection::establish(&self.url)
            .map_err(|e| StoreError::Internal(format!("cannot connect to PostgreSQL: {e}")))?;
        // Named, so that operators (and tests) can tell it from the pool's connections.
        conn.batch_execute(&format!(
            "SET application_name = '{APPLICATION_NAME}'; LISTEN {CHANNEL}"
        ))?;
        if !listener.alive() {
            return Ok(());
        }
        // Changes to games and accounts may have been missed.
        self.hear(listener, Heard::Reset);
        let mut rechecked = Instant::now();
        loop {
            if !listener.alive() {
                return Ok(());
            }
            self.send(&mut conn)?;
            for heard in conn.notifications_iter() {
                let payload = heard?.payload;
                if let Some(wake) = Wake::parse(&payload) {
                    self.hear(listener, Heard::Wake(wake));
                } else if let Some(account) = super::signed_in::parse(&payload) {
                    self.hear(listener, Heard::Sessions(account));
                } else if let Some(account) = super::signed_in::parse_names(&payload) {
                    self.hear(listener, Heard::NamesChanged(account));
                }
            }
            // Also notices a connection that died without a word.
            if rechecked.elapsed() >= RECHECK {
                for wake in recheck(&mut conn, &listener.waited())? {
                    self.hear(listener, Heard::Wake(wake));
                }
                rechecked = Instant::now();
            }
            std::thread::sleep(POLL);
        }
    }

    /// The store's own copies first (the games written here, the accounts as token checks
    /// read them), then the listener.
    fn hear(&self, listener: &dyn Listener, heard: Heard) {
        let (recent, signed_in) = (self.recent.upgrade(), self.signed_in.upgrade());
        match heard {
            Heard::Wake(Wake {
                topic: Topic::Game(id),
                seq,
            }) => {
                if let Some(recent) = recent {
                    recent.heard(id, seq);
                }
            }
            Heard::Wake(_) => {}
            Heard::Reset => {
                if let Some(recent) = recent {
                    recent.forget_all();
                }
                if let Some(signed_in) = signed_in {
                    signed_in.forget_all();
                }
            }
            Heard::Sessions(account) | Heard::NamesChanged(account) => {
                if let Some(signed_in) = signed_in {
                    signed_in.forget(account);
                }
                if let (Heard::NamesChanged(_), Some(recent)) = (heard, recent) {
                    recent.forget_all();
                }
            }
        }
        listener.heard(heard);
    }

    /// Sends the queued wake-ups in one statement (one transaction, which writes nothing and
    /// so waits for no flush). What fails is put back for the next connection.
    fn send(&self, conn: &mut PgConnection) -> Result<(), StoreError> {
        let payloads = self.announcements.take();
        if payloads.is_empty() {
            return Ok(());
        }
        let sent = diesel::sql_query("SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p")
            .bind::<Text, _>(CHANNEL)
            .bind::<Array<Text>, _>(&payloads)
            .execute(conn);
        if let Err(e) = sent {
            self.announcements.put_back(payloads);
            return Err(e.into());
        }
        Ok(())
    }
}

#[derive(QueryableByName)]
struct Reached {
    #[diesel(sql_type = Text)]
    kind: String,
    #[diesel(sql_type = Text)]
    id: String,
    #[diesel(sql_type = BigInt)]
    seq: i64,
}

/// How far the database has got in each of `waited`: one statement, whatever the number of
/// topics (none: a plain round trip). The hub wakes only those told less.
fn recheck(conn: &mut PgConnection, waited: &[Topic]) -> Result<Vec<Wake>, StoreError> {
    let (mut games, mut accounts, mut chats) = (Vec::new(), Vec::new(), Vec::new());
    for topic in waited.iter().copied() {
        match topic {
            Topic::Game(id) => games.push(id.to_string()),
            Topic::Account(id) => accounts.push(id.to_string()),
            Topic::Chat(id) => chats.push(id.to_string()),
        }
    }
    if games.is_empty() && accounts.is_empty() && chats.is_empty() {
        conn.batch_execute("SELECT 1")?;
        return Ok(Vec::new());
    }
    let reached: Vec<Reached> = diesel::sql_query(
        "SELECT 'g' AS kind, id, last_seq AS seq FROM games WHERE id = ANY($1) \
         UNION ALL \
         SELECT 'a', account_id, last_seq FROM account_feed_heads WHERE account_id = ANY($2) \
         UNION ALL \
         SELECT 'c', game_id, max(seq) FROM chat_messages WHERE game_id = ANY($3) \
          GROUP BY game_id",
    )
    .bind::<Array<Text>, _>(&games)
    .bind::<Array<Text>, _>(&accounts)
    .bind::<Array<Text>, _>(&chats)
    .load(conn)?;
    Ok(reached
        .into_iter()
        .filter_map(|row| {
            let id = uuid::Uuid::parse_str(&row.id).ok()?;
            let topic = match row.kind.as_str() {
                "g" => Topic::Game(id),
                "c" => Topic::Chat(id),
                _ => Topic::Account(id),
            };
            Some(Wake {
                topic,
                seq: row.seq,
            })
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wake(seq: i64) -> Wake {
        Wake {
            topic: Topic::Game(uuid::Uuid::nil()),
            seq,
        }
    }

    #[test]
    fn nothing_is_queued_without_a_relay_to_send_it() {
        let announcements = Announcements::default();
        announcements.push(&[wake(1)]);
        assert!(announcements.take().is_empty());
    }

    #[test]
    fn what_could_not_be_sent_goes_out_first_and_the_queue_is_bounded() {
        let announcements = Announcements::default();
        announcements.relayed.store(true, Ordering::Relaxed);
        announcements.push(&[wake(1), wake(2)]);
        let unsent = announcements.take();
        announcements.push(&[wake(3)]);
        announcements.put_back(unsent);
        assert_eq!(
            announcements.take(),
            [wake(1), wake(2), wake(3)].map(|w| w.payload())
        );

        let many: Vec<Wake> = (0..QUEUE_LIMIT as i64 + 10).map(wake).collect();
        announcements.push(&many);
        announcements.put_back(vec![wake(-1).payload()]);
        let queued = announcements.take();
        assert_eq!(queued.len(), QUEUE_LIMIT);
        assert_eq!(queued[0], wake(-1).payload(), "the older wake-up is kept");
    }
}
