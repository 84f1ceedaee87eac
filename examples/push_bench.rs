//! Benchmark of push notifications against a running server; prints the figures.
//! `scripts/push-bench.sh` starts a release server that pushes to this program's FCM receiver.
//!
//! 1. Commit-to-arrival latency of `your_turn` pushes, p50/p99: `--games` (50) games played at
//!    once by players with an FCM device each, with `--devices` (1,000) devices registered in
//!    all; from the feed item's `at` (taken in the write transaction) to the receiver's
//!    arrival time (same machine, same clock).
//! 2. Action throughput of 16 games played at once by players with devices, against 16 by
//!    players without, `--rounds` (3) interleaved rounds, the median ratio.
//!
//! The receiver answers the OAuth token request and `messages:send` at once (HTTP/1.1,
//! keep-alive), so the figures are the server's.

use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use racko_rules::View;
use racko_sample as sample;
use reqwest::Method;
use serde_json::{json, Value};

type Result<T> = std::result::Result<T, String>;

struct Args {
    url: String,
    receiver: String,
    account_file: String,
    devices: usize,
    games: usize,
    rounds: usize,
    actions: usize,
}

fn parse_args() -> Result<Args> {
    let mut args = Args {
        url: "http://127.0.0.1:8080".into(),
        receiver: "127.0.0.1:9090".into(),
        account_file: "push-bench-account.json".into(),
        devices: 1000,
        games: 50,
        rounds: 3,
        actions: 40,
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
            "--receiver" => args.receiver = value.clone(),
            "--account-file" => args.account_file = value.clone(),
            "--devices" => args.devices = n()?,
            "--games" => args.games = n()?,
            "--rounds" => args.rounds = n()?,
            "--actions" => args.actions = n()?,
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    Ok(args)
}

/// Latencies (seconds) of the `your_turn` pushes received.
type Arrivals = Arc<Mutex<Vec<f64>>>;

/// The FCM receiver: a token endpoint and `messages:send`, answering at once.
async fn receive(listener: tokio::net::TcpListener, arrivals: Arrivals) {
    loop {
        let Ok((tcp, _)) = listener.accept().await else {
            continue;
        };
        let arrivals = arrivals.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(
                move |req: hyper::Request<hyper::body::Incoming>| {
                    let arrivals = arrivals.clone();
                    async move {
                        let path = req.uri().path().to_string();
                        let body = req
                            .into_body()
                            .collect()
                            .await
                            .map(|b| b.to_bytes())
                            .unwrap_or_default();
                        let now = chrono::Utc::now();
                        let answer = if path == "/token" {
                            json!({ "access_token": "bench", "expires_in": 3600, "token_type": "Bearer" })
                        } else {
                            let message: Value =
                                serde_json::from_slice(&body).unwrap_or(Value::Null);
                            let data = &message["message"]["data"];
                            if data["kind"] == "your_turn" {
                                if let Some(at) = data["at"]
                                    .as_str()
                                    .and_then(|a| chrono::DateTime::parse_from_rfc3339(a).ok())
                                {
                                    let late = (now - at.with_timezone(&chrono::Utc))
                                        .num_microseconds()
                                        .unwrap_or(0);
                                    arrivals.lock().expect("arrivals").push(late as f64 / 1e6);
                                }
                            }
                            json!({ "name": "projects/bench/messages/1" })
                        };
                        Ok::<_, Infallible>(
                            hyper::Response::builder()
                                .header("content-type", "application/json")
                                .body(Full::new(Bytes::from(answer.to_string())))
                                .expect("a response"),
                        )
                    }
                },
            );
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(hyper_util::rt::TokioIo::new(tcp), service)
                .await;
        });
    }
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

    /// A guest, with an FCM device when `device`.
    async fn guest(&self, device: bool) -> Result<String> {
        let guest = self
            .call(Method::POST, "/v1/guests", None, Some(json!({})))
            .await?;
        let token = guest["token"].as_str().ok_or("no token")?.to_string();
        if device {
            let body =
                json!({ "fcm": { "token": format!("bench-{}", uuid::Uuid::new_v4().simple()) } });
            self.call(Method::POST, "/v1/me/devices", Some(&token), Some(body))
                .await?;
        }
        Ok(token)
    }

    async fn game(&self, devices: bool) -> Result<(String, [String; 2])> {
        let tokens = [self.guest(devices).await?, self.guest(devices).await?];
        let body = json!({ "options": {"players": 2, "target": 100000}, "visibility": "public" });
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
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// Actions per second of 16 games played at once by players with (or without) devices.
async fn throughput(client: &Client, args: &Args, devices: bool) -> Result<f64> {
    let games = futures_util::future::try_join_all((0..16).map(|_| client.game(devices))).await?;
    let started = Instant::now();
    let played = futures_util::future::try_join_all(
        games.iter().map(|(id, t)| client.play(id, t, args.actions)),
    )
    .await?;
    Ok(played.iter().sum::<usize>() as f64 / started.elapsed().as_secs_f64())
}

/// A service account key file whose `token_uri` is the receiver (the key only signs).
fn write_account(args: &Args) -> Result<()> {
    let rsa = openssl::rsa::Rsa::generate(2048).map_err(|e| e.to_string())?;
    let key = openssl::pkey::PKey::from_rsa(rsa).map_err(|e| e.to_string())?;
    let pem = key.private_key_to_pem_pkcs8().map_err(|e| e.to_string())?;
    let account = json!({
        "type": "service_account", "project_id": "bench",
        "private_key": String::from_utf8_lossy(&pem), "client_email": "bench@bench.invalid",
        "token_uri": format!("http://{}/token", args.receiver),
    });
    std::fs::write(&args.account_file, account.to_string()).map_err(|e| e.to_string())
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
    let run = async {
        let listener = tokio::net::TcpListener::bind(&args.receiver)
            .await
            .map_err(|e| e.to_string())?;
        let arrivals: Arrivals = Arc::default();
        tokio::spawn(receive(listener, arrivals.clone()));
        write_account(&args)?;
        let client = Client {
            http: reqwest::Client::builder()
                .pool_max_idle_per_host(64)
                .build()
                .map_err(|e| e.to_string())?,
            url: args.url.clone(),
        };
        // The script starts the server once the account file is written.
        let deadline = Instant::now() + Duration::from_secs(60);
        while client
            .http
            .get(format!("{}/readyz", args.url))
            .send()
            .await
            .is_err()
        {
            if Instant::now() > deadline {
                return Err("the server did not come up".to_string());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let players = 2 * args.games;
        let idle = args.devices.saturating_sub(players);
        futures_util::future::try_join_all((0..idle).map(|_| client.guest(true))).await?;
        let games =
            futures_util::future::try_join_all((0..args.games).map(|_| client.game(true))).await?;
        tokio::time::sleep(Duration::from_secs(1)).await;
        arrivals.lock().expect("arrivals").clear();
        futures_util::future::try_join_all(
            games.iter().map(|(id, t)| client.play(id, t, args.actions)),
        )
        .await?;
        tokio::time::sleep(Duration::from_secs(2)).await;
        let mut got = arrivals.lock().expect("arrivals").clone();
        got.sort_by(f64::total_cmp);
        println!(
            "your_turn push latency (commit to arrival), {} pushes, {} games, {} devices: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
            got.len(),
            args.games,
            idle + players,
            percentile(&got, 0.5) * 1e3,
            percentile(&got, 0.99) * 1e3,
            got.last().copied().unwrap_or(f64::NAN) * 1e3,
        );
        let (mut ratios, mut withouts, mut withs) = (Vec::new(), Vec::new(), Vec::new());
        for round in 0..args.rounds {
            // Interleaved, the order turned each round.
            let (first, second) = if round % 2 == 0 {
                (false, true)
            } else {
                (true, false)
            };
            let a = throughput(&client, &args, first).await?;
            let b = throughput(&client, &args, second).await?;
            let (without, with) = if first { (b, a) } else { (a, b) };
            println!(
                "throughput round {}: {without:.0} actions/s without devices, {with:.0} with",
                round + 1
            );
            ratios.push(with / without);
            withouts.push(without);
            withs.push(with);
        }
        let spread = |v: &mut Vec<f64>| {
            v.sort_by(f64::total_cmp);
            (percentile(v, 0.5), v[0], v[v.len() - 1])
        };
        let (w, wmin, wmax) = spread(&mut withouts);
        let (d, dmin, dmax) = spread(&mut withs);
        let (r, rmin, rmax) = spread(&mut ratios);
        println!(
            "throughput, median of {} rounds [range]: {w:.0} [{wmin:.0}-{wmax:.0}] actions/s without devices, {d:.0} [{dmin:.0}-{dmax:.0}] with",
            args.rounds
        );
        println!(
            "throughput with pushes vs without: median ratio {r:.3} (min {rmin:.3}, max {rmax:.3})"
        );
        Ok::<(), String>(())
    };
    if let Err(e) = run.await {
        eprintln!("{e}");
        std::process::exit(1);
    }
}
