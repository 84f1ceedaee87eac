//! The Web Push peer: npm's `web-push-testing` (pinned in tests/peers, installed by
//! scripts/install-peers.sh), a localhost push service that hands out real subscriptions,
//! checks each push's VAPID token against the subscription's application server key and
//! decrypts its aes128gcm payload with an implementation of its own (`http_ece`).

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

fn peers_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/peers")
}

/// Installs the pinned peers once per test run (npm ci, from the lock file).
fn installed() -> PathBuf {
    static DONE: OnceLock<PathBuf> = OnceLock::new();
    DONE.get_or_init(|| {
        let server = peers_dir().join("node_modules/web-push-testing/src/bin/server.js");
        if !server.exists() {
            let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/install-peers.sh");
            let status = Command::new("bash")
                .arg(script)
                .status()
                .expect("scripts/install-peers.sh runs");
            assert!(status.success(), "installing the push peers failed");
        }
        server
    })
    .clone()
}

pub struct WebPushPeer {
    child: Child,
    pub base: String,
    client: reqwest::Client,
}

/// A subscription as `/subscribe` gives it (`PushSubscription.toJSON()` and `clientHash`).
pub struct Subscription {
    pub json: Value,
    pub hash: String,
}

impl WebPushPeer {
    pub async fn start() -> WebPushPeer {
        let server = installed();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let child = Command::new("node")
            .arg(server)
            .arg(port.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("node starts web-push-testing");
        let peer = WebPushPeer {
            child,
            base: format!("http://localhost:{port}"),
            client: reqwest::Client::new(),
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let up = peer
                .client
                .post(format!("{}/status", peer.base))
                .send()
                .await
                .is_ok_and(|r| r.status().is_success());
            if up {
                return peer;
            }
            assert!(Instant::now() < deadline, "web-push-testing did not start");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// A new subscription for the server's VAPID public key.
    pub async fn subscribe(&self, application_server_key: &str) -> Subscription {
        let res = self
            .client
            .post(format!("{}/subscribe", self.base))
            .json(&json!({ "applicationServerKey": application_server_key }))
            .send()
            .await
            .expect("subscribe");
        let body: Value = res.json().await.expect("a JSON answer");
        let data = body["data"].clone();
        let hash = data["clientHash"].as_str().expect("clientHash").to_string();
        let mut json = data;
        if let Some(fields) = json.as_object_mut() {
            fields.remove("clientHash");
        }
        Subscription { json, hash }
    }

    /// The decrypted payloads received for the subscription, in order.
    pub async fn messages(&self, hash: &str) -> Vec<Value> {
        let res = self
            .client
            .post(format!("{}/get-notifications", self.base))
            .json(&json!({ "clientHash": hash }))
            .send()
            .await
            .expect("get-notifications");
        let body: Value = res.json().await.unwrap_or(Value::Null);
        body["data"]["messages"]
            .as_array()
            .map(|list| {
                list.iter()
                    .filter_map(|m| m.as_str())
                    .map(|m| serde_json::from_str(m).expect("a JSON payload"))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Waits until `done` holds for the subscription's messages.
    pub async fn wait_for(
        &self,
        hash: &str,
        patience: Duration,
        done: impl Fn(&[Value]) -> bool,
    ) -> Vec<Value> {
        let deadline = Instant::now() + patience;
        loop {
            let got = self.messages(hash).await;
            if done(&got) {
                return got;
            }
            assert!(Instant::now() < deadline, "not pushed in time: {got:#?}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The browser unsubscribed: the push service answers 410 from now on.
    pub async fn expire(&self, hash: &str) {
        let res = self
            .client
            .post(format!("{}/expire-subscription/{hash}", self.base))
            .send()
            .await
            .expect("expire-subscription");
        assert!(res.status().is_success(), "{}", res.status());
    }
}

impl Drop for WebPushPeer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
