//! A primary and a streaming standby of the test's own, in temporary folders (`initdb`, then
//! `pg_basebackup -R`), for the failover and replica tests. The standby is synchronous: the
//! primary acknowledges a commit only once the standby has it on disk, so an acknowledged
//! action survives the primary's death. The test plays the failover manager: it kills the
//! primary (`kill -9` of every process of it) and promotes the standby.

use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use super::cluster::{bin_dir, free_port, is_root, kill_tree, postgres_temp_dir};

/// The standby's name, as the primary's `synchronous_standby_names` asks for it.
const STANDBY_NAME: &str = "racko_standby";

/// One PostgreSQL server: its folder and its port.
pub struct Node {
    dir: PathBuf,
    bin: PathBuf,
    pub port: u16,
}

impl Node {
    fn new(role: &str) -> Node {
        let dir = postgres_temp_dir(&format!("racko_{role}"));
        Node {
            dir,
            bin: bin_dir(),
            port: free_port(),
        }
    }

    fn data(&self) -> String {
        self.dir.join("data").display().to_string()
    }

    /// `postgres://…` of this node alone.
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    /// Starts the server with `settings` (`-c name=value`) on top of its files' own.
    fn start(&self, settings: &[String]) {
        let mut options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1",
            self.port,
            self.dir.display()
        );
        for setting in settings {
            options.push_str(&format!(" -c {setting}"));
        }
        let log = self.dir.join("log").display().to_string();
        let data = self.data();
        self.run(
            "pg_ctl",
            &["-D", &data, "-o", &options, "-l", &log, "-w", "start"],
        );
    }

    /// What the server logged so far (for a failure message).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("log")).unwrap_or_default()
    }

    /// SIGKILL to the postmaster and to every process it started, at once: the machine died.
    /// Nothing is shut down, nothing is flushed, no connection is closed politely.
    pub fn kill_9(&self) {
        let pid_file = std::path::Path::new(&self.data()).join("postmaster.pid");
        let pid = std::fs::read_to_string(&pid_file)
            .ok()
            .and_then(|text| text.lines().next().map(str::to_string))
            .expect("the postmaster's pid");
        let pid: u32 = pid.trim().parse().expect("a pid");
        assert!(
            kill_tree(pid, false),
            "SIGKILL sent to the postmaster and its children"
        );
        // Gone when its port is free again.
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
            assert!(Instant::now() < deadline, "the killed server still answers");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// `pg_ctl promote`: the standby ends recovery and accepts writes.
    pub fn promote(&self) {
        let data = self.data();
        self.run("pg_ctl", &["-D", &data, "-w", "promote"]);
    }

    /// One value from `query`, run with psql.
    pub fn query(&self, query: &str) -> String {
        self.try_query(query)
            .unwrap_or_else(|e| panic!("psql {query:?}: {e}"))
    }

    /// As [`Node::query`], the error's text when it fails (a table not replayed yet, say).
    pub fn try_query(&self, query: &str) -> Result<String, String> {
        let out = self.output(
            "psql",
            &[
                "-h",
                "127.0.0.1",
                "-p",
                &self.port.to_string(),
                "-U",
                "postgres",
                "-d",
                "postgres",
                "-Atc",
                query,
            ],
        );
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).to_string());
        }
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    }

    fn output(&self, program: &str, args: &[&str]) -> Output {
        let program = self.bin.join(program);
        let out = if is_root() {
            Command::new("runuser")
                .args(["-u", "postgres", "--"])
                .arg(&program)
                .args(args)
                .output()
        } else {
            Command::new(&program).args(args).output()
        };
        out.unwrap_or_else(|e| panic!("cannot run {}: {e}", program.display()))
    }

    fn run(&self, program: &str, args: &[&str]) {
        let out = self.output(program, args);
        assert!(
            out.status.success(),
            "{program} {args:?} failed: {}{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
            self.log()
        );
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        let data = self.data();
        // Already stopped (or killed) is fine; the folder goes either way.
        let _ = self.output("pg_ctl", &["-D", &data, "-m", "immediate", "-w", "stop"]);
        if let Err(e) = std::fs::remove_dir_all(&self.dir) {
            eprintln!("cannot remove {}: {e}", self.dir.display());
        }
    }
}

/// A primary and its streaming standby.
pub struct Replicated {
    pub primary: Node,
    pub standby: Node,
}

impl Replicated {
    /// A primary and a synchronous standby, streaming; returns once the primary reports the
    /// standby as synchronous (every commit from then on waits for it).
    pub fn synchronous() -> Replicated {
        Replicated::start(
            &[format!("synchronous_standby_names='{STANDBY_NAME}'")],
            &[],
        )
    }

    /// A primary and an asynchronous standby that applies what it receives only `delay` later
    /// (`recovery_min_apply_delay`): a replica that lags, for the read-your-writes tests.
    pub fn delayed(delay: Duration) -> Replicated {
        let delay = format!("recovery_min_apply_delay={}ms", delay.as_millis());
        Replicated::start(&[], &[delay])
    }

    fn start(primary_settings: &[String], standby_settings: &[String]) -> Replicated {
        let primary = Node::new("primary");
        let data = primary.data();
        primary.run(
            "initdb",
            &["-D", &data, "-U", "postgres", "--auth=trust", "--no-sync"],
        );
        primary.start(primary_settings);

        let standby = Node::new("standby");
        let (data, port) = (standby.data(), primary.port.to_string());
        // -R writes standby.signal and primary_conninfo; -X stream brings the WAL along.
        standby.run(
            "pg_basebackup",
            &[
                "-h",
                "127.0.0.1",
                "-p",
                &port,
                "-U",
                "postgres",
                "-D",
                &data,
                "-R",
                "-X",
                "stream",
                "-c",
                "fast",
                "--no-sync",
            ],
        );
        // The walreceiver names itself after cluster_name, which the primary waits for.
        let mut settings = vec![format!("cluster_name={STANDBY_NAME}")];
        settings.extend(standby_settings.iter().cloned());
        standby.start(&settings);

        let pair = Replicated { primary, standby };
        let wanted = if primary_settings.is_empty() {
            "async"
        } else {
            "sync"
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let state = pair.primary.query(&format!(
                "SELECT sync_state FROM pg_stat_replication WHERE application_name = \
                 '{STANDBY_NAME}' AND state = 'streaming'"
            ));
            if state == wanted {
                return pair;
            }
            assert!(
                Instant::now() < deadline,
                "the standby never streamed ({state:?}):\n{}",
                pair.standby.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Both hosts in one URL: libpq tries them in order and keeps the one that accepts
    /// writes, whichever that is now.
    pub fn url(&self) -> String {
        format!(
            "postgres://postgres@127.0.0.1:{},127.0.0.1:{}/postgres?target_session_attrs=read-write",
            self.primary.port, self.standby.port
        )
    }
}
