//! The audit figures for one game played through the HTTP API: how long the play took, then
//! how long its export, a local replay of its log and a local verification of the export take.
//!
//! ```text
//! cargo run --release --example audit_timing                 # its own server, SQLite
//! cargo run --release --example audit_timing -- --url http://127.0.0.1:8080 [--players 3] [--target 700]
//! ```
//!
//! `--save FILE` keeps the export (for `racko verify FILE`). Without `--url` it starts the server in this process on a temporary SQLite file. Each
//! action is chosen from the player's own view (`racko_sample::choose`), as a client
//! would: GET the game as each player, POST the action of the one who may act.

use std::time::{Duration, Instant};

use racko::service::audit::export::GameExport;
use racko::service::audit::verify;
use racko::service::LogEvent;
use racko_rules::{replay::replay, View};
use racko_sample as sample;
use serde_json::{json, Value};

type Result<T> = std::result::Result<T, String>;

struct Api {
    http: reqwest::Client,
    url: String,
}

impl Api {
    async fn call(
        &self,
        method: reqwest::Method,
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
        let resp = req.send().await.map_err(|e| format!("{path}: {e}"))?;
        let status = resp.status();
        let text = resp.text().await.map_err(|e| format!("{path}: {e}"))?;
        if !status.is_success() {
            return Err(format!("{path}: {status} {text}"));
        }
        serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))
    }
}

/// Plays one game to its end; returns its id and the number of actions.
async fn play(api: &Api, players: u8, target: u32) -> Result<(String, usize)> {
    use reqwest::Method;
    let mut tokens = Vec::new();
    for _ in 0..players {
        let guest = api
            .call(Method::POST, "/v1/guests", None, Some(json!({})))
            .await?;
        tokens.push(guest["token"].as_str().ok_or("no token")?.to_string());
    }
    let created = api
        .call(
            Method::POST,
            "/v1/games",
            Some(&tokens[0]),
            Some(json!({
                "options": {"players": players, "target": target},
                "visibility": "public",
            })),
        )
        .await?;
    let id = created["id"].as_str().ok_or("no game id")?.to_string();
    for token in &tokens[1..] {
        api.call(
            Method::POST,
            &format!("/v1/games/{id}/join"),
            Some(token),
            None,
        )
        .await?;
    }
    let mut actions = 0;
    'game: loop {
        for token in &tokens {
            let game = api
                .call(Method::GET, &format!("/v1/games/{id}"), Some(token), None)
                .await?;
            if game["status"] != "active" {
                break 'game;
            }
            let view: View =
                serde_json::from_value(game["table"].clone()).map_err(|e| e.to_string())?;
            let Some(action) = sample::choose(&view) else {
                continue;
            };
            let body = json!({"version": game["version"], "action": action});
            api.call(
                Method::POST,
                &format!("/v1/games/{id}/actions"),
                Some(token),
                Some(body),
            )
            .await?;
            actions += 1;
        }
    }
    Ok((id, actions))
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

async fn run(url: Option<String>, players: u8, target: u32, save: Option<String>) -> Result<()> {
    let folder = std::env::temp_dir().join(format!("racko-timing-{}", uuid::Uuid::new_v4()));
    let url = match url {
        Some(url) => url,
        None => {
            let config = racko::config::Config {
                database_url: Some(format!("sqlite://{}", folder.join("racko.db").display())),
                bind: "127.0.0.1:0".into(),
                jwt_secret: Some(racko::config::Secret::new(
                    "timing-secret-0123456789abcdef-0123456789",
                )),
                ..racko::config::Config::defaults()
            };
            let app = racko::app::Application::build(config)
                .await
                .map_err(|e| e.to_string())?;
            let url = format!("http://127.0.0.1:{}", app.port());
            actix_web::rt::spawn(app.run_until_stopped());
            url
        }
    };
    let api = Api {
        http: reqwest::Client::new(),
        url,
    };

    let started = Instant::now();
    let (id, actions) = play(&api, players, target).await?;
    let played = started.elapsed();

    let guest = api
        .call(reqwest::Method::POST, "/v1/guests", None, Some(json!({})))
        .await?;
    let token = guest["token"].as_str().ok_or("no token")?;
    let started = Instant::now();
    let text = api
        .call(
            reqwest::Method::GET,
            &format!("/v1/games/{id}/export"),
            Some(token),
            None,
        )
        .await?;
    let exported = started.elapsed();
    let started = Instant::now();
    let checked = api
        .call(
            reqwest::Method::GET,
            &format!("/v1/games/{id}/verify"),
            Some(token),
            None,
        )
        .await?;
    let endpoint = started.elapsed();
    if checked["verified"] != true {
        return Err(format!("the server did not verify the game: {checked}"));
    }

    let json_text = text.to_string();
    if let Some(path) = save {
        std::fs::write(&path, &json_text).map_err(|e| format!("{path}: {e}"))?;
    }
    let doc: GameExport = verify::parse(&json_text).map_err(|e| e.to_string())?;
    let rules_events: Vec<_> = doc
        .events
        .iter()
        .filter_map(|e| match &e.event {
            LogEvent::Play(event) => Some(event.clone()),
            _ => None,
        })
        .collect();
    let rounds = 20;
    let started = Instant::now();
    for _ in 0..rounds {
        replay(&doc.options, &rules_events).map_err(|e| e.to_string())?;
    }
    let replayed = started.elapsed() / rounds;
    let started = Instant::now();
    let mut report = None;
    for _ in 0..rounds {
        report = Some(
            verify::parse(&json_text)
                .and_then(|d| verify::verify(&d))
                .map_err(|e| e.to_string())?,
        );
    }
    let verified = started.elapsed() / rounds;
    let report = report.ok_or("no report")?;

    println!(
        "game {id}: {players} players, {} events, {actions} actions, {} rounds",
        doc.events.len(),
        report.rounds
    );
    println!(
        "  played through the API:     {:.2} s ({:.2} ms per action, GETs included)",
        played.as_secs_f64(),
        played.as_secs_f64() * 1000.0 / actions.max(1) as f64
    );
    println!(
        "  GET export:                 {} ({} KiB)",
        ms(exported),
        json_text.len() / 1024
    );
    println!("  GET verify (server):        {}", ms(endpoint));
    println!("  replay of its log (local):  {}", ms(replayed));
    println!("  parse + verify its export:  {}", ms(verified));
    println!(
        "  replay is {:.0}x faster than the play",
        played.as_secs_f64() / replayed.as_secs_f64().max(1e-9)
    );
    let _ = std::fs::remove_dir_all(&folder);
    Ok(())
}

#[actix_web::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    // The benchmark's game: 3 players to 700 points, about 2,000 events.
    let (mut url, mut players, mut target, mut save) = (None, 3u8, 700u32, None);
    while let Some(flag) = args.next() {
        match (flag.as_str(), args.next()) {
            ("--url", Some(v)) => url = Some(v.trim_end_matches('/').to_string()),
            ("--players", Some(v)) => players = v.parse().unwrap_or(3),
            ("--target", Some(v)) => target = v.parse().unwrap_or(700),
            ("--save", Some(v)) => save = Some(v),
            _ => {
                eprintln!("usage: audit_timing [--url URL] [--players 2|3|4] [--target POINTS] [--save EXPORT.json]");
                std::process::exit(2);
            }
        }
    }
    if let Err(e) = run(url, players, target, save).await {
        eprintln!("{e}");
        std::process::exit(1);
    }
}
