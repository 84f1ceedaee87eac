//! A small Server-Sent Events client for the tests: opens a stream, reads frames (`id:` and
//! `data:` lines, ended by a blank line), and stops when told.

use std::time::Duration;

use reqwest::{header, StatusCode};
use serde_json::Value;

use crate::common::app::TestApp;

/// One frame: its `id` and its `data` as JSON.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    pub id: i64,
    pub data: Value,
}

/// An open stream.
pub struct Stream {
    res: reqwest::Response,
    buffer: String,
    /// Comment lines (heartbeats) seen so far.
    pub comments: usize,
}

impl Stream {
    /// Opens `path` (with `Last-Event-ID` when given); asserts 200 and `text/event-stream`.
    pub async fn open(app: &TestApp, path: &str, token: Option<&str>, last: Option<i64>) -> Stream {
        Stream::open_at(&app.address, path, token, last).await
    }

    /// As `open`, on the server at `base` (`http://127.0.0.1:PORT`).
    pub async fn open_at(base: &str, path: &str, token: Option<&str>, last: Option<i64>) -> Stream {
        let mut req = reqwest::Client::new()
            .get(format!("{base}{path}"))
            .header(header::ACCEPT, "text/event-stream");
        if let Some(token) = token {
            req = req.bearer_auth(token);
        }
        if let Some(last) = last {
            req = req.header("Last-Event-ID", last.to_string());
        }
        let res = req.send().await.expect("stream opened");
        assert_eq!(res.status(), StatusCode::OK, "{path}");
        let kind = res
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string();
        assert!(kind.starts_with("text/event-stream"), "{path}: {kind}");
        Stream {
            res,
            buffer: String::new(),
            comments: 0,
        }
    }

    /// The next frame with data, or None when nothing comes within `patience` or the stream
    /// ends.
    pub async fn next(&mut self, patience: Duration) -> Option<Frame> {
        let deadline = tokio::time::Instant::now() + patience;
        loop {
            while let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let (mut id, mut data) = (None, None);
                for line in block.lines() {
                    if line.starts_with(':') {
                        self.comments += 1;
                    } else if let Some(v) = line.strip_prefix("id: ") {
                        id = Some(v.parse::<i64>().expect("a numeric id"));
                    } else if let Some(v) = line.strip_prefix("data: ") {
                        data = Some(serde_json::from_str(v).expect("JSON data"));
                    }
                }
                if let (Some(id), Some(data)) = (id, data) {
                    return Some(Frame { id, data });
                }
            }
            let chunk = tokio::time::timeout_at(deadline, self.res.chunk()).await;
            match chunk {
                Ok(Ok(Some(bytes))) => self
                    .buffer
                    .push_str(std::str::from_utf8(&bytes).expect("UTF-8")),
                _ => return None,
            }
        }
    }

    /// Everything the stream still sends until it ends, raw; None when it is still open after
    /// `patience`.
    pub async fn rest(&mut self, patience: Duration) -> Option<String> {
        let deadline = tokio::time::Instant::now() + patience;
        let mut rest = std::mem::take(&mut self.buffer);
        loop {
            match tokio::time::timeout_at(deadline, self.res.chunk()).await {
                Ok(Ok(Some(bytes))) => rest.push_str(std::str::from_utf8(&bytes).expect("UTF-8")),
                Ok(Ok(None)) | Ok(Err(_)) => return Some(rest),
                Err(_) => return None,
            }
        }
    }

    /// Frames until one has `id` ≥ `last` (or `patience` passes between two frames).
    pub async fn until(&mut self, last: i64, patience: Duration) -> Vec<Frame> {
        let mut frames = Vec::new();
        while frames.last().is_none_or(|f: &Frame| f.id < last) {
            match self.next(patience).await {
                Some(frame) => frames.push(frame),
                None => break,
            }
        }
        frames
    }

    /// The data of the frames up to seq `last`, as [`Stream::until`] reads them.
    pub async fn data_until(&mut self, last: i64, patience: Duration) -> Vec<Value> {
        let frames = self.until(last, patience).await;
        frames.into_iter().map(|f| f.data).collect()
    }
}

/// The last seq of game `id`'s log.
pub async fn last_seq(app: &TestApp, token: Option<&str>, id: &str) -> i64 {
    let mut after = 0;
    loop {
        let path = format!("/v1/games/{id}/events?after={after}&limit=500");
        let page = crate::common::app::json_body(app.get(&path, token).await, StatusCode::OK).await;
        let next = page["next_after"].as_i64().expect("next_after");
        if next == after {
            return after;
        }
        after = next;
    }
}
