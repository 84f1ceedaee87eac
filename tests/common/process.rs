//! A real `racko serve` process (the built binary), for tests that kill it with SIGKILL or run
//! several side by side. It logs JSON to a pipe; the address it listens on is read from there.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct ServeProcess {
    child: Child,
    /// `http://127.0.0.1:PORT`
    pub url: String,
}

impl ServeProcess {
    /// Starts `racko serve` on `database_url` with a random port, the test token secret, no
    /// sign-up limit, and `env` on top; waits until `/readyz` answers 200.
    pub fn start(database_url: &str, env: &[(&str, &str)]) -> ServeProcess {
        ServeProcess::start_with(database_url, env, None)
    }

    /// As [`ServeProcess::start`], with soft and hard open-files limits of `open_files`, as
    /// on a host with a small default.
    pub fn start_with_open_files(
        database_url: &str,
        env: &[(&str, &str)],
        open_files: u64,
    ) -> ServeProcess {
        ServeProcess::start_with(database_url, env, Some(open_files))
    }

    fn start_with(
        database_url: &str,
        env: &[(&str, &str)],
        open_files: Option<u64>,
    ) -> ServeProcess {
        let mut command = Command::new(env!("CARGO_BIN_EXE_racko"));
        command
            .arg("serve")
            .env("DATABASE_URL", database_url)
            .env("RACKO_JWT_SECRET", super::app::TEST_JWT_SECRET)
            .env("RACKO_BIND", "127.0.0.1:0")
            .env("RACKO_WORKERS", "2")
            .env("RACKO_AUTH_PER_MINUTE", "0")
            .env("RACKO_LOG_FORMAT", "json")
            .env("RUST_LOG", "info")
            .env_remove("RACKO_ENV")
            .env_remove("RACKO_TEST_MODE")
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        for (name, value) in env {
            command.env(name, value);
        }
        if let Some(limit) = open_files {
            use std::os::unix::process::CommandExt;
            let limit = libc::rlimit {
                rlim_cur: limit,
                rlim_max: limit,
            };
            // SAFETY: between fork and exec only setrlimit runs, which is async-signal-safe.
            unsafe {
                command.pre_exec(move || {
                    if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) == 0 {
                        Ok(())
                    } else {
                        Err(std::io::Error::last_os_error())
                    }
                });
            }
        }
        let mut child = command.spawn().expect("the racko binary starts");
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
        let Ok(address) = address.recv_timeout(Duration::from_secs(60)) else {
            // Not left running: a child holds its parent's open files (a build lock, say).
            let _ = child.kill();
            let _ = child.wait();
            panic!("the server never logged the address it listens on");
        };
        let server = ServeProcess {
            child,
            url: format!("http://{address}"),
        };
        server.wait_ready();
        server
    }

    fn wait_ready(&self) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if plain_http::get_is_ok(&format!("{}/readyz", self.url)) {
                return;
            }
            assert!(Instant::now() < deadline, "{} never became ready", self.url);
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// SIGTERM, then waits for the process to exit; how long that took.
    pub fn terminate(mut self) -> Duration {
        let started = Instant::now();
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success(), "SIGTERM was sent");
        let _ = self.child.wait();
        started.elapsed()
    }

    /// SIGKILL: no shutdown, no flush; whatever was committed is all that remains.
    pub fn kill_9(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for ServeProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A GET with std only (no runtime needed): true when the answer's status is 200.
mod plain_http {
    use std::io::{Read, Write};
    use std::net::TcpStream;
    use std::time::Duration;

    pub fn get_is_ok(url: &str) -> bool {
        let Some(rest) = url.strip_prefix("http://") else {
            return false;
        };
        let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
        let Ok(mut stream) = TcpStream::connect(host) else {
            return false;
        };
        let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
        let request = format!("GET /{path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
        if stream.write_all(request.as_bytes()).is_err() {
            return false;
        }
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        answer.starts_with("HTTP/1.1 200")
    }
}
