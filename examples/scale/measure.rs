//! `scale measure`: p50/p99 of real HTTP requests against a server on an empty database and
//! one on a populated database, interleaved by rounds; a sweeper pass; bytes per stored game.

use std::time::{Duration, Instant};

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text};
use rand::seq::IndexedRandom;
use reqwest::{Client, Method, StatusCode};
use serde_json::{json, Value};

use crate::{flags, number, text, PASSWORD};

/// The admin account `scripts/scale-bench.sh` creates on each database.
pub const ADMIN: &str = "scale_admin";
pub const ADMIN_PASSWORD: &str = "scale admin password";

/// What is measured, in the order printed; the action's target is 1.2×, every other 1.5×.
const QUERIES: [&str; 12] = [
    "action (POST)",
    "game GET",
    "inbox (my turn)",
    "lobby (open games)",
    "events page",
    "replay",
    "export",
    "audit: a game's events",
    "audit: a player's events",
    "audit: one kind from a day",
    "audit: a player's games",
    "sweeper pass",
];

/// One server and its database, with what its requests need.
struct Target {
    name: &'static str,
    url: String,
    db: String,
    /// Signed-in accounts of the population: (token, username).
    players: Vec<(String, String)>,
    admin: String,
    /// Finished games of the population.
    finished: Vec<String>,
    /// Games the measurement plays: (id, tokens by seat).
    tables: Vec<(String, [String; 2])>,
    next_table: usize,
    sweeper: racko::service::Service,
    samples: Vec<Vec<Duration>>,
}

#[derive(QueryableByName)]
struct Id {
    #[diesel(sql_type = Text)]
    id: String,
}

#[derive(QueryableByName)]
struct Number {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

pub fn run(args: &[String]) -> Result<(), String> {
    let pairs = flags(args)?;
    let rounds = number(&pairs, "--rounds", 3)?;
    let samples = number(&pairs, "--samples", 100)?;
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    runtime.block_on(async {
        let client = Client::builder()
            .timeout(Duration::from_secs(60))
            .build()
            .map_err(|e| e.to_string())?;
        let load_before = load_average();
        let mut targets = Vec::new();
        for (name, url, db) in [
            ("empty", "--empty", "--empty-db"),
            ("full", "--full", "--full-db"),
        ] {
            let target = Target::new(name, &client, text(&pairs, url)?, text(&pairs, db)?).await?;
            targets.push(target);
        }
        for round in 0..rounds {
            for (q, query) in QUERIES.iter().enumerate() {
                // Interleaved: each query on both servers in turn, the first alternating.
                let order = if (round + q) % 2 == 0 { [0, 1] } else { [1, 0] };
                for t in order {
                    for _ in 0..samples {
                        let took = targets[t]
                            .sample(&client, q)
                            .await
                            .map_err(|e| format!("{query}: {e}"))?;
                        targets[t].samples[q].push(took);
                    }
                }
            }
            eprintln!("round {} of {rounds} done", round + 1);
        }
        let load_after = load_average();
        let sizes = [
            bytes_per_game(&targets[0].db)?,
            bytes_per_game(&targets[1].db)?,
        ];
        print_table(
            &mut targets,
            sizes,
            (load_before, load_after),
            rounds * samples,
        );
        Ok(())
    })
}

impl Target {
    async fn new(
        name: &'static str,
        client: &Client,
        url: String,
        db: String,
    ) -> Result<Target, String> {
        let mut conn = PgConnection::establish(&db).map_err(|e| e.to_string())?;
        let finished: Vec<Id> = diesel::sql_query(
            "SELECT id FROM games WHERE status = 'finished' ORDER BY random() LIMIT 500",
        )
        .load(&mut conn)
        .map_err(|e| e.to_string())?;
        let usernames: Vec<Id> = diesel::sql_query(
            "SELECT username AS id FROM accounts WHERE username LIKE 'pop%' ORDER BY random() LIMIT 16",
        )
        .load(&mut conn)
        .map_err(|e| e.to_string())?;
        let mut players = Vec::new();
        for username in usernames {
            let token = sign_in(client, &url, &username.id, PASSWORD).await?;
            players.push((token, username.id));
        }
        let admin = sign_in(client, &url, ADMIN, ADMIN_PASSWORD).await?;
        if finished.is_empty() || players.len() < 2 {
            return Err(format!("{name}: populate the database first"));
        }
        let store = racko::store::Store::open(&db, 2).map_err(|e| e.to_string())?;
        Ok(Target {
            name,
            url,
            db,
            players,
            admin,
            finished: finished.into_iter().map(|g| g.id).collect(),
            tables: Vec::new(),
            next_table: 0,
            sweeper: racko::service::Service::new(store),
            samples: vec![Vec::new(); QUERIES.len()],
        })
    }

    /// One timed sample of query `q`.
    async fn sample(&mut self, client: &Client, q: usize) -> Result<Duration, String> {
        let mut rng = rand::rng();
        let game = self.finished.choose(&mut rng).cloned().unwrap_or_default();
        let (token, player) = self.players.choose(&mut rng).cloned().unwrap_or_default();
        // A day far enough back that a full page of the kind follows it on either database
        // (the log's times are the games' creation times, spread over the last year).
        let day = racko::store::now() - chrono::Duration::days(rand::random_range(90..360));
        let from = day.format("%Y-%m-%dT00:00:00Z");
        let (path, as_admin) = match q {
            0 => return self.action(client).await,
            1 => (format!("/v1/games/{game}"), false),
            2 => ("/v1/me/games?filter=my_turn".to_string(), false),
            3 => ("/v1/games".to_string(), false),
            4 => (format!("/v1/games/{game}/events"), false),
            5 => (format!("/v1/games/{game}/replay"), false),
            6 => (format!("/v1/games/{game}/export"), false),
            7 => (format!("/v1/admin/events?game={game}"), true),
            8 => (format!("/v1/admin/events?player={player}"), true),
            9 => (
                format!("/v1/admin/events?kind=round_ended&from={from}"),
                true,
            ),
            10 => (format!("/v1/admin/players/{player}/games"), true),
            _ => {
                let started = Instant::now();
                racko::workers::sweeper::sweep_due(&self.sweeper).await;
                return Ok(started.elapsed());
            }
        };
        let token = if as_admin { self.admin.clone() } else { token };
        let started = Instant::now();
        let (status, body) = call(
            client,
            Method::GET,
            &format!("{}{path}", self.url),
            &token,
            None,
        )
        .await?;
        let took = started.elapsed();
        if status != StatusCode::OK {
            return Err(format!("{}: GET {path}: {status} {body}", self.name));
        }
        Ok(took)
    }

    /// One action on one of the measurement's games (a new game when they have all ended):
    /// its hint is read first, untimed; the POST is timed.
    async fn action(&mut self, client: &Client) -> Result<Duration, String> {
        for _ in 0..8 {
            if self.tables.len() < 8 {
                let table = self.table(client).await?;
                self.tables.push(table);
            }
            self.next_table = (self.next_table + 1) % self.tables.len();
            let (id, seats) = self.tables[self.next_table].clone();
            for token in &seats {
                let url = format!("{}/v1/games/{id}/hint", self.url);
                let (status, hint) = call(client, Method::GET, &url, token, None).await?;
                if status == StatusCode::CONFLICT {
                    continue;
                }
                if status != StatusCode::OK {
                    return Err(format!("hint: {status} {hint}"));
                }
                let body = json!({ "version": hint["version"], "action": hint["action"] });
                let url = format!("{}/v1/games/{id}/actions", self.url);
                let started = Instant::now();
                let (status, answer) = call(client, Method::POST, &url, token, Some(body)).await?;
                let took = started.elapsed();
                if status != StatusCode::OK {
                    return Err(format!("action: {status} {answer}"));
                }
                return Ok(took);
            }
            // Neither seat has a move: the game is over; the next try starts another.
            self.tables.remove(self.next_table);
        }
        Err("no game to act in".into())
    }

    /// A new two-player game between two of the signed-in players, both seated.
    async fn table(&self, client: &Client) -> Result<(String, [String; 2]), String> {
        let mut rng = rand::rng();
        let pair: Vec<&(String, String)> = self.players.choose_multiple(&mut rng, 2).collect();
        let (host, guest) = (pair[0].0.clone(), pair[1].0.clone());
        let body = json!({ "options": { "players": 2 }, "visibility": "public" });
        let url = format!("{}/v1/games", self.url);
        let (status, game) = call(client, Method::POST, &url, &host, Some(body)).await?;
        if status != StatusCode::CREATED {
            return Err(format!("create: {status} {game}"));
        }
        let id = game["id"].as_str().ok_or("no game id")?.to_string();
        let url = format!("{}/v1/games/{id}/join", self.url);
        let (status, joined) = call(client, Method::POST, &url, &guest, Some(json!({}))).await?;
        if status != StatusCode::OK {
            return Err(format!("join: {status} {joined}"));
        }
        Ok((id, [host, guest]))
    }
}

async fn call(
    client: &Client,
    method: Method,
    url: &str,
    token: &str,
    body: Option<Value>,
) -> Result<(StatusCode, Value), String> {
    let mut request = client.request(method, url).bearer_auth(token);
    if let Some(body) = body {
        request = request.json(&body);
    }
    let res = request.send().await.map_err(|e| format!("{url}: {e}"))?;
    let status = res.status();
    let body = res.json::<Value>().await.unwrap_or(Value::Null);
    Ok((status, body))
}

async fn sign_in(
    client: &Client,
    url: &str,
    username: &str,
    password: &str,
) -> Result<String, String> {
    let body = json!({ "username": username, "password": password });
    let res = client
        .post(format!("{url}/v1/sessions"))
        .json(&body)
        .send()
        .await
        .map_err(|e| e.to_string())?;
    let status = res.status();
    let answer: Value = res.json().await.unwrap_or(Value::Null);
    if !status.is_success() {
        return Err(format!("sign-in of {username}: {status} {answer}"));
    }
    Ok(answer["token"].as_str().ok_or("no token")?.to_string())
}

/// Bytes on disk (tables, their indexes and TOAST) of the games, their seats and their logs
/// (every partition), per stored game; and the number of games.
pub fn bytes_per_game(db: &str) -> Result<(f64, i64), String> {
    let mut conn = PgConnection::establish(db).map_err(|e| e.to_string())?;
    let bytes: Number = diesel::sql_query(
        "SELECT (pg_total_relation_size('games') + pg_total_relation_size('game_seats') + \
         (SELECT coalesce(sum(pg_total_relation_size(relid)), 0) FROM pg_partition_tree('game_events')))::bigint AS n",
    )
    .get_result(&mut conn)
    .map_err(|e| e.to_string())?;
    let games: Number = diesel::sql_query("SELECT count(*) AS n FROM games")
        .get_result(&mut conn)
        .map_err(|e| e.to_string())?;
    Ok((bytes.n as f64 / games.n.max(1) as f64, games.n))
}

/// The 1-minute load average, as /proc/loadavg has it.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".into())
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

fn ms(d: Duration) -> String {
    format!("{:.2}", d.as_secs_f64() * 1000.0)
}

fn print_table(targets: &mut [Target], sizes: [(f64, i64); 2], load: (String, String), n: usize) {
    println!(
        "{n} samples per query and database, {} and {} games stored; load average {} before, {} after",
        sizes[0].1, sizes[1].1, load.0, load.1
    );
    println!("| query | empty p50 ms | empty p99 ms | full p50 ms | full p99 ms | p99 full/empty | target |");
    println!("|---|---|---|---|---|---|---|");
    for (q, query) in QUERIES.iter().enumerate() {
        let mut figures = Vec::new();
        for target in targets.iter_mut() {
            target.samples[q].sort();
            figures.push((
                percentile(&target.samples[q], 0.5),
                percentile(&target.samples[q], 0.99),
            ));
        }
        let ratio = figures[1].1.as_secs_f64() / figures[0].1.as_secs_f64().max(1e-9);
        let limit = if q == 0 { 1.2 } else { 1.5 };
        let verdict = if ratio <= limit { "met" } else { "missed" };
        println!(
            "| {query} | {} | {} | {} | {} | {ratio:.2}× | ≤ {limit}×: {verdict} |",
            ms(figures[0].0),
            ms(figures[0].1),
            ms(figures[1].0),
            ms(figures[1].1)
        );
    }
    println!(
        "| bytes per stored game (games, seats, log; with indexes) | {:.0} | | {:.0} | | {:.2}× | |",
        sizes[0].0,
        sizes[1].0,
        sizes[1].0 / sizes[0].0.max(1.0)
    );
}
