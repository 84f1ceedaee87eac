//! The embedded store survives a restart: a game and its tokens outlive the server process that
//! made them. The server runs as it does after `cargo run`: no token secret configured (the
//! secret is generated once and kept with the data) and test mode off.

#[macro_use]
#[path = "common/mod.rs"]
mod common;

use common::app::{json_body, TEST_PASSWORD};
use common::db::{TestBackend, TestDb};
use common::json::field;
use racko::{app::Application, config::Config};
use reqwest::StatusCode;
use serde_json::{json, Value};

struct Server {
    address: String,
    handle: actix_web::dev::ServerHandle,
}

async fn start(url: &str) -> Server {
    let config = Config {
        database_url: Some(url.to_string()),
        bind: "127.0.0.1:0".to_string(),
        jwt_secret: None,
        test_mode: false,
        pool_size: 2,
        workers: Some(1),
        ..Config::defaults()
    };
    let app = Application::build(config).await.expect("the server builds");
    let server = Server {
        address: format!("http://127.0.0.1:{}", app.port()),
        handle: app.handle(),
    };
    actix_web::rt::spawn(app.run_until_stopped());
    server
}

impl Server {
    async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        token: &str,
        body: Option<Value>,
    ) -> Value {
        let mut request = reqwest::Client::new()
            .request(method, format!("{}{path}", self.address))
            .bearer_auth(token);
        if let Some(body) = body {
            request = request.json(&body);
        }
        json_body(request.send().await.expect("request sent"), StatusCode::OK).await
    }

    async fn game(&self, id: &str, token: &str) -> Value {
        self.call(
            reqwest::Method::GET,
            &format!("/v1/games/{id}"),
            token,
            None,
        )
        .await
    }

    /// Plays the first legal action of whichever player is awaited; returns the new view.
    async fn play_one(&self, id: &str, tokens: &[String; 2]) -> Value {
        for token in tokens {
            let view = self.game(id, token).await;
            let Some(action) = view["table"]["legal_actions"]
                .as_array()
                .and_then(|legal| {
                    legal
                        .iter()
                        .find(|a| a["type"] != "call_racko")
                        .or(legal.first())
                })
                .cloned()
            else {
                continue;
            };
            let body = json!({ "version": view["version"], "action": action });
            let path = format!("/v1/games/{id}/actions");
            return self
                .call(reqwest::Method::POST, &path, token, Some(body))
                .await["view"]
                .clone();
        }
        panic!("nobody may act in game {id}");
    }
}

#[actix_web::test]
async fn embedded_store_keeps_games_and_tokens_across_a_restart() {
    let db = TestDb::new(TestBackend::Sqlite);
    let first = start(&db.url).await;
    let client = reqwest::Client::new();

    let ann = client
        .post(format!("{}/v1/accounts", first.address))
        .json(&json!({ "username": "ann", "password": TEST_PASSWORD }))
        .send()
        .await
        .expect("register");
    let ann = json_body(ann, StatusCode::CREATED).await["token"]
        .as_str()
        .expect("token")
        .to_string();
    let ben = client
        .post(format!("{}/v1/guests", first.address))
        .send()
        .await
        .expect("guest");
    let ben = json_body(ben, StatusCode::CREATED).await["token"]
        .as_str()
        .expect("token")
        .to_string();
    let tokens = [ann, ben];

    let created = client
        .post(format!("{}/v1/games", first.address))
        .bearer_auth(&tokens[0])
        .json(&json!({ "options": { "players": 2 }, "visibility": "public" }))
        .send()
        .await
        .expect("create");
    let id = json_body(created, StatusCode::CREATED).await["id"]
        .as_str()
        .expect("id")
        .to_string();
    first
        .call(
            reqwest::Method::POST,
            &format!("/v1/games/{id}/join"),
            &tokens[1],
            None,
        )
        .await;
    for _ in 0..5 {
        first.play_one(&id, &tokens).await;
    }
    let before: Vec<Value> = [
        first.game(&id, &tokens[0]).await,
        first.game(&id, &tokens[1]).await,
    ]
    .into();
    first.handle.stop(true).await;

    // A new process on the same file: the same tokens work, the game is where it was.
    let second = start(&db.url).await;
    for (token, seen) in tokens.iter().zip(&before) {
        let now = second.game(&id, token).await;
        assert_eq!(field(&now, "version"), field(seen, "version"));
        assert_eq!(
            field(&now, "table"),
            field(seen, "table"),
            "the table as this player saw it before"
        );
    }
    let log_before = before[0]["version"].as_i64().expect("version");
    let after = second.play_one(&id, &tokens).await;
    assert_eq!(
        after["version"].as_i64(),
        Some(log_before + 1),
        "play goes on after the restart"
    );
    let events = second
        .call(
            reqwest::Method::GET,
            &format!("/v1/games/{id}/events?after=0&limit=500"),
            &tokens[0],
            None,
        )
        .await;
    let seqs: Vec<i64> = events["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter_map(|e| e["seq"].as_i64())
        .collect();
    assert_eq!(
        seqs,
        (1..=seqs.len() as i64).collect::<Vec<_>>(),
        "the log is whole and gapless"
    );
    second.handle.stop(true).await;
}
