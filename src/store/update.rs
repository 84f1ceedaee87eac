//! A game's change, all or nothing: the store's half of the service's one write path, on
//! either backend (see [`Store::update_game`]).

use std::sync::Arc;

use uuid::Uuid;

use super::conn::{begin_write, in_begun_tx, AnyConnection, Target};
use super::on_demand::OnDemand;
use super::pg_batch::Batcher;
use super::{feed, game_wake, games, pg_write, recent};
use super::{
    Committed, GameChange, GameRecord, Invitee, NewEvent, NewFeedItem, News, Store, StoreError,
    UpdateError, Wake,
};

impl Store {
    /// A game's change, all or nothing (the store's half of `service::write`): loads the game
    /// (with its seats), calls `decide`, and when it returns a change: writes the record
    /// `GameRecord::after` gives with a compare-and-set on `version` (`UPDATE … WHERE id = ?
    /// AND version = ?`; no row → `StaleVersion { current }` and nothing is written), appends
    /// the events with gapless per-game sequence numbers continuing the log (unique (game_id,
    /// seq)), the feed items and outbox rows, and stores the idempotency record if any.
    /// Returns the record as written and `decide`'s answer. When `decide` fails nothing is
    /// written. On PostgreSQL the change is first decided on the game as this process last
    /// wrote it (`recent`), else on the game read without a lock, and written in one statement
    /// (`update_game_in_one_statement`); only when another writer came in between (a lost
    /// compare-and-set) is it decided again: on the game read, then in a transaction that
    /// holds the game's row lock, as on SQLite (under the file's write lock). So concurrent
    /// calls on one game queue, each `decide` sees the state the previous one left, and the
    /// compare-and-set stays as the guard. A decision whose outcome would be the same (a
    /// refusal of the kept game when it is still the game, a write whose connection failed
    /// before it ran) is not made again. Keep `decide` pure and quick.
    /// `Store(NotFound)` for an unknown game.
    pub fn update_game<T, E>(
        &self,
        id: Uuid,
        decide: impl Fn(&GameRecord) -> Result<(GameChange, T), E>,
    ) -> Result<Committed<(GameRecord, T)>, UpdateError<E>> {
        self.update_game_locking(id, false, decide)
    }

    /// As [`Store::update_game`], but a game another transaction holds is skipped at once
    /// (`Locked`) instead of waited for: for the sweepers, which share out due games.
    pub fn update_game_unless_held<T, E>(
        &self,
        id: Uuid,
        decide: impl Fn(&GameRecord) -> Result<(GameChange, T), E>,
    ) -> Result<Committed<(GameRecord, T)>, UpdateError<E>> {
        self.update_game_locking(id, true, decide)
    }

    fn update_game_locking<T, E>(
        &self,
        id: Uuid,
        skip_locked: bool,
        decide: impl Fn(&GameRecord) -> Result<(GameChange, T), E>,
    ) -> Result<Committed<(GameRecord, T)>, UpdateError<E>> {
        let in_one_statement = match self.target {
            Target::Pg(_) if !skip_locked => self.update_game_in_one_statement(id, &decide)?,
            _ => None,
        };
        // None: SQLite, the sweeper, or another writer came between the read and the write.
        // Then queue behind the game's lock and decide on what is there.
        let Updated {
            written,
            answer,
            wakes,
            events,
            feed,
        } = match in_one_statement {
            Some(done) => done,
            None => self.update_game_in_transaction(id, skip_locked, &decide)?,
        };
        // One copy of the record for what this process keeps of the commit.
        let kept = Arc::new(written.clone());
        self.recent.keep(&kept);
        let news = News {
            feed: feed::as_stored(&written, &wakes, feed),
            tail: Some((kept, events)),
            wakes,
            ..News::default()
        };
        Ok(self.committed((written, answer), news))
    }

    /// Replaces the accounts invited to game `id` with what `decide` makes of the game as it
    /// is (read under the game's lock, in one transaction). The version moves on; no event is
    /// logged (an invitation is not a move of the game). `Store(NotFound)` for an unknown game.
    pub fn update_invited<E>(
        &self,
        id: Uuid,
        decide: impl Fn(&GameRecord) -> Result<Vec<Invitee>, E>,
    ) -> Result<GameRecord, UpdateError<E>> {
        let at = self.now();
        let written = self.write(|conn| {
            games::lock_game(conn, id, false)?;
            let current = recent::read_game(conn, id, &self.recent)?.ok_or(StoreError::NotFound)?;
            let invited = decide(&current).map_err(UpdateError::Decide)?;
            Ok::<_, UpdateError<E>>(games::set_invited(conn, &current, &invited, at)?)
        })?;
        self.recent.keep(&Arc::new(written.clone()));
        Ok(written)
    }

    /// The locking form of [`Store::update_game`]: one transaction that holds the game's row
    /// (PostgreSQL, which writes the change with its one statement all the same) or the file's
    /// write lock (SQLite). Returns the wake-ups to send.
    fn update_game_in_transaction<T, E>(
        &self,
        id: Uuid,
        skip_locked: bool,
        decide: &impl Fn(&GameRecord) -> Result<(GameChange, T), E>,
    ) -> Result<Updated<T>, UpdateError<E>> {
        let on_pg = matches!(self.target, Target::Pg(_));
        // SQLite: decided on the kept game before the file's lock, which every writer waits
        // for; the decision (or refusal) stands under the lock when the game read there is
        // still that one (the same version and due time), else the game is decided again.
        let mut early = match self.recent.get(id) {
            Some(kept) if !on_pg => {
                let decided = decide(&kept);
                Some((kept, decided))
            }
            _ => None,
        };
        self.write(|conn| {
            games::lock_game(conn, id, skip_locked)?;
            // Under the lock (SQLite: the file's, which every writer waits for), the state is
            // parsed again only when another writer changed the game.
            let current = recent::read_game(conn, id, &self.recent)?.ok_or(StoreError::NotFound)?;
            let (change, answer) = match early.take() {
                Some((kept, decided))
                    if kept.version == current.version && kept.due_at == current.due_at =>
                {
                    decided.map_err(UpdateError::Decide)?
                }
                _ => decide(&current).map_err(UpdateError::Decide)?,
            };
            change.check_base(&current)?;
            let wakes = if on_pg {
                write_in_one_statement(conn, &current, &change)?.ok_or_else(|| {
                    StoreError::Internal(format!("game {id}: changed under its row lock"))
                })?
            } else {
                games::apply_change(conn, &current, &change)?;
                // The feed items commit (or roll back) with the change.
                feed::append(conn, change.next(), &change.feed)?
            };
            record_end(conn, &change)?;
            Ok::<_, UpdateError<E>>(Updated::of(change, answer, wakes))
        })
    }

    /// PostgreSQL's form of [`Store::update_game`]: the game and its seats are read
    /// in one query, with no transaction and no lock, and the change is written in one
    /// statement whose compare-and-set on the version makes it apply only to the game as
    /// read (`pg_write`). Two round trips where the locking transaction took about a dozen.
    /// Another writer between the two: `None`, and nothing written (the caller then takes
    /// the locking path, where writers queue). A connection is taken only while needed (the
    /// read, a statement this writer leads): a write carried by another writer's statement
    /// takes none.
    fn update_game_in_one_statement<T, E>(
        &self,
        id: Uuid,
        decide: &impl Fn(&GameRecord) -> Result<(GameChange, T), E>,
    ) -> Result<Option<Updated<T>>, UpdateError<E>> {
        let mut conn = OnDemand::new(self);
        // The refusal of the kept game, and the version it was made on.
        let mut refused = None;
        // The game as this process wrote it last: if that is still the game, the write's
        // compare-and-set says so, and the action took one round trip. A refusal, by the
        // compare-and-set or by `decide`, is never the last word: the game is read, and the
        // action decided again if the game is another than the one kept.
        if let Some(kept) = self.recent.get(id) {
            match decide(&kept) {
                Ok((change, answer)) => {
                    change.check_base(&kept)?;
                    match conn.mark_if_lost(|c| write_unlocked(&self.batcher, c, &kept, &change)) {
                        Ok(Some(wakes)) => return Ok(Some(Updated::of(change, answer, wakes))),
                        // Another writer came first: decided again on the game read.
                        Ok(None) => {}
                        // A failed write may have committed all the same (the connection broke
                        // after it) or not have run at all (the connection had died while
                        // idle). Only when the game is still at the kept version is it sure not
                        // to have happened: then the same change is written again.
                        Err(e @ StoreError::Unavailable(_)) => {
                            conn = OnDemand::new(self);
                            let now =
                                self.fresh(conn.get()?, |c| games::read_game(c, Some(id), None))?;
                            if now.is_none_or(|game| game.version != kept.version) {
                                return Err(e.into());
                            }
                            conn.release();
                            let written = write_unlocked(&self.batcher, &mut conn, &kept, &change)?;
                            return Ok(written.map(|wakes| Updated::of(change, answer, wakes)));
                        }
                        Err(e) => return Err(e.into()),
                    }
                }
                Err(refusal) => refused = Some((kept.version, refusal)),
            }
        }
        let current = self
            .fresh(conn.get()?, |c| games::read_game(c, Some(id), None))?
            .ok_or(StoreError::NotFound)?;
        conn.release();
        // Every change moves the version on: the kept game is still the game, and its refusal
        // stands.
        if let Some((version, refusal)) = refused {
            if version == current.version {
                return Err(UpdateError::Decide(refusal));
            }
        }
        let (change, answer) = decide(&current).map_err(UpdateError::Decide)?;
        change.check_base(&current)?;
        // (A lost connection is dropped by the pool: see `conn::watch_statement`.)
        let written = write_unlocked(&self.batcher, &mut conn, &current, &change)?;
        Ok(written.map(|wakes| Updated::of(change, answer, wakes)))
    }
}

/// A committed change of a game.
struct Updated<T> {
    /// The game as written.
    written: GameRecord,
    /// What the decision gives the caller.
    answer: T,
    /// The wake-ups to send: the game's, and one per account whose feed grew.
    wakes: Vec<Wake>,
    /// The new events, in seq order.
    events: Vec<NewEvent>,
    /// The new feed items, in the order of their seqs within each account.
    feed: Vec<NewFeedItem>,
}

impl<T> Updated<T> {
    /// `change` as committed, with the wake-ups of the accounts whose feed grew.
    fn of(change: GameChange, answer: T, mut wakes: Vec<Wake>) -> Updated<T> {
        let (written, events, feed) = change.into_written();
        wakes.push(game_wake(&written));
        Updated {
            written,
            answer,
            wakes,
            events,
            feed,
        }
    }
}

/// A connection whose database went away (`Unavailable`) is marked broken, so that the pool
/// drops it when it comes back instead of handing it out again.
pub(super) fn mark_if_lost<T>(
    conn: &mut AnyConnection,
    f: impl FnOnce(&mut AnyConnection) -> Result<T, StoreError>,
) -> Result<T, StoreError> {
    let result = f(conn);
    if let Err(StoreError::Unavailable(_)) = &result {
        super::conn::mark_broken(conn);
    }
    result
}

/// Writes `change` over `current` in PostgreSQL's one statement (`pg_write`): None when the
/// compare-and-set found another version, else the wake-ups of the accounts whose feed grew.
fn write_in_one_statement(
    conn: &mut AnyConnection,
    current: &GameRecord,
    change: &GameChange,
) -> Result<Option<Vec<Wake>>, StoreError> {
    let AnyConnection::Pg(pg) = conn else {
        return Err(StoreError::Internal("not a PostgreSQL connection".into()));
    };
    pg_write::write_change(pg, current, change)
}

/// The one-statement write outside a transaction: it commits on its own, with the changes of
/// other games that came at the same time (`pg_batch`), unless the change ends the game, whose
/// results and ratings are written with it in one transaction (a lost compare-and-set writes
/// neither).
fn write_unlocked(
    batcher: &Batcher,
    conn: &mut OnDemand<'_>,
    current: &GameRecord,
    change: &GameChange,
) -> Result<Option<Vec<Wake>>, StoreError> {
    if change.end.is_none() {
        return batcher.write(conn, pg_write::GameRows::new(current, change)?);
    }
    let conn = conn.get()?;
    begin_write(conn)?;
    in_begun_tx(conn, |c| {
        let wakes = write_in_one_statement(c, current, change)?;
        if wakes.is_some() {
            record_end(c, change)?;
        }
        Ok(wakes)
    })
}

/// The results (and ratings) of the change that ends a game, if it does.
fn record_end(conn: &mut AnyConnection, change: &GameChange) -> Result<(), StoreError> {
    match &change.end {
        Some(end) => {
            let game = change.next();
            super::ratings::record_end(conn, game.id, end, game.updated_at.naive_utc())
        }
        None => Ok(()),
    }
}
