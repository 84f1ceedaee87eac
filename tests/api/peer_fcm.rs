//! The FCM peer: an OAuth 2.0 token endpoint that checks the RS256 JWT-bearer assertion
//! (RFC 7523: signature by the service account's key, `iss`, `aud`, `scope`, `exp`) and an
//! HTTP v1 send endpoint (`/v1/projects/{id}/messages:send`) that checks the access token
//! and the message, and answers as told with FCM's error shapes (`UNREGISTERED`,
//! `QUOTA_EXCEEDED` with `Retry-After`, `INTERNAL`, `UNAUTHENTICATED`).

use std::collections::{HashMap, HashSet, VecDeque};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{json, Value};

pub const PROJECT: &str = "racko-test";
pub const EMAIL: &str = "push@racko-test.iam.gserviceaccount.com";

/// How the send endpoint answers a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    Ok,
    /// 429 `QUOTA_EXCEEDED` with `Retry-After: 1`.
    Quota,
    /// 500 `INTERNAL`.
    Internal,
}

#[derive(Clone, Debug)]
pub struct Sent {
    pub message: Value,
    pub answered: u16,
    pub at: Instant,
}

#[derive(Default)]
struct State {
    /// Answers to the next messages, in order; then `Ok`.
    script: VecDeque<Answer>,
    hang: bool,
    /// Tokens whose messages are held without an answer until the sender gives up.
    slow: HashSet<String>,
    /// Tokens whose messages always get 500 `INTERNAL`.
    failing: HashSet<String>,
    /// Messages held now, and the most ever held at once, per token.
    held: HashMap<String, usize>,
    most_held: HashMap<String, usize>,
    gone: HashSet<String>,
    tokens: HashSet<String>,
    /// Token requests with a valid assertion.
    grants: usize,
    sent: Vec<Sent>,
}

#[derive(Clone)]
pub struct FcmPeer {
    pub base: String,
    /// The service account key file to configure (`token_uri` points here).
    pub account_file: PathBuf,
    state: Arc<Mutex<State>>,
    _dir: Arc<tempdir::Dir>,
}

mod tempdir {
    /// A folder removed when dropped.
    pub struct Dir(pub std::path::PathBuf);
    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

impl FcmPeer {
    pub fn start() -> FcmPeer {
        let rsa = openssl::rsa::Rsa::generate(2048).expect("an RSA key");
        let key = openssl::pkey::PKey::from_rsa(rsa).expect("a key");
        let private =
            String::from_utf8(key.private_key_to_pem_pkcs8().expect("PEM")).expect("utf8");
        let public = key.public_key_to_pem().expect("public PEM");
        let listener = TcpListener::bind("127.0.0.1:0").expect("a port");
        let base = format!("http://{}", listener.local_addr().expect("address"));
        let dir = std::env::temp_dir().join(format!("racko-fcm-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).expect("a folder");
        let account_file = dir.join("service-account.json");
        let account = json!({
            "type": "service_account",
            "project_id": PROJECT,
            "private_key_id": "test",
            "private_key": private,
            "client_email": EMAIL,
            "token_uri": format!("{base}/token"),
        });
        std::fs::write(&account_file, account.to_string()).expect("written");
        let state = Arc::new(Mutex::new(State::default()));
        let shared = state.clone();
        let token_uri = format!("{base}/token");
        std::thread::spawn(move || {
            for conn in listener.incoming().flatten() {
                let (state, public, aud) = (shared.clone(), public.clone(), token_uri.clone());
                std::thread::spawn(move || serve(conn, &state, &public, &aud));
            }
        });
        FcmPeer {
            base,
            account_file,
            state,
            _dir: Arc::new(tempdir::Dir(dir)),
        }
    }

    pub fn script(&self, answers: &[Answer]) {
        self.state.lock().expect("state").script = answers.iter().copied().collect();
    }

    pub fn hang(&self, on: bool) {
        self.state.lock().expect("state").hang = on;
    }

    /// Messages to `token` are held unanswered (until the sender hangs up), or not.
    pub fn slow(&self, token: &str, on: bool) {
        let mut st = self.state.lock().expect("state");
        if on {
            st.slow.insert(token.to_string());
        } else {
            st.slow.remove(token);
        }
    }

    /// Messages to `token` get 500 from now on.
    pub fn fail(&self, token: &str) {
        let mut st = self.state.lock().expect("state");
        st.failing.insert(token.to_string());
    }

    /// The most messages to one token ever held at once.
    pub fn most_held_at_once(&self) -> usize {
        let st = self.state.lock().expect("state");
        st.most_held.values().copied().max().unwrap_or(0)
    }

    /// The token is unregistered from now on.
    pub fn forget(&self, token: &str) {
        self.state
            .lock()
            .expect("state")
            .gone
            .insert(token.to_string());
    }

    pub fn grants(&self) -> usize {
        self.state.lock().expect("state").grants
    }

    pub fn sent(&self) -> Vec<Sent> {
        self.state.lock().expect("state").sent.clone()
    }

    pub async fn wait_for(&self, patience: Duration, done: impl Fn(&[Sent]) -> bool) -> Vec<Sent> {
        let deadline = Instant::now() + patience;
        loop {
            let got = self.sent();
            if done(&got) {
                return got;
            }
            assert!(Instant::now() < deadline, "not sent in time: {got:#?}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

fn error(code: u16, status: &str, fcm: Option<&str>, message: &str) -> Value {
    let mut e = json!({ "error": { "code": code, "message": message, "status": status } });
    if let Some(fcm) = fcm {
        e["error"]["details"] = json!([{
            "@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError",
            "errorCode": fcm,
        }]);
    }
    e
}

fn serve(conn: TcpStream, state: &Mutex<State>, public: &[u8], aud: &str) {
    let mut reader = BufReader::new(conn.try_clone().expect("clone"));
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
        return;
    }
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
    let body = String::from_utf8(body).unwrap_or_default();
    let path = request_line
        .split_whitespace()
        .nth(1)
        .unwrap_or("")
        .to_string();
    let (status, extra, answer) = if path == "/token" {
        token(state, &body, public, aud)
    } else if path == format!("/v1/projects/{PROJECT}/messages:send") {
        match send(state, &header("authorization"), &body) {
            Some(answer) => answer,
            // Hang: hold the connection while the test kills the server, or (a slow token)
            // until the sender hangs up.
            None => {
                hold(&conn, state, &body);
                return;
            }
        }
    } else {
        (
            404,
            String::new(),
            error(404, "NOT_FOUND", None, "no such path"),
        )
    };
    let text = answer.to_string();
    let mut conn = conn;
    let _ = write!(
        conn,
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n{text}",
        text.len()
    );
}

/// The JWT-bearer grant: the assertion must be signed by the account's key, for this
/// endpoint, with the messaging scope.
fn token(state: &Mutex<State>, form: &str, public: &[u8], aud: &str) -> (u16, String, Value) {
    let field = |name: &str| {
        form.split('&')
            .filter_map(|kv| kv.split_once('='))
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.replace("%3A", ":").replace("%3a", ":"))
            .unwrap_or_default()
    };
    let bad = |why: &str| {
        (
            400,
            String::new(),
            json!({ "error": "invalid_grant", "error_description": why }),
        )
    };
    if field("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" {
        return bad("unsupported grant type");
    }
    let Ok(key) = DecodingKey::from_rsa_pem(public) else {
        return bad("no key");
    };
    let mut validation = Validation::new(Algorithm::RS256);
    validation.set_audience(&[aud]);
    validation.set_issuer(&[EMAIL]);
    let claims = match jsonwebtoken::decode::<Value>(&field("assertion"), &key, &validation) {
        Ok(data) => data.claims,
        Err(e) => return bad(&format!("Invalid JWT Signature: {e}")),
    };
    if claims["scope"] != "https://www.googleapis.com/auth/firebase.messaging" {
        return bad("wrong scope");
    }
    let mut st = state.lock().expect("state");
    st.grants += 1;
    let access = format!("ya29.test-{}", uuid::Uuid::new_v4().simple());
    st.tokens.insert(access.clone());
    (
        200,
        String::new(),
        json!({ "access_token": access, "expires_in": 3599, "token_type": "Bearer" }),
    )
}

/// Holds a message unanswered while the peer hangs or its token is slow, and the sender
/// still waits; counts the messages held per token.
fn hold(conn: &TcpStream, state: &Mutex<State>, body: &str) {
    let message: Value = serde_json::from_str(body).unwrap_or(Value::Null);
    let token = message["message"]["token"]
        .as_str()
        .unwrap_or("")
        .to_string();
    {
        let mut st = state.lock().expect("state");
        let now = {
            let n = st.held.entry(token.clone()).or_insert(0);
            *n += 1;
            *n
        };
        let most = st.most_held.entry(token.clone()).or_insert(0);
        *most = (*most).max(now);
    }
    let _ = conn.set_read_timeout(Some(Duration::from_millis(20)));
    let mut byte = [0u8; 1];
    loop {
        {
            let st = state.lock().expect("state");
            if !st.hang && !st.slow.contains(&token) {
                break;
            }
        }
        // Ok(0): the sender closed the connection (its timeout).
        match conn.peek(&mut byte) {
            Ok(0) => break,
            Ok(_) => std::thread::sleep(Duration::from_millis(20)),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => break,
        }
    }
    let mut st = state.lock().expect("state");
    if let Some(n) = st.held.get_mut(&token) {
        *n -= 1;
    }
}

/// None: hang.
fn send(state: &Mutex<State>, authorization: &str, body: &str) -> Option<(u16, String, Value)> {
    let mut st = state.lock().expect("state");
    let bearer = authorization.strip_prefix("Bearer ").unwrap_or("");
    if !st.tokens.contains(bearer) {
        let e = error(
            401,
            "UNAUTHENTICATED",
            None,
            "Request had invalid authentication credentials.",
        );
        return Some((401, String::new(), e));
    }
    let message: Value = serde_json::from_str(body).unwrap_or(Value::Null);
    let m = &message["message"];
    let well_formed = m["token"].is_string()
        && m["notification"]["title"].is_string()
        && m["data"]
            .as_object()
            .is_some_and(|d| d.values().all(Value::is_string))
        && m["android"]["ttl"]
            .as_str()
            .is_some_and(|t| t.ends_with('s'));
    if !well_formed {
        let e = error(
            400,
            "INVALID_ARGUMENT",
            Some("INVALID_ARGUMENT"),
            "Invalid message",
        );
        return Some((400, String::new(), e));
    }
    let token = m["token"].as_str().unwrap_or("").to_string();
    if st.hang || st.slow.contains(&token) {
        st.sent.push(Sent {
            message,
            answered: 0,
            at: Instant::now(),
        });
        return None;
    }
    let answer = if st.gone.contains(&token) {
        None
    } else if st.failing.contains(&token) {
        Some(Answer::Internal)
    } else {
        Some(st.script.pop_front().unwrap_or(Answer::Ok))
    };
    let (status, extra, reply) = match answer {
        None => (
            404,
            String::new(),
            error(
                404,
                "NOT_FOUND",
                Some("UNREGISTERED"),
                "Requested entity was not found.",
            ),
        ),
        Some(Answer::Quota) => (
            429,
            "Retry-After: 1\r\n".to_string(),
            error(
                429,
                "RESOURCE_EXHAUSTED",
                Some("QUOTA_EXCEEDED"),
                "Quota exceeded.",
            ),
        ),
        Some(Answer::Internal) => (
            500,
            String::new(),
            error(
                500,
                "INTERNAL",
                Some("INTERNAL"),
                "Internal error encountered.",
            ),
        ),
        Some(Answer::Ok) => (
            200,
            String::new(),
            json!({ "name": format!("projects/{PROJECT}/messages/0:{}", uuid::Uuid::new_v4().simple()) }),
        ),
    };
    st.sent.push(Sent {
        message,
        answered: status,
        at: Instant::now(),
    });
    Some((status, extra, reply))
}
