//! The sweeper's cost (issue 11): with `--games` (100,000) games stored, `--overdue` (1,000)
//! of them run out of time at once; how long the server takes to time them all out, and what
//! that does to the action endpoint's throughput meanwhile. `scripts/sweep-bench.sh` starts a
//! release server in test mode on a fresh PostgreSQL database and runs this.
//!
//! Each round: `--window` seconds of play on `--load` games alone (A), then the clock moves
//! past one batch's deadlines and the play goes on until every game of the batch has timed
//! out (B). The batches' games have `timeouts_to_resign: 1`, so a timed-out game ends, and
//! batch k's turn time is k × 600 s, so moving the clock reaches one batch per round. The
//! filler games are copies of a batch game, due 30 days later, in the same tables and indexes.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Integer, Text};
use racko_rules::View;
use reqwest::Method;
use serde_json::{json, Value};

type Result<T> = std::result::Result<T, String>;

struct Args {
    url: String,
    db: String,
    games: usize,
    overdue: usize,
    rounds: usize,
    load: usize,
    window: u64,
}

fn parse_args() -> Result<Args> {
    let mut args = Args {
        url: "http://127.0.0.1:8080".into(),
        db: std::env::var("DATABASE_URL").unwrap_or_default(),
        games: 100_000,
        overdue: 1000,
        rounds: 3,
        load: 50,
        window: 8,
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
            "--db" => args.db = value.clone(),
            "--games" => args.games = n()?,
            "--overdue" => args.overdue = n()?,
            "--rounds" => args.rounds = n()?,
            "--load" => args.load = n()?,
            "--window" => args.window = n()? as u64,
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    if !args.db.starts_with("postgres") {
        return Err("--db (or DATABASE_URL) must be a PostgreSQL URL".into());
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
        token: &str,
        body: Value,
    ) -> Result<(u16, Value)> {
        let res = self
            .http
            .request(method, format!("{}{path}", self.url))
            .bearer_auth(token)
            .json(&body)
            .send()
            .await
            .map_err(|e| format!("{path}: {e}"))?;
        let status = res.status().as_u16();
        Ok((status, res.json::<Value>().await.unwrap_or(Value::Null)))
    }

    async fn guest(&self) -> Result<String> {
        let res = self
            .http
            .post(format!("{}/v1/guests", self.url))
            .json(&json!({}))
            .send()
            .await
            .map_err(|e| e.to_string())?;
        let body: Value = res.json().await.map_err(|e| e.to_string())?;
        Ok(body["token"].as_str().ok_or("no guest token")?.to_string())
    }

    /// A started two-player game with `options`: (id, tokens by seat).
    async fn game(&self, options: Value) -> Result<(String, [String; 2])> {
        let tokens = [self.guest().await?, self.guest().await?];
        let (status, game) = self
            .call(
                Method::POST,
                "/v1/games",
                &tokens[0],
                json!({ "options": options, "visibility": "public" }),
            )
            .await?;
        if status != 201 {
            return Err(format!("create: {status} {game}"));
        }
        let id = game["id"].as_str().ok_or("no game id")?.to_string();
        let (status, joined) = self
            .call(
                Method::POST,
                &format!("/v1/games/{id}/join"),
                &tokens[1],
                json!({}),
            )
            .await?;
        if status != 200 {
            return Err(format!("join: {status} {joined}"));
        }
        Ok((id, tokens))
    }

    /// Plays game after game forever, recording the time of each accepted action.
    async fn play(self, done: Arc<Mutex<Vec<Instant>>>) -> Result<()> {
        loop {
            let options = json!({ "players": 2, "target": 100_000, "turn_time": null });
            let (id, tokens) = self.game(options).await?;
            let (_, mut game) = self
                .call(
                    Method::GET,
                    &format!("/v1/games/{id}"),
                    &tokens[1],
                    json!(null),
                )
                .await?;
            // The next action comes from the previous answer's legal actions, like a client.
            while let Some(seat) = game["table"]["awaiting"][0].as_u64() {
                let token = &tokens[seat as usize];
                let (_, seen) = self
                    .call(Method::GET, &format!("/v1/games/{id}"), token, json!(null))
                    .await?;
                let view: View =
                    serde_json::from_value(seen["table"].clone()).map_err(|e| e.to_string())?;
                let Some(action) = racko_sample::choose(&view) else {
                    break;
                };
                let body = json!({ "version": seen["version"], "action": action });
                let (status, answer) = self
                    .call(
                        Method::POST,
                        &format!("/v1/games/{id}/actions"),
                        token,
                        body,
                    )
                    .await?;
                if status == 200 {
                    if let Ok(mut done) = done.lock() {
                        done.push(Instant::now());
                    }
                    game = answer["view"].clone();
                } else {
                    game = seen;
                }
            }
        }
    }
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

fn connect(url: &str) -> Result<PgConnection> {
    PgConnection::establish(url).map_err(|e| format!("cannot connect: {e}"))
}

/// Copies game `template` `copies` times (with its seats), due 30 days later than it.
fn fill(conn: &mut PgConnection, template: &str, copies: usize) -> Result<()> {
    let sql = "WITH t AS (SELECT * FROM games WHERE id = $1), \
        n AS (INSERT INTO games (id, created_by, invite_code, options, rules_version, state, \
              status, test_mode, stacked, version, last_seq, created_at, updated_at, due_at, \
              listed_at) \
            SELECT gen_random_uuid()::text, created_by, substr(md5(random()::text), 1, 16), \
              options, rules_version, state, status, test_mode, stacked, version, last_seq, \
              created_at, updated_at, due_at + interval '30 days', listed_at \
            FROM t, generate_series(1, $2) RETURNING id) \
        INSERT INTO game_seats (game_id, seat, account_id, username, awaiting, deadline, reminded) \
        SELECT n.id, s.seat, s.account_id, s.username, s.awaiting, \
          s.deadline + interval '30 days', s.reminded \
        FROM n, game_seats s WHERE s.game_id = $1";
    diesel::sql_query(sql)
        .bind::<Text, _>(template)
        .bind::<Integer, _>(copies as i32)
        .execute(conn)
        .map_err(|e| format!("filler games: {e}"))?;
    Ok(())
}

fn finished(conn: &mut PgConnection, ids: &[String]) -> Result<usize> {
    let list = ids
        .iter()
        .map(|id| format!("'{id}'"))
        .collect::<Vec<_>>()
        .join(",");
    let sql =
        format!("SELECT count(*) AS n FROM games WHERE status = 'finished' AND id IN ({list})");
    let rows: Vec<Count> = diesel::sql_query(sql)
        .load(conn)
        .map_err(|e| format!("count: {e}"))?;
    Ok(rows.first().map_or(0, |c| c.n as usize))
}

fn move_clock(conn: &mut PgConnection, seconds: u64) -> Result<()> {
    let sql = "INSERT INTO settings (key, value) VALUES ('test_clock_offset_micros', $1) \
               ON CONFLICT (key) DO UPDATE SET value = excluded.value";
    diesel::sql_query(sql)
        .bind::<Text, _>((seconds * 1_000_000).to_string())
        .execute(conn)
        .map_err(|e| format!("clock: {e}"))?;
    Ok(())
}

fn rate(done: &Mutex<Vec<Instant>>, from: Instant, to: Instant) -> f64 {
    let n = done
        .lock()
        .map(|d| d.iter().filter(|t| **t >= from && **t < to).count())
        .unwrap_or(0);
    n as f64 / (to - from).as_secs_f64()
}

fn median_range(mut v: Vec<f64>) -> String {
    v.sort_by(|a, b| a.total_cmp(b));
    let median = v.get(v.len() / 2).copied().unwrap_or(f64::NAN);
    format!(
        "median {median:.2} (range {:.2} .. {:.2})",
        v.first().copied().unwrap_or(f64::NAN),
        v.last().copied().unwrap_or(f64::NAN)
    )
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

#[tokio::main]
async fn main() -> Result<()> {
    let args = parse_args()?;
    let client = Client {
        http: reqwest::Client::new(),
        url: args.url.clone(),
    };
    let mut conn = connect(&args.db)?;

    // The batches: one per round, each game due at k × 600 s.
    let mut batches: Vec<Vec<String>> = Vec::new();
    for k in 1..=args.rounds {
        let options = json!({ "players": 2, "turn_time": k * 600, "timeouts_to_resign": 1 });
        let mut ids = Vec::new();
        for chunk in 0..args.overdue.div_ceil(25) {
            let size = 25.min(args.overdue - chunk * 25);
            let made =
                futures_util::future::join_all((0..size).map(|_| client.game(options.clone())))
                    .await;
            for game in made {
                ids.push(game?.0);
            }
        }
        batches.push(ids);
    }
    let stored = args.rounds * args.overdue + args.load;
    let fillers = args.games.saturating_sub(stored);
    let template = batches
        .first()
        .and_then(|b| b.first())
        .ok_or("no batch game")?
        .clone();
    let started = Instant::now();
    let mut left = fillers;
    while left > 0 {
        let copies = left.min(10_000);
        fill(&mut conn, &template, copies)?;
        left -= copies;
    }
    diesel::sql_query("ANALYZE")
        .execute(&mut conn)
        .map_err(|e| e.to_string())?;
    let total: Vec<Count> = diesel::sql_query("SELECT count(*) AS n FROM games")
        .load(&mut conn)
        .map_err(|e| e.to_string())?;
    println!(
        "stored games: {} ({} fillers copied in {:.1} s); {} overdue per round, {} rounds, {} games played meanwhile",
        total.first().map_or(0, |c| c.n),
        fillers,
        started.elapsed().as_secs_f64(),
        args.overdue,
        args.rounds,
        args.load
    );

    let done = Arc::new(Mutex::new(Vec::new()));
    for _ in 0..args.load {
        let (c, d) = (client.clone(), done.clone());
        tokio::spawn(async move {
            if let Err(e) = c.play(d).await {
                eprintln!("load client stopped: {e}");
            }
        });
    }
    tokio::time::sleep(Duration::from_secs(2)).await;

    let (mut sweeps, mut alone, mut during, mut ratios) = (vec![], vec![], vec![], vec![]);
    for (k, batch) in batches.iter().enumerate() {
        let a_start = Instant::now();
        tokio::time::sleep(Duration::from_secs(args.window)).await;
        let a = rate(&done, a_start, Instant::now());

        let b_start = Instant::now();
        move_clock(&mut conn, (k as u64 + 1) * 600 + 1)?;
        loop {
            if finished(&mut conn, batch)? == batch.len() {
                break;
            }
            if b_start.elapsed() > Duration::from_secs(600) {
                return Err(format!(
                    "round {}: the batch was not handled in 10 min",
                    k + 1
                ));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let b_end = Instant::now();
        let b = rate(&done, b_start, b_end);
        let sweep = (b_end - b_start).as_secs_f64();
        println!(
            "round {}: {} overdue games timed out in {sweep:.2} s; actions/s alone {a:.0}, during the sweep {b:.0} (ratio {:.2}); load average {}",
            k + 1,
            batch.len(),
            b / a,
            load_average()
        );
        sweeps.push(sweep);
        alone.push(a);
        during.push(b);
        ratios.push(b / a);
    }
    println!(
        "time to handle {} overdue games, s: {}",
        args.overdue,
        median_range(sweeps)
    );
    println!("actions/s with no sweep: {}", median_range(alone));
    println!("actions/s during a sweep: {}", median_range(during));
    println!("ratio during/alone: {}", median_range(ratios));
    println!("(the time includes up to 1 s for the processes to read the moved clock)");
    Ok(())
}
