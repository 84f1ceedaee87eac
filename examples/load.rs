//! A load tool: plays games through the HTTP API of a running server and prints how many
//! actions per second it applied, with latency percentiles. The same command measures either
//! store: start the server on the one you want to measure, then point this tool at it.
//!
//! ```text
//! RACKO_AUTH_PER_MINUTE=0 cargo run --release -- serve       # in one terminal (SQLite)
//! cargo run --release --example load -- --games 16 --actions 200
//! ```
//!
//! Each game has two guest players; every action is decided from the caller's own view
//! (its legal actions), exactly as a client would, by the sample player of
//! `racko_sample` (keep each slot to its band of numbers, call Racko when possible).
//!
//! Like a real client, a player acts on the view that the answer to its previous action holds
//! (`ActionResult.view`) and sends no GET while it stays its move. Only when the move passes
//! to the other seat does that seat read the game once (as the other player's app does when it
//! is told of the change): about one GET per turn, counted and printed.
//!
//! Phases: setup (guests, game, join, a first view of each seat), then the actions (timed),
//! then, with `--probe-gets N`, N more GETs per game (timed apart, to measure what a GET costs
//! the database). `--sync DIR` lets a script measure each phase alone: the tool creates
//! `DIR/setup-done` and waits for `DIR/start-actions` to exist, then after the actions creates
//! `DIR/actions-done` and waits for `DIR/start-probe` (scripts/perf-compare.sh).
//! `--keys on` sends each action with an `Idempotency-Key` of its own (a new UUID), as a
//! client that retries safely does: the server then also stores each answer.
//! `--visibility omit` creates the games without naming their visibility, for a server from
//! before games had one (`3d3f3b9`, the reference of docs/performance.md), so that one client
//! measures both; by default they are public, so that the second player joins by the id.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use racko_rules::View;
use racko_sample as sample;
use reqwest::Method;
use serde::Deserialize;
use serde_json::{json, Value};

struct Args {
    url: String,
    games: usize,
    actions: usize,
    target: u32,
    sync: Option<PathBuf>,
    probe_gets: usize,
    keys: bool,
    /// Name the games' visibility (public) when creating them.
    visibility: bool,
}

const FLAGS: &str =
    "--url, --games, --actions, --target, --sync, --probe-gets, --keys, --visibility";

fn parse_args() -> Result<Args> {
    let mut args = Args {
        url: "http://127.0.0.1:8080".into(),
        games: 8,
        actions: 200,
        target: 300,
        sync: None,
        probe_gets: 0,
        keys: false,
        visibility: true,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--url" => args.url = value,
            "--games" => args.games = value.parse().map_err(|_| "--games: a number")?,
            "--actions" => args.actions = value.parse().map_err(|_| "--actions: a number")?,
            "--target" => args.target = value.parse().map_err(|_| "--target: a number")?,
            "--sync" => args.sync = Some(value.into()),
            "--probe-gets" => {
                args.probe_gets = value.parse().map_err(|_| "--probe-gets: a number")?
            }
            "--keys" => {
                args.keys = match value.as_str() {
                    "on" => true,
                    "off" => false,
                    _ => return Err("--keys: on or off".into()),
                }
            }
            "--visibility" => {
                args.visibility = match value.as_str() {
                    "public" => true,
                    "omit" => false,
                    _ => return Err("--visibility: public or omit".into()),
                }
            }
            _ => return Err(format!("unknown flag {flag} ({FLAGS})")),
        }
    }
    Ok(args)
}

type Result<T> = std::result::Result<T, String>;

struct Client {
    http: reqwest::Client,
    url: String,
    /// Send each action with an `Idempotency-Key`.
    keys: bool,
}

impl Client {
    /// The answer's status and body, unparsed.
    async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> Result<(u16, Vec<u8>)> {
        let acting = method == Method::POST && path.ends_with("/actions");
        let mut req = self.http.request(method, format!("{}{path}", self.url));
        if self.keys && acting {
            req = req.header("Idempotency-Key", uuid::Uuid::new_v4().to_string());
        }
        if let Some(token) = token {
            req = req.bearer_auth(token);
        }
        if let Some(body) = body {
            req = req.json(&body);
        }
        let resp = req.send().await.map_err(|e| format!("{path}: {e}"))?;
        let status = resp.status().as_u16();
        let body = resp.bytes().await.map_err(|e| format!("{path}: {e}"))?;
        Ok((status, body.to_vec()))
    }

    /// A success's body as `T`: only the fields the tool reads are kept, as a client that
    /// knows the schema would.
    async fn expect<T: for<'de> Deserialize<'de>>(
        &self,
        method: reqwest::Method,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> Result<T> {
        let (status, body) = self.call(method, path, token, body).await?;
        if status == 429 {
            return Err(format!(
                "{path}: 429, the server limits guest creation per address; \
                 start it with RACKO_AUTH_PER_MINUTE=0 for a load run"
            ));
        }
        if status >= 300 {
            return Err(format!(
                "{path}: {status} {}",
                String::from_utf8_lossy(&body)
            ));
        }
        serde_json::from_slice(&body).map_err(|e| format!("{path}: {e}"))
    }
}

/// What the tool reads of a `GameView`.
#[derive(Debug, Deserialize)]
struct Seen {
    version: i64,
    status: String,
    table: View,
}

/// What the tool reads of an `ActionResult`.
#[derive(Deserialize)]
struct Acted {
    view: Seen,
    events: Vec<Logged>,
}

#[derive(Deserialize)]
struct Logged {
    seq: i64,
}

/// One game being played: its players' tokens and the last view each seat has seen.
struct Game {
    id: String,
    tokens: [String; 2],
    /// Each seat's last view and whether it is still the game's latest version.
    views: [Option<Seen>; 2],
    fresh: [bool; 2],
}

/// What the action phase of one game did.
#[derive(Default)]
struct Played {
    latencies: Vec<Duration>,
    /// The POST latencies of the game's first 200 actions, and of those made after its log
    /// passed 2,000 events: whether an action's cost grows with the game (issue 14).
    early: Vec<Duration>,
    late: Vec<Duration>,
    gets: usize,
}

/// Actions counted as the start of a game; the log length from which an action is late.
const EARLY_ACTIONS: usize = 200;
const LATE_EVENTS: i64 = 2_000;

impl Game {
    /// Two guests, a game created by the first and joined by the second, and each seat's view.
    async fn setup(client: &Client, target: u32, visibility: bool) -> Result<Game> {
        let mut tokens = Vec::new();
        for _ in 0..2 {
            let guest: Value = client
                .expect(Method::POST, "/v1/guests", None, Some(json!({})))
                .await?;
            tokens.push(guest["token"].as_str().ok_or("no token")?.to_string());
        }
        let mut body = json!({"options": {"players": 2, "target": target}});
        if visibility {
            body["visibility"] = json!("public");
        }
        let game: Value = client
            .expect(Method::POST, "/v1/games", Some(&tokens[0]), Some(body))
            .await?;
        let id = game["id"].as_str().ok_or("no game id")?.to_string();
        let _: Value = client
            .expect(
                Method::POST,
                &format!("/v1/games/{id}/join"),
                Some(&tokens[1]),
                None,
            )
            .await?;
        let mut game = Game {
            id,
            tokens: [tokens[0].clone(), tokens[1].clone()],
            views: [None, None],
            fresh: [false, false],
        };
        for seat in 0..2 {
            game.read(client, seat).await?;
        }
        Ok(game)
    }

    /// GET the game as `seat` sees it.
    async fn read(&mut self, client: &Client, seat: usize) -> Result<()> {
        let view: Seen = client
            .expect(
                Method::GET,
                &format!("/v1/games/{}", self.id),
                Some(&self.tokens[seat]),
                None,
            )
            .await?;
        let version = view.version;
        self.views[seat] = Some(view);
        for other in 0..2 {
            self.fresh[other] = self.views[other]
                .as_ref()
                .is_some_and(|v| v.version == version);
        }
        Ok(())
    }

    /// Plays at most `max_actions` actions (fewer if the game ends).
    async fn play(&mut self, client: &Client, max_actions: usize) -> Result<Played> {
        let mut played = Played {
            latencies: Vec::with_capacity(max_actions),
            ..Played::default()
        };
        while played.latencies.len() < max_actions {
            // The seats expected to act, as the latest view known says.
            let latest = if self.fresh[0] { 0 } else { 1 };
            let view = self.view(latest)?;
            if view.status != "active" {
                break;
            }
            let mut candidates: Vec<usize> =
                view.table.awaiting.iter().map(|&s| s as usize).collect();
            candidates.retain(|&s| s < 2);
            if candidates.is_empty() {
                candidates = vec![0, 1];
            }
            let mut chosen = None;
            for seat in candidates {
                if !self.fresh[seat] {
                    // The move came to this seat: its player reads the game once.
                    self.read(client, seat).await?;
                    played.gets += 1;
                }
                if let Some(action) = sample::choose(&self.view(seat)?.table) {
                    chosen = Some((seat, action));
                    break;
                }
            }
            let Some((seat, action)) = chosen else {
                return Err(format!(
                    "game {}: no seat has a move (views {:?} / {:?})",
                    self.id, self.views[0], self.views[1]
                ));
            };
            let body = json!({"version": self.view(seat)?.version, "action": action});
            let started = Instant::now();
            let (status, reply) = client
                .call(
                    Method::POST,
                    &format!("/v1/games/{}/actions", self.id),
                    Some(&self.tokens[seat]),
                    Some(body),
                )
                .await?;
            let took = started.elapsed();
            played.latencies.push(took);
            if status != 200 {
                let reply = String::from_utf8_lossy(&reply);
                return Err(format!("action refused: {status} {reply}"));
            }
            let reply: Acted =
                serde_json::from_slice(&reply).map_err(|e| format!("action answer: {e}"))?;
            // The log's length so far: the seq of the last event this action added.
            let logged = reply.events.last().map_or(0, |event| event.seq);
            if played.latencies.len() <= EARLY_ACTIONS {
                played.early.push(took);
            } else if logged >= LATE_EVENTS {
                played.late.push(took);
            }
            self.views[seat] = Some(reply.view);
            self.fresh = [false, false];
            self.fresh[seat] = true;
        }
        Ok(played)
    }

    /// The last view `seat` has seen (every seat reads one at setup).
    fn view(&self, seat: usize) -> Result<&Seen> {
        self.views[seat]
            .as_ref()
            .ok_or_else(|| format!("game {}: seat {seat} has no view", self.id))
    }

    /// `n` GETs of the game, from each seat in turn.
    async fn probe(&mut self, client: &Client, n: usize) -> Result<()> {
        for i in 0..n {
            self.read(client, i % 2).await?;
        }
        Ok(())
    }
}

/// With `--sync DIR`: create `DIR/done`, then wait until `DIR/next` exists.
async fn handshake(sync: &Option<PathBuf>, done: &str, next: &str) -> Result<()> {
    let Some(dir) = sync else {
        return Ok(());
    };
    std::fs::write(dir.join(done), b"").map_err(|e| format!("{}: {e}", dir.display()))?;
    while !dir.join(next).exists() {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    Ok(())
}

async fn run(args: Args) -> Result<()> {
    let client = Client {
        http: reqwest::Client::new(),
        url: args.url.trim_end_matches('/').to_string(),
        keys: args.keys,
    };
    let mut games = Vec::new();
    for game in futures_util::future::join_all(
        (0..args.games).map(|_| Game::setup(&client, args.target, args.visibility)),
    )
    .await
    {
        games.push(game.map_err(|e| format!("a game's setup failed: {e}"))?);
    }
    handshake(&args.sync, "setup-done", "start-actions").await?;

    let started = Instant::now();
    let runs = futures_util::future::join_all(
        games
            .iter_mut()
            .map(|game| game.play(&client, args.actions)),
    )
    .await;
    let elapsed = started.elapsed();
    let mut latencies = Vec::new();
    let (mut early, mut late) = (Vec::new(), Vec::new());
    let mut gets = 0;
    for run in runs {
        let played = run.map_err(|e| format!("a game failed: {e}"))?;
        latencies.extend(played.latencies);
        early.extend(played.early);
        late.extend(played.late);
        gets += played.gets;
    }
    latencies.sort();
    let pct = |p: f64| {
        latencies
            .get(((latencies.len() as f64 - 1.0) * p) as usize)
            .copied()
            .unwrap_or_default()
    };
    let actions = latencies.len();
    println!(
        "{actions} actions in {} games in {:.2}s: {:.0} actions/s (POST latency p50 {:.2} ms, p99 {:.2} ms; {gets} GETs, {:.2} per action, when the move passed to the other seat)",
        args.games,
        elapsed.as_secs_f64(),
        actions as f64 / elapsed.as_secs_f64(),
        pct(0.5).as_secs_f64() * 1000.0,
        pct(0.99).as_secs_f64() * 1000.0,
        gets as f64 / actions.max(1) as f64,
    );

    if !late.is_empty() {
        let (early, late) = (median(&mut early), median(&mut late));
        println!(
            "cost over a game: POST p50 {:.2} ms in the first {EARLY_ACTIONS} actions, {:.2} ms once the log held {LATE_EVENTS} events: {:.2}x",
            early.as_secs_f64() * 1000.0,
            late.as_secs_f64() * 1000.0,
            late.as_secs_f64() / early.as_secs_f64().max(f64::MIN_POSITIVE),
        );
    }

    if args.probe_gets > 0 {
        handshake(&args.sync, "actions-done", "start-probe").await?;
        let started = Instant::now();
        let probes = futures_util::future::join_all(
            games
                .iter_mut()
                .map(|game| game.probe(&client, args.probe_gets)),
        )
        .await;
        for probe in probes {
            probe.map_err(|e| format!("a GET probe failed: {e}"))?;
        }
        let elapsed = started.elapsed();
        let n = args.probe_gets * games.len();
        println!(
            "probe: {n} GETs in {:.2}s: {:.0} GETs/s",
            elapsed.as_secs_f64(),
            n as f64 / elapsed.as_secs_f64()
        );
    }
    Ok(())
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
    if let Err(e) = run(args).await {
        eprintln!("{e}");
        std::process::exit(1);
    }
}

fn median(values: &mut [Duration]) -> Duration {
    values.sort();
    values.get(values.len() / 2).copied().unwrap_or_default()
}
