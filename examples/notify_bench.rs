//! Benchmarks of turn notifications (issue 10) against a running server; prints the figures.
//! `scripts/notify-bench.sh` starts a release server and runs this with its pid.
//!
//! 1. Commit-to-delivery latency on a game stream, p50/p99, with `--games` (50) games played at
//!    once, each watched by one stream: the time from the event's `at` (taken in the write
//!    transaction, just before commit) to the frame's arrival (same machine, same clock).
//! 2. Memory per idle stream: the server's RSS before and after opening `--idle` (5,000)
//!    streams that receive nothing.
//! 3. Action throughput of 16 games played at once with `--watchers` (1,000) streams open,
//!    against none, `--rounds` (3) interleaved rounds, the median ratios, for two layouts:
//!    the players' (each player of a game being played holds its game stream and its account
//!    stream; the rest are the same two streams of players of quiet games), and crowded games
//!    (all on the games being played, about 60 each: every action delivered 60 times).

use std::sync::Arc;
use std::time::{Duration, Instant};

use racko_rules::View;
use racko_sample as sample;
use reqwest::Method;
use serde_json::{json, Value};
use tokio::sync::Mutex;

type Result<T> = std::result::Result<T, String>;

struct Args {
    url: String,
    pid: Option<u32>,
    games: usize,
    idle: usize,
    watchers: usize,
    rounds: usize,
    actions: usize,
}

fn parse_args() -> Result<Args> {
    let mut args = Args {
        url: "http://127.0.0.1:8080".into(),
        pid: None,
        games: 50,
        idle: 5000,
        watchers: 1000,
        rounds: 3,
        actions: 60,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or(format!("{flag} needs a value"))?;
        let n = || {
            value
                .parse::<usize>()
                .map_err(|_| format!("{flag}: a number"))
        };
        match flag.as_str() {
            "--url" => args.url = value.trim_end_matches('/').to_string(),
            "--pid" => args.pid = Some(value.parse().map_err(|_| "--pid: a number")?),
            "--games" => args.games = n()?,
            "--idle" => args.idle = n()?,
            "--watchers" => args.watchers = n()?,
            "--rounds" => args.rounds = n()?,
            "--actions" => args.actions = n()?,
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    Ok(args)
}

#[derive(Clone)]
struct Client {
    http: reqwest::Client,
    url: String,
}

impl Client {
    async fn call(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> Result<Value> {
        let mut req = self.http.request(method, format!("{}{path}", self.url));
        if let Some(token) = token {
            req = req.bearer_auth(token);
        }
        if let Some(body) = body {
            req = req.json(&body);
        }
        let res = req.send().await.map_err(|e| format!("{path}: {e}"))?;
        let status = res.status().as_u16();
        let body = res.json::<Value>().await.unwrap_or(Value::Null);
        if status >= 300 {
            return Err(format!("{path}: {status} {body}"));
        }
        Ok(body)
    }

    async fn guest(&self) -> Result<String> {
        let guest = self
            .call(Method::POST, "/v1/guests", None, Some(json!({})))
            .await?;
        Ok(guest["token"].as_str().ok_or("no token")?.to_string())
    }

    /// A started two-player game: (id, tokens).
    async fn game(&self) -> Result<(String, [String; 2])> {
        let tokens = [self.guest().await?, self.guest().await?];
        // Joined by id, and watched by accounts without a seat.
        let body = json!({
            "options": {"players": 2, "target": 100000},
            "visibility": "public",
            "spectators": "anyone",
        });
        let game = self
            .call(Method::POST, "/v1/games", Some(&tokens[0]), Some(body))
            .await?;
        let id = game["id"].as_str().ok_or("no game id")?.to_string();
        self.call(
            Method::POST,
            &format!("/v1/games/{id}/join"),
            Some(&tokens[1]),
            None,
        )
        .await?;
        Ok((id, tokens))
    }

    /// Plays up to `actions` actions of game `id`; returns how many.
    async fn play(&self, id: &str, tokens: &[String; 2], actions: usize) -> Result<usize> {
        let (mut done, mut seat) = (0, 0);
        while done < actions {
            let view = self
                .call(
                    Method::GET,
                    &format!("/v1/games/{id}"),
                    Some(&tokens[seat]),
                    None,
                )
                .await?;
            if view["status"] != "active" {
                break;
            }
            let table: View =
                serde_json::from_value(view["table"].clone()).map_err(|e| e.to_string())?;
            let Some(action) = sample::choose(&table) else {
                seat = 1 - seat;
                continue;
            };
            let body = json!({"version": view["version"], "action": action});
            self.call(
                Method::POST,
                &format!("/v1/games/{id}/actions"),
                Some(&tokens[seat]),
                Some(body),
            )
            .await?;
            done += 1;
        }
        Ok(done)
    }

    /// Opens a stream; resolves once the server has answered (the first bytes are in). A
    /// request that fails to be sent is tried again twice: a pooled connection may have been
    /// closed by the server while it sat idle.
    async fn stream(&self, path: &str, token: &str) -> Result<reqwest::Response> {
        let mut tries = 3;
        let mut res = loop {
            tries -= 1;
            let sent = self
                .http
                .get(format!("{}{path}", self.url))
                .bearer_auth(token)
                .header("Accept", "text/event-stream")
                .send()
                .await;
            match sent {
                Ok(res) => break res,
                Err(e) if tries == 0 || !e.is_request() => return Err(format!("{path}: {e}")),
                Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
            }
        };
        if res.status() != 200 {
            return Err(format!("{path}: {}", res.status()));
        }
        res.chunk().await.map_err(|e| e.to_string())?;
        Ok(res)
    }
}

fn rss_kib(pid: Option<u32>) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{}/status", pid?)).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted
        .get(((sorted.len() as f64 - 1.0) * p).round() as usize)
        .copied()
        .unwrap_or(f64::NAN)
}

/// Reads frames of `res` until `stop`, recording each event's commit-to-arrival time.
async fn watch(mut res: reqwest::Response, latencies: Arc<Mutex<Vec<f64>>>) {
    let mut buffer = String::new();
    while let Ok(Some(chunk)) = res.chunk().await {
        let arrived = chrono::Utc::now();
        buffer.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = buffer.find("\n\n") {
            let frame: String = buffer.drain(..end + 2).collect();
            for data in frame.lines().filter_map(|l| l.strip_prefix("data: ")) {
                let Ok(entry) = serde_json::from_str::<Value>(data) else {
                    continue;
                };
                let Some(at) = entry["at"]
                    .as_str()
                    .and_then(|a| a.parse::<chrono::DateTime<chrono::Utc>>().ok())
                else {
                    continue;
                };
                let ms = (arrived - at).num_microseconds().unwrap_or(0) as f64 / 1000.0;
                latencies.lock().await.push(ms);
            }
        }
    }
}

async fn latency(client: &Client, args: &Args) -> Result<()> {
    let games = futures_util::future::try_join_all((0..args.games).map(|_| client.game())).await?;
    let latencies = Arc::new(Mutex::new(Vec::new()));
    let mut watchers = Vec::new();
    for (id, tokens) in &games {
        let last = client
            .call(
                Method::GET,
                &format!("/v1/games/{id}/events?limit=500"),
                Some(&tokens[0]),
                None,
            )
            .await?;
        let after = last["next_after"].as_i64().unwrap_or(0);
        let res = client
            .stream(&format!("/v1/games/{id}/stream?after={after}"), &tokens[0])
            .await?;
        watchers.push(tokio::spawn(watch(res, latencies.clone())));
    }
    let played = futures_util::future::try_join_all(
        games.iter().map(|(id, t)| client.play(id, t, args.actions)),
    )
    .await?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    for w in watchers {
        w.abort();
    }
    let mut all = latencies.lock().await.clone();
    all.sort_by(f64::total_cmp);
    println!(
        "stream latency, commit to delivery, {} games at once: p50 {:.2} ms, p99 {:.2} ms ({} events, {} actions)",
        args.games,
        percentile(&all, 0.5),
        percentile(&all, 0.99),
        all.len(),
        played.iter().sum::<usize>(),
    );
    Ok(())
}

async fn idle_memory(client: &Client, args: &Args) -> Result<()> {
    let (id, tokens) = client.game().await?;
    let last = client
        .call(
            Method::GET,
            &format!("/v1/games/{id}/events?limit=500"),
            Some(&tokens[0]),
            None,
        )
        .await?;
    let after = last["next_after"].as_i64().unwrap_or(0);
    tokio::time::sleep(Duration::from_secs(1)).await;
    let before = rss_kib(args.pid);
    let mut open = Vec::with_capacity(args.idle);
    let path = format!("/v1/games/{id}/stream?after={after}");
    for chunk in (0..args.idle).collect::<Vec<_>>().chunks(250) {
        let batch = futures_util::future::try_join_all(
            chunk.iter().map(|_| client.stream(&path, &tokens[0])),
        )
        .await?;
        open.extend(batch);
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let after_rss = rss_kib(args.pid);
    match (before, after_rss) {
        (Some(b), Some(a)) => println!(
            "memory: {} idle streams: server RSS {:.1} MiB before, {:.1} MiB after: {:.1} KiB per stream",
            open.len(),
            b as f64 / 1024.0,
            a as f64 / 1024.0,
            (a.saturating_sub(b)) as f64 / open.len() as f64
        ),
        _ => println!("memory: {} idle streams open (give --pid for the server's RSS)", open.len()),
    }
    drop(open);
    Ok(())
}

/// Where the streams of a throughput run are open.
#[derive(Clone, Copy, PartialEq)]
enum Layout {
    /// None open.
    None,
    /// As the players of a real service hold them: each player of a game being played has its
    /// game's stream and its account stream open, and the rest are the streams of the players
    /// of games where nothing happens now (a correspondence game waits days for a move).
    Players,
    /// Every stream on the 16 games being played, about 60 each, a seat's view or a
    /// spectator's: the fan-out at its heaviest, every action delivered to 60 streams.
    Crowded,
}

impl Layout {
    fn name(self) -> &'static str {
        match self {
            Layout::None => "no streams",
            Layout::Players => "players' streams",
            Layout::Crowded => "crowded games",
        }
    }
}

/// Opens `path` for `token` and reads and drops what comes, as a client would.
async fn hold(client: &Client, path: String, token: &str) -> Result<tokio::task::JoinHandle<()>> {
    let mut res = client.stream(&path, token).await?;
    Ok(tokio::spawn(async move {
        while let Ok(Some(_)) = res.chunk().await {}
    }))
}

/// The streams of `layout` for the games being played and the quiet ones.
async fn open_streams(
    client: &Client,
    layout: Layout,
    watchers: usize,
    playing: &[(String, [String; 2])],
    quiet: &[(String, [String; 2])],
) -> Result<Vec<tokio::task::JoinHandle<()>>> {
    let mut paths = Vec::with_capacity(watchers);
    match layout {
        Layout::None => {}
        Layout::Players => {
            for (id, tokens) in playing {
                for token in tokens {
                    paths.push((format!("/v1/games/{id}/stream"), token.clone()));
                    paths.push(("/v1/me/stream".to_string(), token.clone()));
                }
            }
            let mut quiet_players = quiet
                .iter()
                .flat_map(|(id, tokens)| tokens.iter().map(move |t| (id, t)))
                .cycle();
            while paths.len() < watchers {
                let (id, token) = quiet_players.next().ok_or("no quiet games")?;
                paths.push((format!("/v1/games/{id}/stream"), token.clone()));
                if paths.len() < watchers {
                    paths.push(("/v1/me/stream".to_string(), token.clone()));
                }
            }
        }
        Layout::Crowded => {
            for i in 0..watchers {
                let (id, tokens) = &playing[i % playing.len()];
                // Seat 0, seat 1, and a spectator (a quiet game's player) in turn.
                let token = match i % 3 {
                    2 => quiet[i % quiet.len()].1[0].clone(),
                    seat => tokens[seat].clone(),
                };
                paths.push((format!("/v1/games/{id}/stream"), token));
            }
        }
    }
    paths.truncate(watchers);
    let mut open = Vec::with_capacity(paths.len());
    for chunk in paths.chunks(100) {
        let batch = futures_util::future::try_join_all(
            chunk
                .iter()
                .map(|(path, token)| hold(client, format!("{path}?after=0"), token)),
        )
        .await?;
        open.extend(batch);
    }
    Ok(open)
}

/// Actions per second of 16 games played at once (fresh games each run), with the streams of
/// `layout` open.
async fn throughput(
    client: &Client,
    args: &Args,
    layout: Layout,
    quiet: &[(String, [String; 2])],
) -> Result<f64> {
    let games = futures_util::future::try_join_all((0..16).map(|_| client.game())).await?;
    let open = open_streams(client, layout, args.watchers, &games, quiet).await?;
    let started = Instant::now();
    let played = futures_util::future::try_join_all(
        games.iter().map(|(id, t)| client.play(id, t, args.actions)),
    )
    .await?;
    let rate = played.iter().sum::<usize>() as f64 / started.elapsed().as_secs_f64();
    for task in open {
        task.abort();
    }
    Ok(rate)
}

/// Prints the median ratio of `rates[k]` to `rates[0]` over the rounds, with its range.
fn print_ratio(rates: &[Vec<f64>], k: usize, layout: Layout, watchers: usize) {
    let mut ratios: Vec<f64> = rates.iter().map(|r| r[k] / r[0]).collect();
    ratios.sort_by(f64::total_cmp);
    println!(
        "throughput with {watchers} streams open ({}) vs none: median ratio {:.3} (min {:.3}, max {:.3})",
        layout.name(),
        percentile(&ratios, 0.5),
        ratios[0],
        ratios[ratios.len() - 1]
    );
}

#[tokio::main]
async fn main() {
    let args = match parse_args() {
        Ok(args) => args,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let client = Client {
        http: reqwest::Client::builder()
            .pool_max_idle_per_host(64)
            .build()
            .expect("client"),
        url: args.url.clone(),
    };
    let run = async {
        latency(&client, &args).await?;
        idle_memory(&client, &args).await?;
        // The players of games where nothing happens, for the streams that wait.
        let quiet = futures_util::future::try_join_all((0..32).map(|_| client.game())).await?;
        let layouts = [Layout::None, Layout::Players, Layout::Crowded];
        let mut rates = Vec::new();
        for round in 0..args.rounds {
            // Interleaved, the order turned each round, so a slow spell hurts all alike.
            let mut rate = vec![0.0; layouts.len()];
            for k in 0..layouts.len() {
                let k = (k + round) % layouts.len();
                rate[k] = throughput(&client, &args, layouts[k], &quiet).await?;
            }
            println!(
                "throughput round {}: {:.0} actions/s with no streams, {:.0} with {} players' streams, {:.0} with {} streams on crowded games",
                round + 1,
                rate[0],
                rate[1],
                args.watchers,
                rate[2],
                args.watchers
            );
            rates.push(rate);
        }
        print_ratio(&rates, 1, Layout::Players, args.watchers);
        print_ratio(&rates, 2, Layout::Crowded, args.watchers);
        Ok::<(), String>(())
    };
    if let Err(e) = run.await {
        eprintln!("{e}");
        std::process::exit(1);
    }
}
