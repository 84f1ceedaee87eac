//! The APNs peer: an HTTP/2 server over TLS (a certificate made here, which the server is
//! told to trust) that checks what Apple checks: the ES256 provider token's signature, `kid`,
//! `iss` and `iat`; `apns-topic`, `apns-push-type`, `apns-expiration`, the payload's size; and
//! answers with APNs' status codes and `{"reason": …}` bodies (`Unregistered` with its
//! timestamp, `BadDeviceToken`, `InvalidProviderToken`, `MissingTopic`, `PayloadTooLarge`).

use std::collections::HashSet;
use std::convert::Infallible;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{json, Value};

pub const KEY_ID: &str = "ABC123DEFG";
pub const TEAM_ID: &str = "DEF123GHIJ";
pub const TOPIC: &str = "com.example.racko";

#[derive(Clone, Debug)]
pub struct Pushed {
    pub device: String,
    pub headers: Vec<(String, String)>,
    pub body: Value,
    /// The provider token it came with.
    pub token: String,
    pub answered: u16,
}

impl Pushed {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

#[derive(Default)]
struct State {
    unregistered: HashSet<String>,
    pushed: Vec<Pushed>,
}

pub struct ApnsPeer {
    pub url: String,
    /// The provider key (`.p8`) to configure, and the certificate to trust.
    pub key_file: PathBuf,
    pub ca_file: PathBuf,
    dir: PathBuf,
    state: Arc<Mutex<State>>,
}

impl ApnsPeer {
    pub fn start() -> ApnsPeer {
        let dir = std::env::temp_dir().join(format!("racko-apns-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).expect("a folder");
        // The provider key, as Apple hands it out: a P-256 key in PKCS#8 PEM.
        let group = openssl::ec::EcGroup::from_curve_name(openssl::nid::Nid::X9_62_PRIME256V1)
            .expect("P-256");
        let provider =
            openssl::pkey::PKey::from_ec_key(openssl::ec::EcKey::generate(&group).expect("a key"))
                .expect("a key");
        let key_file = dir.join("AuthKey.p8");
        std::fs::write(&key_file, provider.private_key_to_pem_pkcs8().expect("PEM"))
            .expect("written");
        let public = provider.public_key_to_pem().expect("public PEM");
        let (cert, tls_key) = certificate();
        let ca_file = dir.join("ca.pem");
        std::fs::write(&ca_file, &cert).expect("written");

        let identity = native_tls::Identity::from_pkcs8(&cert, &tls_key).expect("an identity");
        let acceptor = tokio_native_tls::TlsAcceptor::from(
            native_tls::TlsAcceptor::new(identity).expect("an acceptor"),
        );
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
        listener.set_nonblocking(true).expect("nonblocking");
        let url = format!(
            "https://localhost:{}",
            listener.local_addr().expect("address").port()
        );
        let state = Arc::new(Mutex::new(State::default()));
        let shared = state.clone();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .enable_all()
                .build()
                .expect("a runtime");
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
                loop {
                    let Ok((tcp, _)) = listener.accept().await else {
                        continue;
                    };
                    let (acceptor, state, public) =
                        (acceptor.clone(), shared.clone(), public.clone());
                    tokio::spawn(async move {
                        let Ok(tls) = acceptor.accept(tcp).await else {
                            return;
                        };
                        let service = hyper::service::service_fn(move |req| {
                            let (state, public) = (state.clone(), public.clone());
                            async move { Ok::<_, Infallible>(handle(req, &state, &public).await) }
                        });
                        let _ = hyper::server::conn::http2::Builder::new(
                            hyper_util::rt::TokioExecutor::new(),
                        )
                        .serve_connection(hyper_util::rt::TokioIo::new(tls), service)
                        .await;
                    });
                }
            });
        });
        ApnsPeer {
            url,
            key_file,
            ca_file,
            dir,
            state,
        }
    }

    /// The device token is unregistered from now on (410).
    pub fn unregister(&self, device: &str) {
        self.state
            .lock()
            .expect("state")
            .unregistered
            .insert(device.to_string());
    }

    pub fn pushed(&self) -> Vec<Pushed> {
        self.state.lock().expect("state").pushed.clone()
    }

    pub async fn wait_for(
        &self,
        patience: Duration,
        done: impl Fn(&[Pushed]) -> bool,
    ) -> Vec<Pushed> {
        let deadline = Instant::now() + patience;
        loop {
            let got = self.pushed();
            if done(&got) {
                return got;
            }
            assert!(Instant::now() < deadline, "not pushed in time: {got:#?}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

impl Drop for ApnsPeer {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A self-signed certificate for localhost and 127.0.0.1, and its key (PKCS#8 PEM).
fn certificate() -> (Vec<u8>, Vec<u8>) {
    use openssl::x509::extension::{BasicConstraints, SubjectAlternativeName};
    let key = openssl::pkey::PKey::from_rsa(openssl::rsa::Rsa::generate(2048).expect("rsa"))
        .expect("key");
    let mut name = openssl::x509::X509NameBuilder::new().expect("name");
    name.append_entry_by_text("CN", "localhost").expect("cn");
    let name = name.build();
    let mut cert = openssl::x509::X509Builder::new().expect("builder");
    cert.set_version(2).expect("v3");
    let serial = openssl::bn::BigNum::from_u32(1)
        .and_then(|n| n.to_asn1_integer())
        .expect("serial");
    cert.set_serial_number(&serial).expect("serial");
    cert.set_subject_name(&name).expect("subject");
    cert.set_issuer_name(&name).expect("issuer");
    cert.set_pubkey(&key).expect("key");
    let start = openssl::asn1::Asn1Time::days_from_now(0).expect("now");
    let end = openssl::asn1::Asn1Time::days_from_now(2).expect("later");
    cert.set_not_before(&start).expect("start");
    cert.set_not_after(&end).expect("end");
    cert.append_extension(BasicConstraints::new().critical().ca().build().expect("bc"))
        .expect("bc");
    let san = SubjectAlternativeName::new()
        .dns("localhost")
        .ip("127.0.0.1")
        .build(&cert.x509v3_context(None, None))
        .expect("san");
    cert.append_extension(san).expect("san");
    cert.sign(&key, openssl::hash::MessageDigest::sha256())
        .expect("signed");
    (
        cert.build().to_pem().expect("PEM"),
        key.private_key_to_pem_pkcs8().expect("PEM"),
    )
}

fn reply(
    status: u16,
    reason: Option<&str>,
    state: &Mutex<State>,
    mut pushed: Pushed,
) -> Response<Full<Bytes>> {
    pushed.answered = status;
    state.lock().expect("state").pushed.push(pushed);
    let body = match reason {
        Some("Unregistered") => {
            json!({ "reason": "Unregistered", "timestamp": chrono::Utc::now().timestamp_millis() })
                .to_string()
        }
        Some(reason) => json!({ "reason": reason }).to_string(),
        None => String::new(),
    };
    let mut res = Response::builder()
        .status(status)
        .header("apns-id", uuid::Uuid::new_v4().to_string());
    if reason.is_some() {
        res = res.header("content-type", "application/json");
    }
    res.body(Full::new(Bytes::from(body))).expect("a response")
}

async fn handle(
    req: Request<Incoming>,
    state: &Mutex<State>,
    public: &[u8],
) -> Response<Full<Bytes>> {
    let path = req.uri().path().to_string();
    let headers: Vec<(String, String)> = req
        .headers()
        .iter()
        .map(|(n, v)| (n.as_str().to_string(), v.to_str().unwrap_or("").to_string()))
        .collect();
    let header = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    };
    let bytes = req
        .into_body()
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    let device = path.strip_prefix("/3/device/").unwrap_or("").to_string();
    let token = header("authorization")
        .and_then(|a| {
            a.strip_prefix("bearer ")
                .or_else(|| a.strip_prefix("Bearer "))
                .map(str::to_string)
        })
        .unwrap_or_default();
    let pushed = Pushed {
        device: device.clone(),
        headers: headers.clone(),
        body: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        token: token.clone(),
        answered: 0,
    };
    if device.is_empty() {
        return reply(404, Some("BadPath"), state, pushed);
    }
    // The provider token: ES256 by the key with this id, issued by the team, at most an
    // hour old.
    let verified = DecodingKey::from_ec_pem(public).ok().and_then(|key| {
        let mut v = Validation::new(Algorithm::ES256);
        v.required_spec_claims = ["iss".to_string()].into_iter().collect();
        v.validate_exp = false;
        v.set_issuer(&[TEAM_ID]);
        let header = jsonwebtoken::decode_header(&token).ok()?;
        let claims = jsonwebtoken::decode::<Value>(&token, &key, &v).ok()?.claims;
        let iat = claims["iat"].as_i64()?;
        let fresh = (chrono::Utc::now().timestamp() - iat).abs() < 3600;
        (header.kid.as_deref() == Some(KEY_ID) && fresh).then_some(())
    });
    if verified.is_none() {
        return reply(403, Some("InvalidProviderToken"), state, pushed);
    }
    if header("apns-topic").as_deref() != Some(TOPIC) {
        return reply(400, Some("MissingTopic"), state, pushed);
    }
    if header("apns-push-type").as_deref() != Some("alert") {
        return reply(400, Some("InvalidPushType"), state, pushed);
    }
    if header("apns-expiration").is_none_or(|e| e.parse::<i64>().is_err()) {
        return reply(400, Some("BadExpirationDate"), state, pushed);
    }
    if bytes.len() > 4096 {
        return reply(413, Some("PayloadTooLarge"), state, pushed);
    }
    if pushed.body["aps"]["alert"]["body"].as_str().is_none() {
        return reply(400, Some("PayloadEmpty"), state, pushed);
    }
    if !(device.len() == 64 && device.bytes().all(|b| b.is_ascii_hexdigit())) {
        return reply(400, Some("BadDeviceToken"), state, pushed);
    }
    if state.lock().expect("state").unregistered.contains(&device) {
        return reply(410, Some("Unregistered"), state, pushed);
    }
    reply(200, None, state, pushed)
}
