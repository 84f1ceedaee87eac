//! The walk-through, `scripts/walkthrough.sh` (docs/development.md), works whatever is dealt:
//! it runs many times against the real binary, started as `cargo run` starts it (embedded
//! SQLite in its own folder, random deals, test mode off), and every run must exit 0. The
//! script exits 1 on any answer that is not 2xx, so a move that ignores the legal actions
//! fails here.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const RUNS: usize = 20;

struct Server {
    child: Child,
    url: String,
    dir: PathBuf,
}

impl Server {
    fn start() -> Server {
        let dir =
            std::env::temp_dir().join(format!("racko_walk_{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        let mut child = Command::new(env!("CARGO_BIN_EXE_racko"))
            .arg("serve")
            .current_dir(&dir)
            // As `cargo run`: the default store (racko-data/ in the working folder), a secret
            // generated and kept there, no test mode.
            .env_remove("DATABASE_URL")
            .env_remove("RACKO_JWT_SECRET")
            .env_remove("RACKO_TEST_MODE")
            .env_remove("RACKO_ENV")
            .env("RACKO_BIND", "127.0.0.1:0")
            .env("RACKO_WORKERS", "2")
            // Every run signs up two players from one address: more than the default burst.
            .env("RACKO_AUTH_PER_MINUTE", "0")
            .env("RACKO_LOG_FORMAT", "json")
            .env("RUST_LOG", "info")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the racko binary starts");
        let stderr = child.stderr.take().expect("piped stderr");
        let (found, address) = std::sync::mpsc::channel();
        // Reads the log until the server says where it listens, then keeps draining it.
        std::thread::spawn(move || {
            let mut found = Some(found);
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(tx) = found.as_ref() {
                    let log: serde_json::Value = serde_json::from_str(&line).unwrap_or_default();
                    if log["fields"]["message"] == "listening" {
                        if let Some(address) = log["fields"]["address"].as_str() {
                            let _ = tx.send(address.to_string());
                            found = None;
                        }
                    }
                }
            }
        });
        let address = address
            .recv_timeout(Duration::from_secs(60))
            .expect("the server logs the address it listens on");
        let server = Server {
            child,
            url: format!("http://{address}"),
            dir,
        };
        server.wait_ready();
        server
    }

    fn wait_ready(&self) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let ready = Command::new("curl")
                .args(["-fsS", "-o", "/dev/null", &format!("{}/readyz", self.url)])
                .status()
                .expect("curl runs (the walk-through needs it)");
            if ready.success() {
                return;
            }
            assert!(Instant::now() < deadline, "{} never became ready", self.url);
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Err(e) = std::fs::remove_dir_all(&self.dir) {
            eprintln!("cannot remove {}: {e}", self.dir.display());
        }
    }
}

#[test]
fn the_readme_walkthrough_works_whatever_is_dealt() {
    let jq = Command::new("jq").arg("--version").output();
    assert!(
        jq.is_ok_and(|out| out.status.success()),
        "the walk-through needs jq (Debian package jq; .ci/run installs it)"
    );
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/walkthrough.sh");
    let server = Server::start();
    let mut seen = std::collections::BTreeMap::<String, usize>::new();
    for run in 1..=RUNS {
        let out = Command::new("bash")
            .arg(script)
            .env("RACKO_URL", &server.url)
            .output()
            .expect("bash runs the walk-through");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success(),
            "run {run} of {RUNS} exited {:?}\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
            out.status.code()
        );
        assert!(
            stdout.contains("== Ann's inbox") && stdout.contains("turn_started"),
            "run {run} did not get through Ben's turn:\n{stdout}"
        );
        for line in stdout.lines() {
            if let Some((_, action)) = line.split_once("Ben sends ") {
                let action: serde_json::Value =
                    serde_json::from_str(action).expect("the script prints the action as JSON");
                let kind = action["type"].as_str().unwrap_or("?").to_string();
                *seen.entry(kind).or_default() += 1;
            }
        }
    }
    // What the deals made Ben do, for the log (e.g. {"draw": 20, "place_drawn": 15, ...}).
    eprintln!("{RUNS} walk-throughs passed; Ben's actions: {seen:?}");
    assert!(seen.contains_key("draw") || seen.contains_key("swap_card"));
}
