//! Server-Sent Events over the logs. Each connection has a task that reads a page of the log
//! after the last seq sent, writes it into a bounded channel (the response body reads from
//! it), and waits on the hub when it has caught up. A client too slow to take a frame within
//! `send_timeout` is dropped: the server keeps at most `buffer` frames per connection, and the
//! client resumes from the log with `Last-Event-ID`.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use actix_web::{http::header, web::Bytes, HttpRequest, HttpResponse};
use tokio::sync::{mpsc, watch};

use super::Topic;
use crate::app::blocking;
use crate::error::{Code, ServiceError};
use crate::store::Store;

/// Entries per read of the log.
pub const PAGE: i64 = 100;

/// One entry: its seq (the SSE `id`) and its JSON (one line).
pub struct Frame {
    pub id: i64,
    pub data: String,
}

/// Reads entries with seq > `after` (at most [`PAGE`]), ascending, as the caller may see them.
/// `known`: a seq the stream was woken for (committed, so a shared read that reaches it is
/// fresh enough); None when there is no such promise (the first read, a wake-up of all).
pub type Reader =
    Arc<dyn Fn(&Store, i64, Option<i64>) -> Result<Vec<Frame>, ServiceError> + Send + Sync>;

#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// A comment line this often while nothing happens, so proxies keep the connection.
    pub heartbeat: Duration,
    /// Frames held per connection.
    pub buffer: usize,
    /// How long a frame may wait for room before the client is dropped.
    pub send_timeout: Duration,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            heartbeat: Duration::from_secs(15),
            buffer: 32,
            send_timeout: Duration::from_secs(10),
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
    store: &Store,
    topic: Topic,
    after: i64,
    read: Reader,
    settings: Settings,
) -> Result<HttpResponse, ServiceError> {
    // Subscribe before the first read: nothing committed after it can be missed.
    let woken = store.hub().subscribe(topic);
    let first = {
        let read = read.clone();
        blocking(store, move |s| read(s, after, None)).await?
    };
    let (tx, rx) = mpsc::channel(settings.buffer.max(1));
    actix_web::rt::spawn(pump(store.clone(), woken, after, first, read, settings, tx));
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

fn encode(frame: &Frame) -> Bytes {
    Bytes::from(format!("id: {}\ndata: {}\n\n", frame.id, frame.data))
}

/// False when the client is gone or too slow: the connection ends.
async fn send(tx: &mpsc::Sender<Bytes>, bytes: Bytes, settings: &Settings) -> bool {
    matches!(
        tokio::time::timeout(settings.send_timeout, tx.send(bytes)).await,
        Ok(Ok(()))
    )
}

async fn pump(
    store: Store,
    mut woken: watch::Receiver<i64>,
    mut after: i64,
    mut pending: Vec<Frame>,
    read: Reader,
    settings: Settings,
    tx: mpsc::Sender<Bytes>,
) {
    // A reconnecting client waits a second, not the browser default of three.
    if !send(&tx, Bytes::from_static(b"retry: 1000\n\n"), &settings).await {
        return;
    }
    loop {
        for frame in pending.drain(..) {
            after = frame.id;
            if !send(&tx, encode(&frame), &settings).await {
                return;
            }
        }
        let seen = *woken.borrow_and_update();
        let known = (seen > after).then_some(seen);
        let read = read.clone();
        pending = match blocking(&store, move |s| read(s, after, known)).await {
            Ok(page) => page,
            Err(e) => {
                tracing::warn!(error = %e, "stream read failed; the client will resume");
                return;
            }
        };
        if !pending.is_empty() {
            continue;
        }
        loop {
            tokio::select! {
                changed = woken.changed() => {
                    if changed.is_err() {
                        return;
                    }
                    break;
                }
                () = tokio::time::sleep(settings.heartbeat) => {
                    if !send(&tx, Bytes::from_static(b": heartbeat\n\n"), &settings).await {
                        return;
                    }
                }
                () = tx.closed() => return,
            }
        }
    }
}
