//! A real webhook receiver for the tests: a std `TcpListener` on its own thread that reads
//! each POST, checks its Standard Webhooks signature with the secret it is given, records it,
//! and answers as told (500 to the first try of each delivery, 200, or no answer at all).

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::{engine::general_purpose::STANDARD, Engine};
use serde_json::Value;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// 500 to the first attempt of each `webhook-id`, 200 after.
    FailFirst,
    Ok,
    AlwaysFail,
    /// Read the request and never answer (the connection is held until the mode changes).
    Hang,
}

/// One request as received.
#[derive(Clone, Debug)]
pub struct Received {
    pub id: String,
    pub body: Value,
    pub signed: bool,
    pub answered: u16,
    /// When it arrived (its body read).
    pub at: Instant,
}

#[derive(Default)]
struct State {
    secret: Option<String>,
    mode: Option<Mode>,
    received: Vec<Received>,
    tried: HashSet<String>,
}

#[derive(Clone)]
pub struct Receiver {
    pub url: String,
    state: Arc<Mutex<State>>,
}

impl Receiver {
    pub fn start(mode: Mode) -> Receiver {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a port");
        let url = format!("http://{}/hook", listener.local_addr().expect("address"));
        let state = Arc::new(Mutex::new(State {
            mode: Some(mode),
            ..State::default()
        }));
        let shared = state.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming().flatten() {
                let state = shared.clone();
                std::thread::spawn(move || serve(conn, &state));
            }
        });
        Receiver { url, state }
    }

    /// The `whsec_…` secret to verify signatures with.
    pub fn set_secret(&self, secret: &str) {
        self.state.lock().expect("state").secret = Some(secret.to_string());
    }

    pub fn set_mode(&self, mode: Mode) {
        self.state.lock().expect("state").mode = Some(mode);
    }

    pub fn received(&self) -> Vec<Received> {
        self.state.lock().expect("state").received.clone()
    }

    /// Waits until `done` holds for what was received (or panics after `patience`).
    pub async fn wait_for(
        &self,
        patience: Duration,
        done: impl Fn(&[Received]) -> bool,
    ) -> Vec<Received> {
        let deadline = Instant::now() + patience;
        loop {
            let got = self.received();
            if done(&got) {
                return got;
            }
            assert!(Instant::now() < deadline, "not received in time: {got:#?}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

fn serve(conn: TcpStream, state: &Mutex<State>) {
    let mut reader = BufReader::new(conn.try_clone().expect("clone"));
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let line = line.trim_end().to_string();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
        }
    }
    let header = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    let length: usize = header("content-length").parse().unwrap_or(0);
    let mut body = vec![0; length];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let body = String::from_utf8(body).expect("UTF-8 body");
    let (id, timestamp, signature) = (
        header("webhook-id"),
        header("webhook-timestamp"),
        header("webhook-signature"),
    );
    let (mode, signed) = {
        let st = state.lock().expect("state");
        let signed = st
            .secret
            .as_deref()
            .is_some_and(|secret| verify(secret, &id, &timestamp, &body, &signature));
        (st.mode.unwrap_or(Mode::Ok), signed)
    };
    let status = match mode {
        Mode::Hang => {
            record(state, &id, &body, signed, 0);
            // Hold the connection while the test kills the server.
            while state.lock().expect("state").mode == Some(Mode::Hang) {
                std::thread::sleep(Duration::from_millis(20));
            }
            return;
        }
        Mode::Ok => 200,
        Mode::AlwaysFail => 500,
        Mode::FailFirst => {
            let first = state.lock().expect("state").tried.insert(id.clone());
            if first {
                500
            } else {
                200
            }
        }
    };
    record(state, &id, &body, signed, status);
    let mut conn = conn;
    let _ = write!(
        conn,
        "HTTP/1.1 {status} X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    );
}

fn record(state: &Mutex<State>, id: &str, body: &str, signed: bool, answered: u16) {
    state.lock().expect("state").received.push(Received {
        id: id.to_string(),
        body: serde_json::from_str(body).expect("a JSON body"),
        signed,
        answered,
        at: Instant::now(),
    });
}

/// Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body` under the key.
fn verify(secret: &str, id: &str, timestamp: &str, body: &str, signature: &str) -> bool {
    let Some(key) = secret
        .strip_prefix("whsec_")
        .and_then(|k| STANDARD.decode(k).ok())
    else {
        return false;
    };
    let fresh = timestamp
        .parse::<i64>()
        .is_ok_and(|t| (chrono::Utc::now().timestamp() - t).abs() < 300);
    let mac =
        racko::notify::signing::hmac_sha256(&key, format!("{id}.{timestamp}.{body}").as_bytes());
    let expected = format!("v1,{}", STANDARD.encode(mac));
    fresh && signature.split(' ').any(|s| s == expected)
}
