//! A pg_auto_failover formation of a test's own: a monitor and two PostgreSQL nodes, each run
//! by `pg_autoctl … --run` (a keeper beside its PostgreSQL) in one temporary folder, with
//! trust authentication, no TLS and synchronous replication (the monitor sets
//! `synchronous_standby_names` once the standby has caught up). The monitor's health checks
//! are made short so that one failover takes seconds, not the defaults' 20 to 30.
//!
//! Everything runs as the `postgres` user when the test runs as root. Dropping the formation
//! kills every process it started and removes the folder, also when the test failed.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::cluster::{bin_dir, free_port, is_root, kill_tree, postgres_temp_dir};

/// The monitor's settings that bound how long it takes to see the primary gone and to give
/// up on it: a health check every second, one retry, and a node considered unhealthy (and a
/// primary considered demoted) after 2 s without news. The defaults (5 s, 2 retries, 20 s,
/// 30 s) are for networks, not for a test.
const MONITOR_SETTINGS: [(&str, &str); 6] = [
    ("health_check_period", "1000"),
    ("health_check_timeout", "1000"),
    ("health_check_max_retries", "1"),
    ("health_check_retry_delay", "500"),
    ("node_considered_unhealthy_timeout", "2000"),
    ("primary_demote_timeout", "2000"),
];

/// The database the nodes serve (created by `pg_autoctl create postgres --dbname`).
const DBNAME: &str = "racko";

/// One `pg_autoctl … --run` process (and, under it, its PostgreSQL).
struct Keeper {
    name: String,
    child: Child,
    port: u16,
    log: PathBuf,
}

pub struct Formation {
    dir: PathBuf,
    bin: PathBuf,
    monitor: Keeper,
    nodes: Vec<Keeper>,
}

impl Formation {
    /// A monitor, then `node1` (the primary) and `node2` (its synchronous standby); returns
    /// once the monitor reports them as `primary` and `secondary` and the primary streams to
    /// the standby synchronously.
    pub fn start() -> Formation {
        let dir = postgres_temp_dir("racko_autoctl");
        let bin = bin_dir();
        let port = free_port();
        let pgdata = dir.join("monitor").display().to_string();
        let monitor = Keeper::spawn(
            &dir,
            &bin,
            "monitor",
            port,
            &[
                "create",
                "monitor",
                "--pgdata",
                &pgdata,
                "--pgport",
                &port.to_string(),
                "--hostname",
                "127.0.0.1",
                "--auth",
                "trust",
                "--no-ssl",
                "--run",
            ],
        );
        let mut formation = Formation {
            dir,
            bin,
            monitor,
            nodes: Vec::new(),
        };
        formation.wait("the monitor", |f| {
            f.try_query(
                f.monitor.port,
                "pg_auto_failover",
                "SELECT count(*) FROM pgautofailover.node",
            )
            .is_ok_and(|n| n == "0")
        });
        for (name, value) in MONITOR_SETTINGS {
            formation.query(
                formation.monitor.port,
                "pg_auto_failover",
                &format!("ALTER SYSTEM SET pgautofailover.{name} = {value}"),
            );
        }
        formation.query(
            formation.monitor.port,
            "pg_auto_failover",
            "SELECT pg_reload_conf()",
        );

        // Alone, the first node is `single`; once the second has caught up, the monitor has
        // them as primary and secondary.
        formation.add_node("node1");
        formation.wait("node1 to start", |f| f.states() == "node1:single/single");
        formation.add_node("node2");
        formation.wait("node2 to catch up", |f| {
            // The standby's base backup waits for a checkpoint on the primary: ask for one
            // rather than wait for checkpoint_timeout.
            let _ = f.try_query(f.nodes[0].port, "postgres", "CHECKPOINT");
            f.states() == "node1:primary/primary,node2:secondary/secondary"
        });
        formation.wait("the standby to be synchronous", |f| {
            f.try_query(
                f.nodes[0].port,
                "postgres",
                "SELECT sync_state FROM pg_stat_replication WHERE state = 'streaming'",
            )
            .is_ok_and(|state| state == "quorum" || state == "sync")
        });
        formation
    }

    fn add_node(&mut self, name: &str) {
        let port = free_port();
        let pgdata = self.dir.join(name).display().to_string();
        let monitor = format!(
            "postgres://autoctl_node@127.0.0.1:{}/pg_auto_failover?sslmode=disable",
            self.monitor.port
        );
        let node = Keeper::spawn(
            &self.dir,
            &self.bin,
            name,
            port,
            &[
                "create",
                "postgres",
                "--pgdata",
                &pgdata,
                "--pgport",
                &port.to_string(),
                "--hostname",
                "127.0.0.1",
                "--name",
                name,
                "--auth",
                "trust",
                "--no-ssl",
                "--dbname",
                DBNAME,
                "--monitor",
                &monitor,
                "--run",
            ],
        );
        self.nodes.push(node);
    }

    /// `name:reported/assigned` of every node, as the monitor has them.
    pub fn states(&self) -> String {
        self.try_query(
            self.monitor.port,
            "pg_auto_failover",
            "SELECT string_agg(nodename || ':' || reportedstate || '/' || goalstate, ',' \
             ORDER BY nodeid) FROM pgautofailover.node",
        )
        .unwrap_or_default()
    }

    /// The formation's URL as `pg_autoctl show uri` gives it (every node, with
    /// `target_session_attrs=read-write`), with the user the nodes trust.
    pub fn url(&self) -> String {
        let pgdata = self.dir.join("monitor").display().to_string();
        let out = self
            .command(
                "pg_autoctl",
                &["show", "uri", "--pgdata", &pgdata, "--formation", "default"],
            )
            .output()
            .expect("pg_autoctl show uri runs");
        let uri = String::from_utf8_lossy(&out.stdout).trim().to_string();
        assert!(
            out.status.success() && uri.contains("target_session_attrs=read-write"),
            "pg_autoctl show uri: {uri} {}",
            String::from_utf8_lossy(&out.stderr)
        );
        uri.replacen("postgres://", "postgres://postgres@", 1)
    }

    /// The node the monitor has as primary now.
    pub fn primary(&self) -> usize {
        let states = self.states();
        self.nodes
            .iter()
            .position(|node| states.contains(&format!("{}:primary/primary", node.name)))
            .unwrap_or_else(|| panic!("no primary: {states}"))
    }

    /// SIGKILL, at once, to node `index`'s keeper, its PostgreSQL and every backend: the
    /// machine died. Returns once its port no longer answers.
    pub fn kill_9(&self, index: usize) {
        let node = &self.nodes[index];
        kill_tree(node.child.id(), true);
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", node.port)).is_ok() {
            assert!(Instant::now() < deadline, "the killed node still answers");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits until the monitor has promoted node `index` (it reports `wait_primary` or
    /// `primary`) and the node accepts writes.
    pub fn wait_promoted(&self, index: usize) {
        let name = self.nodes[index].name.clone();
        self.wait(&format!("{name} to be promoted"), |f| {
            let states = f.states();
            (states.contains(&format!("{name}:wait_primary/"))
                || states.contains(&format!("{name}:primary/")))
                && f.try_query(
                    f.nodes[index].port,
                    "postgres",
                    "SELECT pg_is_in_recovery()",
                )
                .is_ok_and(|r| r == "f")
        });
    }

    /// One value from `query` on node `index`'s database.
    pub fn query_node(&self, index: usize, query: &str) -> String {
        self.query(self.nodes[index].port, DBNAME, query)
    }

    fn wait(&self, what: &str, ready: impl Fn(&Formation) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(90);
        while !ready(self) {
            assert!(
                Instant::now() < deadline,
                "waited 90 s for {what}; the monitor has {}\n{}",
                self.states(),
                self.logs()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The last lines each pg_autoctl logged (for a failure message).
    fn logs(&self) -> String {
        std::iter::once(&self.monitor)
            .chain(&self.nodes)
            .map(|keeper| {
                let text = std::fs::read_to_string(&keeper.log).unwrap_or_default();
                let lines: Vec<&str> = text.lines().collect();
                let tail = lines[lines.len().saturating_sub(15)..].join("\n");
                format!("--- {}:\n{tail}", keeper.name)
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn query(&self, port: u16, db: &str, query: &str) -> String {
        self.try_query(port, db, query)
            .unwrap_or_else(|e| panic!("psql {query:?}: {e}"))
    }

    fn try_query(&self, port: u16, db: &str, query: &str) -> Result<String, String> {
        let port = port.to_string();
        let args = [
            "-h",
            "127.0.0.1",
            "-p",
            &port,
            "-U",
            "postgres",
            "-d",
            db,
            "-Atc",
            query,
        ];
        let out = self
            .command("psql", &args)
            .output()
            .map_err(|e| e.to_string())?;
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).to_string());
        }
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    }

    fn command(&self, program: &str, args: &[&str]) -> Command {
        as_postgres(&self.dir, &self.bin, program, args)
    }
}

/// `program` (from PostgreSQL's folder, or PATH) as the `postgres` user when the test runs as
/// root; pg_autoctl's files (its configuration and state) go under `dir`.
fn as_postgres(dir: &Path, bin: &Path, program: &str, args: &[&str]) -> Command {
    let path = format!("{}:/usr/bin:/bin", bin.display());
    let env = [
        ("PATH", path),
        ("HOME", dir.display().to_string()),
        ("XDG_CONFIG_HOME", dir.join("config").display().to_string()),
        ("XDG_DATA_HOME", dir.join("share").display().to_string()),
        ("XDG_RUNTIME_DIR", dir.join("run").display().to_string()),
    ];
    let mut command = if is_root() {
        let mut command = Command::new("runuser");
        command.args(["-u", "postgres", "--", "env"]);
        command.args(env.iter().map(|(name, value)| format!("{name}={value}")));
        command.arg(program);
        command
    } else {
        let mut command = Command::new(program);
        command.envs(env);
        command
    };
    command.args(args);
    command
}

impl Keeper {
    fn spawn(dir: &Path, bin: &Path, name: &str, port: u16, args: &[&str]) -> Keeper {
        let log = dir.join(format!("{name}.log"));
        let out = std::fs::File::create(&log).expect("a log file");
        let err = out.try_clone().expect("a log file");
        // A group of its own, so that its processes can be killed together (kill_tree).
        let child = as_postgres(dir, bin, "pg_autoctl", args)
            .process_group(0)
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .unwrap_or_else(|e| {
                panic!("pg_autoctl does not start ({e}): is pg-auto-failover-cli installed?")
            });
        Keeper {
            name: name.to_string(),
            child,
            port,
            log,
        }
    }
}

impl Drop for Formation {
    fn drop(&mut self) {
        for keeper in self
            .nodes
            .iter_mut()
            .chain(std::iter::once(&mut self.monitor))
        {
            kill_tree(keeper.child.id(), true);
            let _ = keeper.child.wait();
            // A killed PostgreSQL leaves its socket and lock file in the shared socket folder.
            for file in [
                format!(".s.PGSQL.{}", keeper.port),
                format!(".s.PGSQL.{}.lock", keeper.port),
            ] {
                let _ = std::fs::remove_file(Path::new("/var/run/postgresql").join(file));
            }
        }
        if let Err(e) = std::fs::remove_dir_all(&self.dir) {
            eprintln!("cannot remove {}: {e}", self.dir.display());
        }
    }
}
