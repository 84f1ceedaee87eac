//! The FCM peer: an OAuth 2.0 token endpoint that checks the RS256 JWT-bearer assertion
//! (RFC 7523: signature by the service account's key, `iss`, `aud`, `scope`, `exp`) and an
//! HTTP v1 send endpoint (`/v1/projects/{id}/messages:send`) that checks the access token
//! and the message, and answers as told with FCM's error shapes (`UNREGISTERED`,
//! `QUOTA_EXCEEDED` with `Retry-After`, `INTERNAL`, `UNAUTHENTICATED`).

use std::collections::{HashSet, VecDeque};
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
            // Hang: hold the connection while the test kills the server.
            None => {
                while state.lock().expect("state").hang {
                    std::thread::sleep(Duration::from_millis(20));
                }
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
    if st.hang {
        st.sent.push(Sent {
            message,
            answered: 0,
            at: Instant::now(),
        });
        return None;
    }
    let token = m["token"].as_str().unwrap_or("").to_string();
    let answer = if st.gone.contains(&token) {
        None
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
