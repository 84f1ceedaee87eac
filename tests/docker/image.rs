//! The image as `docker run` would start it, without a Docker engine: the binary built from
//! the build stage's context, laid out under a folder standing for the image's root as the run
//! stage's `COPY --from` puts it, started from the run stage's `ENTRYPOINT` and `CMD` in its
//! `WORKDIR`, with its `ENV` and nothing else, answering its `HEALTHCHECK`'s URL.
//!
//! Not checked here (an engine would): the base images and their packages (`apt-get`, the CA
//! bundle, `curl` inside the image), `useradd` and the switch to `USER` (the process runs as
//! the test's user; that it writes only under WORKDIR is checked by where its data appears,
//! not enforced), the release profile (the test builds the debug profile, to reuse the
//! compiled dependencies), and the port mapping (the image's port is replaced by a free one,
//! as `docker run -p <free>:<port>` would map it).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::file::RunStage;

/// Where an image's `PATH` looks for a bare command, as Docker's default.
const IMAGE_PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/// A started image, killed when dropped.
pub struct Running {
    child: Child,
    pub url: String,
    pub health: String,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `path` inside the image root `root`.
pub fn inside(root: &Path, path: &str) -> PathBuf {
    root.join(path.trim_start_matches('/'))
}

/// A port nobody listens on now.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// Starts the image laid out under `root` as its ENTRYPOINT and CMD would, with its ENV.
pub fn start(root: &Path, image: &RunStage) -> Running {
    assert!(
        !image.user.is_empty() && image.user != "root",
        "the image runs as a user of its own, not root: USER {:?}",
        image.user
    );
    let workdir = inside(root, &image.workdir);
    std::fs::create_dir_all(&workdir).expect("the WORKDIR (the user's home)");
    let port = free_port();
    let mut env = image.env.clone();
    let bind = env
        .iter_mut()
        .find(|(k, _)| k == "RACKO_BIND")
        .expect("the image sets RACKO_BIND");
    let (host, image_port) = bind.1.rsplit_once(':').expect("host:port");
    let image_port: u16 = image_port.parse().expect("a port");
    assert!(
        image.expose.contains(&image_port),
        "the image binds {image_port} and exposes {:?}",
        image.expose
    );
    bind.1 = format!("{host}:{port}");
    let argv: Vec<&String> = image.entrypoint.iter().chain(&image.cmd).collect();
    let (program, args) = argv.split_first().expect("an ENTRYPOINT or CMD");
    let program = if program.contains('/') {
        inside(root, program)
    } else {
        IMAGE_PATH
            .split(':')
            .map(|dir| inside(root, dir).join(program.as_str()))
            .find(|p| p.is_file())
            .unwrap_or_else(|| panic!("{program} is nowhere on the image's PATH"))
    };
    let child = Command::new(&program)
        .args(args.iter().map(|a| a.as_str()))
        .current_dir(&workdir)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .env("HOME", &workdir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{} starts: {e}", program.display()));
    let health = image
        .healthcheck
        .as_deref()
        .and_then(|cmd| cmd.split_whitespace().find(|w| w.starts_with("http://")))
        .expect("a HEALTHCHECK that asks a URL")
        .replace(&format!(":{image_port}/"), &format!(":{port}/"));
    Running {
        child,
        url: format!("http://127.0.0.1:{port}"),
        health,
    }
}

/// Waits until the health check's URL answers 2xx.
pub async fn healthy(running: &mut Running, patience: Duration) {
    let client = reqwest::Client::new();
    let start = Instant::now();
    loop {
        if let Ok(Some(status)) = running.child.try_wait() {
            panic!("the image's process exited: {status}");
        }
        let answered = client.get(&running.health).send().await;
        if answered.is_ok_and(|r| r.status().is_success()) {
            return;
        }
        assert!(
            start.elapsed() < patience,
            "{} never answered 2xx",
            running.health
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn call(req: reqwest::RequestBuilder) -> Value {
    let res = req.send().await.expect("answered");
    let status = res.status();
    let body: Value = res.json().await.unwrap_or(Value::Null);
    assert!(status.is_success(), "{status}: {body}");
    body
}

/// The action to send from a view's legal actions: call Racko when it may, else draw, else
/// place the drawn card in the slot nearest its value, else the first.
fn pick(view: &Value) -> Option<Value> {
    let table = &view["table"];
    let legal = table["legal_actions"].as_array()?;
    let of = |kind: &'static str| legal.iter().filter(move |a| a["type"] == kind);
    if let Some(call) = of("call_racko").next() {
        return Some(call.clone());
    }
    if let Some(draw) = of("draw").next() {
        return Some(draw.clone());
    }
    if let Some(value) = table["drawn"]["value"].as_i64() {
        if let Some(place) = of("place_drawn").min_by_key(|a| {
            let slot = a["slot"].as_i64().unwrap_or(0);
            (slot - value).abs()
        }) {
            return Some(place.clone());
        }
    }
    legal.first().cloned()
}

/// A guest plays a two-player game to its end against a basic computer, over HTTP; the number
/// of actions it sent.
pub async fn smoke_game(base: &str) -> usize {
    let client = reqwest::Client::new();
    let guest = call(client.post(format!("{base}/v1/guests")).json(&json!({}))).await;
    let token = guest["token"].as_str().expect("a token").to_string();
    let body = json!({
        "options": { "players": 2, "target": 1 },
        "computer": [{ "seat": 1, "level": "basic" }],
    });
    let game = call(
        client
            .post(format!("{base}/v1/games"))
            .bearer_auth(&token)
            .json(&body),
    )
    .await;
    let id = game["id"].as_str().expect("an id").to_string();
    let start = Instant::now();
    let (mut sent, mut stale) = (0, 0);
    loop {
        let view = call(
            client
                .get(format!("{base}/v1/games/{id}"))
                .bearer_auth(&token),
        )
        .await;
        if view["status"] == "finished" {
            return sent;
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "the game never ended: {view}"
        );
        match pick(&view) {
            Some(action) => {
                let body = json!({ "version": view["version"], "action": action });
                let res = client
                    .post(format!("{base}/v1/games/{id}/actions"))
                    .bearer_auth(&token)
                    .json(&body)
                    .send()
                    .await
                    .expect("answered");
                let status = res.status();
                let answer: Value = res.json().await.unwrap_or(Value::Null);
                // A Racko call may be made off turn (R4.2), so it can race the computer's
                // move: the game moved on, and the next view says what is legal now.
                if status == reqwest::StatusCode::CONFLICT && answer["code"] == "stale_version" {
                    stale += 1;
                    assert!(stale <= 20, "stale again and again: {answer}");
                    continue;
                }
                assert!(status.is_success(), "{status}: {answer}");
                sent += 1;
            }
            // The computer's turn.
            None => tokio::time::sleep(Duration::from_millis(20)).await,
        }
    }
}
