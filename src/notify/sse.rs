//! Server-Sent Events over the logs. Each connection has a task that reads a page of the log
//! after the last seq sent, writes it into a bounded channel (the response body reads from
//! it), and waits on the hub when it has caught up. A client too slow to take a frame within
//! `send_timeout` is dropped: the server keeps at most `buffer` frames per connection, and the
//! client resumes from the log with `Last-Event-ID`. A stream whose token is revoked sends a
//! last `revoked` frame and ends (`Session`).

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use actix_web::{
    http::header,
    web::{Bytes, BytesMut},
    HttpRequest, HttpResponse,
};
use futures_util::future::BoxFuture;
use tokio::sync::{mpsc, watch};

use super::peer::Peer;
use super::session::REVOKED_FRAME;
use super::slots::Slot;
use super::Hub;
use super::{Mark, Session, Topic};
use crate::error::{Code, ServiceError};
use crate::store::Store;

/// Entries per read of the log.
pub const PAGE: i64 = 100;

/// One entry: its seq (the SSE `id`) and the whole SSE frame, encoded once. `Bytes` clones
/// share the buffer, so a frame made for a viewer class costs each stream a reference count.
#[derive(Clone)]
pub struct Frame {
    pub id: i64,
    pub bytes: Bytes,
}

/// The frame of the entry `id`: `id: <id>` and `data: <entry as one JSON line>`.
pub fn frame<T: serde::Serialize>(id: i64, entry: &T) -> Result<Frame, ServiceError> {
    let mut text = format!("id: {id}\ndata: ").into_bytes();
    // serde_json escapes newlines inside strings, so the JSON stays on one line.
    serde_json::to_writer(&mut text, entry).map_err(ServiceError::internal)?;
    text.extend_from_slice(b"\n\n");
    Ok(Frame {
        id,
        bytes: Bytes::from(text),
    })
}

/// A frame that only moves the client's `Last-Event-ID` on to `id` (no event is dispatched):
/// for entries read and left out for this reader, so they are not read again.
pub fn skipped(id: i64) -> Frame {
    Frame {
        id,
        bytes: Bytes::from(format!("id: {id}\n\n")),
    }
}

/// Reads entries with seq > `after` (at most [`PAGE`]), ascending, as the caller may see them.
/// `known`: a seq the stream was woken for (committed, so a shared read that reaches it is
/// fresh enough); None when there is no such promise (the first read, a wake-up of all).
/// Async: a read the streams of a process share is served on the worker, and only a store
/// read goes to the blocking pool.
pub type Reader = Arc<
    dyn Fn(i64, Option<i64>) -> BoxFuture<'static, Result<Vec<Frame>, ServiceError>> + Send + Sync,
>;

#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// A comment line this often while nothing happens, so proxies keep the connection.
    pub heartbeat: Duration,
    /// Frames held per connection.
    pub buffer: usize,
    /// How long a frame may wait for room before the client is dropped.
    pub send_timeout: Duration,
    /// The client's connection, looked at every [`PEER_CHECK`] for a hang-up.
    pub peer: Option<Peer>,
}

/// How often a quiet stream looks whether its client hung up.
const PEER_CHECK: Duration = Duration::from_secs(1);

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            heartbeat: Duration::from_secs(15),
            buffer: 32,
            send_timeout: Duration::from_secs(10),
            peer: None,
        }
    }
}

/// Where to resume: `Last-Event-ID` (what a reconnecting EventSource sends) wins over `after`;
/// default 0 (from the start). Not a seq (≥ 0): 400 `invalid_after`.
pub fn resume_from(req: &HttpRequest, after: Option<i64>) -> Result<i64, ServiceError> {
    let bad = || {
        ServiceError::new(
            Code::InvalidAfter,
            "Last-Event-ID and after must be a seq, 0 or more",
        )
    };
    let header = match req.headers().get("Last-Event-ID") {
        Some(value) => {
            let text = value.to_str().map_err(|_| bad())?.trim();
            Some(text.parse::<i64>().map_err(|_| bad())?)
        }
        None => None,
    };
    let after = header.or(after).unwrap_or(0);
    if after < 0 {
        return Err(bad());
    }
    Ok(after)
}

/// Opens a stream of `topic`'s log after `after`: the first page is read now, so a bad id or a
/// refusal answers as a problem, not as an empty stream.
pub async fn open(
    (store, hub): (&Store, &Hub),
    (topic, session, slot): (Topic, Session, Slot),
    after: i64,
    read: Reader,
    settings: Settings,
) -> Result<HttpResponse, ServiceError> {
    // Subscribe before the first read: nothing committed after it can be missed, and no
    // revocation after the token check.
    let woken = hub.subscribe(topic);
    let sessions = session.watch(hub);
    let resets = woken.borrow().resets;
    let first = read(after, None).await?;
    let (tx, rx) = mpsc::channel(settings.buffer.max(1));
    let at = Position { after, resets };
    let held = Held {
        session,
        sessions,
        closing: hub.closing(),
        _slot: slot,
    };
    actix_web::rt::spawn(pump(
        store.clone(),
        woken,
        held,
        at,
        first,
        read,
        settings,
        tx,
    ));
    let body = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv()
            .await
            .map(|bytes| (Ok::<Bytes, Infallible>(bytes), rx))
    });
    Ok(HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        // Compression would hold frames back until its block fills; proxies must not buffer.
        .insert_header((header::CONTENT_ENCODING, "identity"))
        .insert_header(("X-Accel-Buffering", "no"))
        .streaming(body))
}

/// The frames as one write: a stream woken for several events costs one send and one
/// socket write, not one per event.
fn join(frames: &[Frame]) -> Bytes {
    match frames {
        [one] => one.bytes.clone(),
        many => {
            let mut all = BytesMut::with_capacity(many.iter().map(|f| f.bytes.len()).sum());
            for frame in many {
                all.extend_from_slice(&frame.bytes);
            }
            all.freeze()
        }
    }
}

/// False when the client is gone or too slow: the connection ends.
async fn send(tx: &mpsc::Sender<Bytes>, bytes: Bytes, settings: &Settings) -> bool {
    matches!(
        tokio::time::timeout(settings.send_timeout, tx.send(bytes)).await,
        Ok(Ok(()))
    )
}

/// Where a stream is: the last seq sent, and the hub's resets its last full read answered for.
struct Position {
    after: i64,
    resets: u64,
}

/// The token that holds the stream open, and what tells it to check it again.
struct Held {
    session: Session,
    sessions: watch::Receiver<u64>,
    /// True once the process stops: the stream ends, and the client resumes elsewhere.
    closing: watch::Receiver<bool>,
    /// The stream's place among the bounded open streams, given back when it ends.
    _slot: Slot,
}

impl Held {
    /// False once the token is revoked: the stream then sends its last frame and ends.
    async fn still(&mut self, store: &Store, tx: &mpsc::Sender<Bytes>, fresh: bool) -> bool {
        self.sessions.borrow_and_update();
        if self.session.holds(store, fresh).await {
            return true;
        }
        // Best effort: a client that does not read gets no last frame, only the end.
        let _ = tx.try_send(Bytes::from_static(REVOKED_FRAME));
        false
    }
}

#[allow(clippy::too_many_arguments)]
async fn pump(
    store: Store,
    mut woken: watch::Receiver<Mark>,
    mut held: Held,
    at: Position,
    mut pending: Vec<Frame>,
    read: Reader,
    settings: Settings,
    tx: mpsc::Sender<Bytes>,
) {
    // A reconnecting client waits a second, not the browser default of three.
    if !send(&tx, Bytes::from_static(b"retry: 1000\n\n"), &settings).await {
        return;
    }
    let Position {
        mut after,
        mut resets,
    } = at;
    loop {
        if *held.closing.borrow() {
            return;
        }
        // A full page may have more behind it, whatever the wake-ups say.
        let full = pending.len() >= PAGE as usize;
        if let Some(last) = pending.last() {
            // A revocation announced while the page was read: nothing of it goes out.
            if held.sessions.has_changed().unwrap_or(true) && !held.still(&store, &tx, true).await {
                return;
            }
            after = last.id;
            if !send(&tx, join(&pending), &settings).await {
                return;
            }
        }
        let mark = *woken.borrow_and_update();
        // Read only when there is something to read: a seq announced past what was sent (the
        // shared tail serves it), a reset (a full read), or the rest of a full page. A stream
        // that has sent its wake-up's events then waits, instead of each of a thousand
        // streams asking the store whether there is more.
        let known = if mark.resets != resets {
            resets = mark.resets;
            Some(None)
        } else if mark.seq > after {
            Some(Some(mark.seq))
        } else if full {
            Some(None)
        } else {
            None
        };
        if let Some(known) = known {
            pending = match read(after, known).await {
                Ok(page) => page,
                Err(e) => {
                    tracing::warn!(error = %e, "stream read failed; the client will resume");
                    return;
                }
            };
            if !pending.is_empty() {
                continue;
            }
        } else {
            pending.clear();
        }
        let mut beat = tokio::time::Instant::now() + settings.heartbeat;
        loop {
            tokio::select! {
                changed = woken.changed() => {
                    if changed.is_err() {
                        return;
                    }
                    break;
                }
                _ = held.closing.changed() => return,
                changed = held.sessions.changed() => {
                    if changed.is_err() || !held.still(&store, &tx, true).await {
                        return;
                    }
                }
                () = tokio::time::sleep(PEER_CHECK), if settings.peer.is_some() => {
                    if settings.peer.is_some_and(|peer| peer.hung_up()) {
                        return;
                    }
                }
                () = tokio::time::sleep_until(beat) => {
                    beat = tokio::time::Instant::now() + settings.heartbeat;
                    // Also the bound should an announcement be lost.
                    if !held.still(&store, &tx, false).await {
                        return;
                    }
                    if !send(&tx, Bytes::from_static(b": heartbeat\n\n"), &settings).await {
                        return;
                    }
                }
                () = tx.closed() => return,
            }
        }
    }
}
