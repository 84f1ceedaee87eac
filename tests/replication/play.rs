//! A client of a real `racko serve`: accounts, two-player tables, and games played to their
//! end with the seats' hints, every action under an `Idempotency-Key` and sent again with it
//! until answered. What was acknowledged, and when the server was unavailable, is kept.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use reqwest::{Client, StatusCode};
use serde_json::{json, Value};

use crate::common::app::TEST_PASSWORD;

/// What a client was told: one action acknowledged (200) and the events it was answered with.
pub struct Acked {
    pub key: String,
    pub events: Vec<Value>,
}

/// The answers of the whole run, in the order they came, for the unavailability window.
#[derive(Default)]
pub struct Timeline {
    /// When each request failed with 503 (or its connection did).
    pub unavailable: Vec<Instant>,
    /// When each action was acknowledged.
    pub acked: Vec<Instant>,
}

pub struct Run {
    pub client: Client,
    pub url: String,
    pub timeline: Mutex<Timeline>,
    /// Actions acknowledged so far.
    pub acked: AtomicUsize,
}

impl Run {
    pub fn new(url: &str) -> Run {
        Run {
            client: Client::builder()
                .timeout(Duration::from_secs(20))
                .build()
                .expect("a client"),
            url: url.to_string(),
            timeline: Mutex::default(),
            acked: AtomicUsize::new(0),
        }
    }

    fn note(&self, ok: bool) {
        let mut timeline = self.timeline.lock().expect("timeline");
        if ok {
            timeline.acked.push(Instant::now());
        } else {
            timeline.unavailable.push(Instant::now());
        }
    }

    /// Sends until the answer is not "unavailable" (503, or no answer at all): the status and
    /// body then. Any other 5xx fails the test: the store's outage must never be a 500.
    pub async fn send(&self, request: impl Fn() -> reqwest::RequestBuilder) -> (StatusCode, Value) {
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            assert!(Instant::now() < deadline, "unavailable for two minutes");
            match request().send().await {
                Ok(res) if res.status() == StatusCode::SERVICE_UNAVAILABLE => {
                    let retry = res.headers().get("retry-after").cloned();
                    let body: Value = res.json().await.unwrap_or_default();
                    assert!(retry.is_some(), "503 without Retry-After: {body}");
                    // `busy` (a statement or the wait for a pooled connection ran out) is
                    // met under pg_auto_failover while the new primary takes over: a 503 with
                    // Retry-After, retried like the others (see docs/failover.md).
                    assert!(
                        ["store_unavailable", "store_busy", "busy"]
                            .contains(&body["code"].as_str().unwrap_or_default()),
                        "503 with {body}"
                    );
                    self.note(false);
                }
                Ok(res) => {
                    let status = res.status();
                    let body: Value = res.json().await.unwrap_or_default();
                    assert!(!status.is_server_error(), "{status}: {body}");
                    return (status, body);
                }
                Err(_) => self.note(false),
            }
            actix_web::rt::time::sleep(Duration::from_millis(100)).await;
        }
    }

    pub async fn register(&self, name: &str) -> String {
        let url = format!("{}/v1/accounts", self.url);
        let body = json!({ "username": name, "password": TEST_PASSWORD });
        let (status, answer) = self.send(|| self.client.post(&url).json(&body)).await;
        assert_eq!(status, StatusCode::CREATED, "{answer}");
        answer["token"].as_str().expect("a token").to_string()
    }

    /// A two-player game to one point (it ends with its first round), both seats taken.
    pub async fn table(&self, ann: &str, bob: &str) -> String {
        let url = format!("{}/v1/games", self.url);
        let body = json!({ "options": { "players": 2, "target": 1 }, "visibility": "public" });
        let (status, game) = self
            .send(|| self.client.post(&url).bearer_auth(ann).json(&body))
            .await;
        assert_eq!(status, StatusCode::CREATED, "{game}");
        let id = game["id"].as_str().expect("an id").to_string();
        let url = format!("{}/v1/games/{id}/join", self.url);
        let (status, joined) = self
            .send(|| self.client.post(&url).bearer_auth(bob).json(&json!({})))
            .await;
        assert_eq!(status, StatusCode::OK, "{joined}");
        id
    }

    /// Plays game `id` to its end, each seat taking its hint; every action keyed, and sent
    /// again with its key until answered.
    pub async fn play(&self, id: &str, seats: [&str; 2]) -> Vec<Acked> {
        let mut acked = Vec::new();
        let hint_url = format!("{}/v1/games/{id}/hint", self.url);
        let action_url = format!("{}/v1/games/{id}/actions", self.url);
        loop {
            let mut acted = false;
            for token in seats {
                let (status, hint) = self
                    .send(|| self.client.get(&hint_url).bearer_auth(token))
                    .await;
                if status == StatusCode::CONFLICT {
                    continue; // not this seat's turn, or the game is over
                }
                assert_eq!(status, StatusCode::OK, "hint: {hint}");
                let version = hint["version"].as_i64().expect("a version");
                let key = format!("{id}-{version}");
                let body = json!({ "version": version, "action": hint["action"] });
                let (status, answer) = self
                    .send(|| {
                        self.client
                            .post(&action_url)
                            .bearer_auth(token)
                            .header("idempotency-key", &key)
                            .json(&body)
                    })
                    .await;
                assert_eq!(status, StatusCode::OK, "{key}: {answer}");
                self.note(true);
                self.acked.fetch_add(1, Ordering::Relaxed);
                let events = answer["events"].as_array().cloned().unwrap_or_default();
                acked.push(Acked { key, events });
                acted = true;
            }
            if !acted {
                let url = format!("{}/v1/games/{id}", self.url);
                let (status, game) = self
                    .send(|| self.client.get(&url).bearer_auth(seats[0]))
                    .await;
                assert_eq!(status, StatusCode::OK, "{game}");
                assert_eq!(game["status"], "finished", "no seat has a move: {game}");
                return acked;
            }
        }
    }
}
