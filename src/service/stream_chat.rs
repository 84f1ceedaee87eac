//! A game's stream with its table talk on it (`?chat=true`): the game's events as on the plain
//! stream, and after them the chat messages since the last read, as `event: chat` frames.
//!
//! The two logs have their own seqs, so every frame's SSE id names both, `<event seq>.<chat
//! seq>`, and a reconnecting client resumes each exactly (`Last-Event-ID: 57.12`). A chat
//! message wakes the game's streams through the hub (a chat wake-up makes the game's waiters
//! read again), and this reader keeps the game's chat among the waited topics, so that the
//! relay's rechecks cover it too.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use actix_web::web::{Bytes, BytesMut};
use uuid::Uuid;

use super::stream::game_reader;
use super::{chat, Caller, Service};
use crate::blocking::blocking;
use crate::error::ServiceError;
use crate::notify::sse::{self, Frame, Reader, PAGE};
use crate::notify::Topic;

/// Where a stream with chat resumes: after event `events` and chat message `chat`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Resume {
    pub events: i64,
    pub chat: i64,
}

impl Resume {
    /// Reads `57.12` (or `57`: the chat from its start); None for anything else.
    pub fn parse(text: &str) -> Option<Resume> {
        let (events, chat) = match text.split_once('.') {
            Some((events, chat)) => (events, chat),
            None => (text, "0"),
        };
        let (events, chat) = (events.parse().ok()?, chat.parse().ok()?);
        (events >= 0 && chat >= 0).then_some(Resume { events, chat })
    }
}

/// The frame with its SSE id replaced by `<event seq>.<chat seq>` (the rest shared as it is).
fn with_id(frame: &Frame, chat: i64) -> Frame {
    let rest = frame
        .bytes
        .iter()
        .position(|b| *b == b'\n')
        .map_or(&frame.bytes[..], |end| &frame.bytes[end..]);
    let mut bytes = BytesMut::from(format!("id: {}.{chat}", frame.id).as_bytes());
    bytes.extend_from_slice(rest);
    Frame {
        id: frame.id,
        bytes: bytes.freeze(),
    }
}

/// A chat entry as a frame of the game's stream: `event: chat`, the combined id, the entry.
fn chat_frame(events: i64, entry: &chat::ChatEntry) -> Result<Frame, ServiceError> {
    let plain = sse::frame(events, entry)?;
    let with = with_id(&plain, entry.seq);
    let mut bytes = BytesMut::from(&b"event: chat\n"[..]);
    bytes.extend_from_slice(&with.bytes);
    Ok(Frame {
        id: events,
        bytes: Bytes::from(bytes),
    })
}

/// Game `id`'s log and chat for `caller`, from `chat_after` on in the chat.
pub fn game_and_chat_reader(
    service: &Service,
    caller: Caller,
    id: Uuid,
    chat_after: i64,
) -> Reader {
    let events = game_reader(service, caller.clone(), id);
    let chat_at = Arc::new(AtomicI64::new(chat_after));
    // Held for the stream's life: the chat is then a waited topic (see the module docs).
    let waited = Arc::new(service.hub().subscribe(Topic::Chat(id)));
    let service = service.clone();
    Arc::new(move |after: i64, known: Option<i64>| {
        let (events, chat_at, waited) = (events.clone(), chat_at.clone(), waited.clone());
        let (caller, store) = (caller.clone(), service.clone());
        Box::pin(async move {
            let read = events(after, known).await?;
            let last_event = read.last().map_or(after, |f| f.id);
            let from = chat_at.load(Ordering::Acquire);
            let mut frames: Vec<Frame> = read.iter().map(|f| with_id(f, from)).collect();
            // Woken for a move (`known`), the chat is read only if a message came since: the
            // hub's mark of the chat says so, and a move costs the store no chat read.
            if known.is_some() && waited.borrow().seq <= from {
                return Ok(frames);
            }
            let page = blocking(&store, move |s| {
                chat::page(s, &caller, id, Some(from), Some(PAGE))
            })
            .await?;
            for entry in &page.messages {
                frames.push(chat_frame(last_event, entry)?);
            }
            chat_at.store(page.next_after, Ordering::Release);
            Ok(frames)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resume_points_read_back() {
        assert_eq!(
            Resume::parse("57.12"),
            Some(Resume {
                events: 57,
                chat: 12
            })
        );
        assert_eq!(
            Resume::parse("57"),
            Some(Resume {
                events: 57,
                chat: 0
            })
        );
        for bad in ["", ".", "a.1", "1.b", "-1.2", "1.-2", "1.2.3"] {
            assert_eq!(Resume::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_frame_takes_the_combined_id() {
        let plain = sse::frame(7, &serde_json::json!({"a": 1})).expect("a frame");
        let combined = with_id(&plain, 3);
        assert_eq!(combined.id, 7);
        assert_eq!(&combined.bytes[..], b"id: 7.3\ndata: {\"a\":1}\n\n");
    }
}
