//! A PostgreSQL cluster of a test's own (initdb in a temporary folder, its own port), so that a
//! test can stop and start the database under a running server. PostgreSQL refuses to run as
//! root, so as root the cluster is run as the `postgres` user.

use std::path::{Path, PathBuf};
use std::process::Command;

pub struct Cluster {
    dir: PathBuf,
    bin: PathBuf,
    pub port: u16,
}

/// The folder of the newest installed PostgreSQL's programs (Debian's layout), or PATH's.
pub(super) fn bin_dir() -> PathBuf {
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|dir| dir.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    versions.sort_by_key(|p| {
        p.file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.parse::<u32>().ok())
            .unwrap_or(0)
    });
    match versions.pop() {
        Some(version) => version.join("bin"),
        None => PathBuf::new(), // programs from PATH
    }
}

/// A new folder under the temp dir, named `<prefix>_<random>`, owned by the postgres user when
/// the tests run as root (PostgreSQL refuses to run as root).
pub(super) fn postgres_temp_dir(prefix: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("{prefix}_{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    if is_root() {
        std::os::unix::fs::chown(&dir, Some(postgres_uid()), None)
            .expect("the folder given to the postgres user");
    }
    dir
}

pub(super) fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

pub(super) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

impl Cluster {
    /// A new, running cluster (trust authentication, user `postgres`).
    pub fn start_new() -> Cluster {
        let dir = std::env::temp_dir().join(format!("racko_pg_{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        let cluster = Cluster {
            dir,
            bin: bin_dir(),
            port: free_port(),
        };
        if is_root() {
            std::os::unix::fs::chown(&cluster.dir, Some(postgres_uid()), None)
                .expect("the folder given to the postgres user");
        }
        cluster.run(
            "initdb",
            &[
                "-D",
                &cluster.data(),
                "-U",
                "postgres",
                "--auth=trust",
                "--no-sync",
            ],
        );
        cluster.start();
        cluster
    }

    fn data(&self) -> String {
        self.dir.join("data").display().to_string()
    }

    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    pub fn start(&self) {
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1",
            self.port,
            self.dir.display()
        );
        let log = self.dir.join("log").display().to_string();
        self.run(
            "pg_ctl",
            &[
                "-D",
                &self.data(),
                "-o",
                &options,
                "-l",
                &log,
                "-w",
                "start",
            ],
        );
    }

    /// `immediate`: the server goes away at once, as in a crash or a pulled cable.
    pub fn stop(&self) {
        self.run(
            "pg_ctl",
            &["-D", &self.data(), "-m", "immediate", "-w", "stop"],
        );
    }

    fn run(&self, program: &str, args: &[&str]) {
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
        let out = out.unwrap_or_else(|e| panic!("cannot run {}: {e}", program.display()));
        assert!(
            out.status.success(),
            "{} {args:?} failed: {}{}",
            program.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn dir(&self) -> &Path {
        &self.dir
    }
}

/// SIGKILL, in one `kill`, to process `pid` and every process under it (found by their
/// parents: a PostgreSQL's backends leave its process group). With `group`, also to the
/// process group `pid` leads, so that a process forked while the tree was read goes too.
/// False when `kill` failed (the process was gone already).
pub(super) fn kill_tree(pid: u32, group: bool) -> bool {
    let mut pids = vec![pid.to_string()];
    let mut next = 0;
    while next < pids.len() {
        let children = Command::new("pgrep")
            .args(["-P", &pids[next]])
            .output()
            .expect("pgrep runs");
        pids.extend(
            String::from_utf8_lossy(&children.stdout)
                .split_whitespace()
                .map(str::to_string),
        );
        next += 1;
    }
    let mut kill = Command::new("kill");
    kill.args(["-KILL", "--"]);
    if group {
        kill.arg(format!("-{pid}"));
    }
    // A process already gone (a tree killed before) makes kill complain: not an error here.
    kill.args(&pids)
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

pub(super) fn postgres_uid() -> u32 {
    let out = Command::new("id")
        .args(["-u", "postgres"])
        .output()
        .expect("id runs");
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .expect("a postgres user exists (PostgreSQL is installed)")
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let data = self.data();
        let program = self.bin.join("pg_ctl");
        let args = ["-D", data.as_str(), "-m", "immediate", "-w", "stop"];
        // Already stopped is fine; the folder goes either way.
        let _ = if is_root() {
            Command::new("runuser")
                .args(["-u", "postgres", "--"])
                .arg(&program)
                .args(args)
                .output()
        } else {
            Command::new(&program).args(args).output()
        };
        if let Err(e) = std::fs::remove_dir_all(self.dir()) {
            eprintln!("cannot remove {}: {e}", self.dir.display());
        }
    }
}
