//! Invitations that tell the invited: the game's change (a new game, or its list of invited
//! accounts) and the invitees' `invited` feed items commit in one transaction, so an account
//! is told exactly when it is invited.

use std::sync::Arc;

use uuid::Uuid;

use super::{feed, game_wake, games, Target};
use super::{
    Committed, GameRecord, IdempotencyRecord, Invitee, NewEvent, NewFeedItem, NewGame, News, Store,
    StoreError, UpdateError,
};

impl Store {
    /// [`Store::insert_game`], with `feed` (the invitees' items) written in its transaction.
    pub fn insert_game_telling(
        &self,
        game: &NewGame,
        events: &[NewEvent],
        idempotency: Option<&IdempotencyRecord>,
        items: Vec<NewFeedItem>,
    ) -> Result<Committed<GameRecord>, StoreError> {
        let (record, mut wakes) = self.write(|conn| {
            let record = games::insert_game(conn, game, events, idempotency)?;
            let wakes = feed::append(conn, &record, &items)?;
            Ok::<_, StoreError>((record, wakes))
        })?;
        let feed = feed::as_stored(&record, &wakes, items);
        wakes.push(game_wake(&record));
        let news = News {
            wakes,
            tail: Some((Arc::new(record.clone()), events.to_vec())),
            feed,
            ..News::default()
        };
        Ok(self.committed(record, news))
    }

    /// [`Store::update_invited`], where `decide` also gives the feed items of the change
    /// (written in its transaction).
    pub fn update_invited_telling<E>(
        &self,
        id: Uuid,
        decide: impl Fn(&GameRecord) -> Result<(Vec<Invitee>, Vec<NewFeedItem>), E>,
    ) -> Result<Committed<GameRecord>, UpdateError<E>> {
        let at = self.now();
        let (written, wakes, items) = self.write(|conn| {
            games::lock_game(conn, id, false)?;
            let current = games::read_game(conn, Some(id), None)?.ok_or(StoreError::NotFound)?;
            let (invited, items) = decide(&current).map_err(UpdateError::Decide)?;
            let written = games::set_invited(conn, &current, &invited, at)?;
            let wakes = feed::append(conn, &written, &items)?;
            Ok::<_, UpdateError<E>>((written, wakes, items))
        })?;
        if let Target::Pg(_) = self.target {
            self.recent.keep(&Arc::new(written.clone()));
        }
        let news = News {
            feed: feed::as_stored(&written, &wakes, items),
            wakes,
            ..News::default()
        };
        Ok(self.committed(written, news))
    }
}
