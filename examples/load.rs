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

use std::time::{Duration, Instant};

use racko_rules::View;
use racko_sample as sample;
use serde_json::{json, Value};

struct Args {
    url: String,
    games: usize,
    actions: usize,
}

fn parse_args() -> Result<Args> {
    let mut args = Args {
        url: "http://127.0.0.1:8080".into(),
        games: 8,
        actions: 200,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--url" => args.url = value,
            "--games" => args.games = value.parse().map_err(|_| "--games: a number")?,
            "--actions" => args.actions = value.parse().map_err(|_| "--actions: a number")?,
            _ => return Err(format!("unknown flag {flag} (--url, --games, --actions)")),
        }
    }
    Ok(args)
}

type Result<T> = std::result::Result<T, String>;

struct Client {
    http: reqwest::Client,
    url: String,
}

impl Client {
    async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> Result<(u16, Value)> {
        let mut req = self.http.request(method, format!("{}{path}", self.url));
        if let Some(token) = token {
            req = req.bearer_auth(token);
        }
        if let Some(body) = body {
            req = req.json(&body);
        }
        let resp = req.send().await.map_err(|e| format!("{path}: {e}"))?;
        let status = resp.status().as_u16();
        let body = resp.json::<Value>().await.unwrap_or(Value::Null);
        Ok((status, body))
    }

    async fn expect(
        &self,
        method: reqwest::Method,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> Result<Value> {
        let (status, body) = self.call(method, path, token, body).await?;
        if status == 429 {
            return Err(format!(
                "{path}: 429, the server limits guest creation per address; \
                 start it with RACKO_AUTH_PER_MINUTE=0 for a load run"
            ));
        }
        if status >= 300 {
            return Err(format!("{path}: {status} {body}"));
        }
        Ok(body)
    }
}

/// Plays one game for at most `max_actions` actions; returns each action's latency.
async fn play(client: &Client, max_actions: usize) -> Result<Vec<Duration>> {
    use reqwest::Method;
    let mut tokens = Vec::new();
    for _ in 0..2 {
        let guest = client
            .expect(Method::POST, "/v1/guests", None, Some(json!({})))
            .await?;
        tokens.push(guest["token"].as_str().ok_or("no token")?.to_string());
    }
    let game = client
        .expect(
            Method::POST,
            "/v1/games",
            Some(&tokens[0]),
            Some(json!({"options": {"players": 2, "target": 300}})),
        )
        .await?;
    let id = game["id"].as_str().ok_or("no game id")?.to_string();
    client
        .expect(
            Method::POST,
            &format!("/v1/games/{id}/join"),
            Some(&tokens[1]),
            None,
        )
        .await?;

    let mut latencies = Vec::with_capacity(max_actions);
    let mut seat = 0usize;
    while latencies.len() < max_actions {
        let view = client
            .expect(
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
            // Not this seat's move: look from the other seat.
            seat = 1 - seat;
            continue;
        };
        let body = json!({"version": view["version"], "action": action});
        let started = Instant::now();
        let (status, reply) = client
            .call(
                Method::POST,
                &format!("/v1/games/{id}/actions"),
                Some(&tokens[seat]),
                Some(body),
            )
            .await?;
        latencies.push(started.elapsed());
        if status != 200 {
            return Err(format!("action refused: {status} {reply}"));
        }
    }
    Ok(latencies)
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
        http: reqwest::Client::new(),
        url: args.url.trim_end_matches('/').to_string(),
    };
    let started = Instant::now();
    let runs =
        futures_util::future::join_all((0..args.games).map(|_| play(&client, args.actions))).await;
    let elapsed = started.elapsed();
    let mut latencies = Vec::new();
    for run in runs {
        match run {
            Ok(l) => latencies.extend(l),
            Err(e) => {
                eprintln!("a game failed: {e}");
                std::process::exit(1);
            }
        }
    }
    latencies.sort();
    let pct = |p: f64| {
        latencies
            .get(((latencies.len() as f64 - 1.0) * p) as usize)
            .copied()
            .unwrap_or_default()
    };
    println!(
        "{} actions in {} games in {:.2}s: {:.0} actions/s (POST latency p50 {:.1} ms, p99 {:.1} ms; each action also costs 1-2 GETs)",
        latencies.len(),
        args.games,
        elapsed.as_secs_f64(),
        latencies.len() as f64 / elapsed.as_secs_f64(),
        pct(0.5).as_secs_f64() * 1000.0,
        pct(0.99).as_secs_f64() * 1000.0,
    );
}
