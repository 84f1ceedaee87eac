//! What the notification endpoints read: a game's log and an account's feed, as
//! SSE frames or as long-polled pages. The reading is the same projection as the pages
//! (`log_page`, `feed`), so a stream shows exactly what `GET …/events` would (R8). Unlike the
//! rest of the service these functions are async: they wait on the hub.

use std::sync::Arc;

use uuid::Uuid;

use super::Service;
use super::{access, chat, feed, log_page, viewer_of, Caller};
use crate::blocking::blocking;
use crate::error::ServiceError;
use crate::notify::{
    sse::{self, Reader, PAGE},
    wait, Session, Topic,
};
use crate::store::Store;

/// Game `id`'s log for `caller`, as frames (`id` = the event's seq). Woken for a known seq,
/// it takes the frames of the tail the process's streams share (`tails`: one store read per
/// game, one projection per viewer class); else it reads the log page.
pub fn game_reader(service: &Service, caller: Caller, id: Uuid) -> Reader {
    let service = service.clone();
    Arc::new(move |after: i64, known: Option<i64>| {
        let (caller, store) = (caller.clone(), service.clone());
        Box::pin(async move {
            if let Some(known) = known {
                let tails = &store.caches().tails;
                if let Some(tail) = tails.get(store.store(), id, after, known).await? {
                    if !access::may_see(&tail.record, caller.id) {
                        // A friend of a player, maybe: asked of the store, each time, so
                        // that an ended friendship ends the watching.
                        let (record, account) = (tail.record.clone(), caller.id);
                        blocking(&store, move |s| access::check_visible(s, &record, account))
                            .await?;
                    }
                    let viewer = viewer_of(&tail.record, caller.id);
                    return tail.frames(viewer, after, PAGE as usize);
                }
            }
            let page = blocking(&store, move |s| {
                log_page::page(s, &caller, id, Some(after), Some(PAGE))
            })
            .await?;
            page.events.iter().map(|e| sse::frame(e.seq, e)).collect()
        })
    })
}

/// `caller`'s feed, as frames (`id` = the item's seq). Woken for a known seq, it takes the
/// items a write of this process left in `feeds`; else it reads the page, and leaves it
/// there for the next write to join up to.
pub fn feed_reader(service: &Service, caller: Caller) -> Reader {
    let service = service.clone();
    Arc::new(move |after: i64, known: Option<i64>| {
        let (caller, store) = (caller.clone(), service.clone());
        Box::pin(async move {
            let feeds = &store.caches().feeds;
            if let Some(items) = known.and_then(|known| feeds.after(caller.id, after, known)) {
                return items.iter().map(|i| sse::frame(i.seq, i)).collect();
            }
            let id = caller.id;
            let page = blocking(&store, move |s| {
                feed::page(s, &caller, Some(after), Some(PAGE))
            })
            .await?;
            feeds.remember(id, &page.items);
            page.items.iter().map(|i| sse::frame(i.seq, i)).collect()
        })
    })
}

/// Game `id`'s chat for `caller`, as frames (`id` = the message's seq). Each read asks the
/// store: chat is rare beside the moves, and each reader's blocks filter it.
pub fn chat_reader(service: &Service, caller: Caller, id: Uuid) -> Reader {
    let service = service.clone();
    Arc::new(move |after: i64, _known: Option<i64>| {
        let (caller, store) = (caller.clone(), service.clone());
        Box::pin(async move {
            let page = blocking(&store, move |s| {
                chat::page(s, &caller, id, Some(after), Some(PAGE))
            })
            .await?;
            let mut frames = page
                .messages
                .iter()
                .map(|m| sse::frame(m.seq, m))
                .collect::<Result<Vec<_>, _>>()?;
            // Messages left out for a block still move the stream on: a comment frame at
            // the last seq read, so that it is not read again.
            if frames
                .last()
                .map_or(page.next_after > after, |f| f.id < page.next_after)
            {
                frames.push(sse::skipped(page.next_after));
            }
            Ok(frames)
        })
    })
}

/// `GET /v1/games/{id}/chat` with `wait`, as [`events_page`]: the page as soon as it has a
/// message for the caller.
pub async fn chat_page(
    store: &Service,
    (caller, session): (Caller, Session),
    id: Uuid,
    after: Option<i64>,
    limit: Option<i64>,
    wait_secs: Option<u64>,
) -> Result<chat::ChatPage, ServiceError> {
    let wait = wait::checked(wait_secs)?;
    let read = move |s: &Store| chat::page(s, &caller, id, after, limit);
    wait::until(
        (store.store(), store.hub()),
        (Topic::Chat(id), session),
        wait,
        read,
        |p: &chat::ChatPage| !p.messages.is_empty(),
    )
    .await
}

/// `GET /v1/games/{id}/events` with `wait`: the page as soon as it has an event, or empty
/// after `wait` seconds (0..=60).
pub async fn events_page(
    store: &Service,
    (caller, session): (Caller, Session),
    id: Uuid,
    after: Option<i64>,
    limit: Option<i64>,
    wait_secs: Option<u64>,
) -> Result<log_page::EventPage, ServiceError> {
    let wait = wait::checked(wait_secs)?;
    let read = move |s: &Store| log_page::page(s, &caller, id, after, limit);
    wait::until(
        (store.store(), store.hub()),
        (Topic::Game(id), session),
        wait,
        read,
        |p: &log_page::EventPage| !p.events.is_empty(),
    )
    .await
}

/// `GET /v1/me/feed` with `wait`, as [`events_page`].
pub async fn feed_page(
    store: &Service,
    (caller, session): (Caller, Session),
    after: Option<i64>,
    limit: Option<i64>,
    wait_secs: Option<u64>,
) -> Result<feed::FeedPage, ServiceError> {
    let wait = wait::checked(wait_secs)?;
    let account = caller.id;
    let read = move |s: &Store| feed::page(s, &caller, after, limit);
    wait::until(
        (store.store(), store.hub()),
        (Topic::Account(account), session),
        wait,
        read,
        |p: &feed::FeedPage| !p.items.is_empty(),
    )
    .await
}
