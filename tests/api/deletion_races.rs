//! Deleting an account races nothing: a join or a new game sent with the account's token at
//! the same moment, to another `racko serve` process, either comes first (and the deletion
//! resigns or leaves it) or is refused; no deleted account stays seated in an open or active
//! game. An account row removed out of band answers 401, never 500.

use reqwest::{Client, Method, StatusCode};
use serde_json::{json, Value};
use uuid::Uuid;

use crate::common::db::{enabled, TestBackend, TestDb};
use crate::common::process::ServeProcess;

const TRIES: usize = 150;

async fn post(
    client: &Client,
    url: &str,
    token: Option<&str>,
    body: &Value,
) -> (StatusCode, Value) {
    let mut req = client.post(url).json(body);
    if let Some(token) = token {
        req = req.bearer_auth(token);
    }
    let res = req.send().await.expect("an answer");
    let status = res.status();
    (status, res.json().await.unwrap_or(Value::Null))
}

async fn guest(client: &Client, base: &str) -> (String, Uuid) {
    let (status, body) = post(client, &format!("{base}/v1/guests"), None, &json!({})).await;
    assert_eq!(status, StatusCode::CREATED);
    let token = body["token"].as_str().expect("a token").to_string();
    let id = body["account"]["id"]
        .as_str()
        .and_then(|id| id.parse().ok())
        .expect("an account id");
    (token, id)
}

/// The account's open and active games, read from the store itself.
fn seated(store: &racko::store::Store, account: Uuid) -> Vec<Uuid> {
    let mut ids = Vec::new();
    for status in [
        racko::store::GameStatus::Open,
        racko::store::GameStatus::Active,
    ] {
        let page = store
            .list_games(&racko::store::GameQuery {
                player: Some(account),
                status: Some(status),
                awaiting_player: false,
                limit: 100,
                ..Default::default()
            })
            .expect("a read");
        ids.extend(page.games.iter().map(|g| g.id));
    }
    ids
}

async fn deletion_never_leaves_a_deleted_account_seated(backend: TestBackend) {
    if !enabled(backend) {
        eprintln!("skipped: {backend:?} is not in RACKO_TEST_BACKENDS");
        return;
    }
    let db = TestDb::new(backend);
    let (a, b) = (
        ServeProcess::start(&db.url, &[]),
        ServeProcess::start(&db.url, &[]),
    );
    let client = Client::new();
    let store = racko::store::Store::open(&db.url, 2).expect("the store opens");
    let (host, _) = guest(&client, &a.url).await;
    let (mut joined, mut created, mut refused) = (0, 0, 0);
    for i in 0..TRIES {
        // A table of four: a join never starts the game, so the deletion has an open game to
        // leave when the join wins.
        let options = json!({ "options": { "players": 4 } });
        let (status, game) = post(
            &client,
            &format!("{}/v1/games", a.url),
            Some(&host),
            &options,
        )
        .await;
        assert_eq!(status, StatusCode::CREATED);
        let code = game["invite_code"]
            .as_str()
            .expect("an invite code")
            .to_string();
        let (token, id) = guest(&client, &a.url).await;
        let delete = client
            .request(Method::DELETE, format!("{}/v1/accounts/me", a.url))
            .bearer_auth(&token)
            .send();
        // Each try races the deletion with a join (even tries) or a new game (odd ones), on
        // the other process.
        let (path, body) = if i % 2 == 0 {
            ("/v1/games/join", json!({ "invite_code": code }))
        } else {
            ("/v1/games", options.clone())
        };
        let url = format!("{}{path}", b.url);
        let racer = post(&client, &url, Some(&token), &body);
        let (deleted, (status, _)) = tokio::join!(delete, racer);
        assert_eq!(
            deleted.expect("the deletion answered").status(),
            StatusCode::NO_CONTENT
        );
        match status {
            StatusCode::OK if i % 2 == 0 => joined += 1,
            StatusCode::CREATED => created += 1,
            StatusCode::UNAUTHORIZED => refused += 1,
            other => panic!("try {i}: the racing request answered {other}"),
        }
        let left = seated(&store, id);
        assert!(
            left.is_empty(),
            "try {i}: the deleted account still sits in {left:?}"
        );
    }
    println!(
        "{backend:?}: {TRIES} deletions raced: {joined} joins and {created} new games came \
         first (undone by the deletion), {refused} refused"
    );
}

#[actix_web::test]
async fn deletion_never_leaves_a_deleted_account_seated_postgres() {
    deletion_never_leaves_a_deleted_account_seated(TestBackend::Postgres).await;
}

#[actix_web::test]
async fn deletion_never_leaves_a_deleted_account_seated_sqlite() {
    deletion_never_leaves_a_deleted_account_seated(TestBackend::Sqlite).await;
}

/// A row removed behind the server's back (by an operator, say) while the account is still
/// in the process's short account cache: a new game answers 401, not a 500 from the broken
/// foreign key. PostgreSQL only: SQLite reads the account on every request.
#[actix_web::test]
async fn an_account_removed_out_of_band_answers_401() {
    use diesel::RunQueryDsl;
    if !enabled(TestBackend::Postgres) {
        eprintln!("skipped: Postgres is not in RACKO_TEST_BACKENDS");
        return;
    }
    let app = crate::common::app::spawn_app(TestBackend::Postgres).await;
    let (token, id) = app.guest().await;
    // Read once, so the process holds the account in its cache.
    let res = app.get("/v1/accounts/me", Some(&token)).await;
    assert_eq!(res.status(), StatusCode::OK);
    let mut admin = crate::common::db::pg_connect(&app.db.url).expect("a connection");
    for table in ["sessions", "account_feed", "account_feed_heads", "accounts"] {
        let column = if table == "accounts" {
            "id"
        } else {
            "account_id"
        };
        diesel::sql_query(format!("DELETE FROM {table} WHERE {column} = '{id}'"))
            .execute(&mut admin)
            .expect("removed");
    }
    let res = app
        .post_json(
            "/v1/games",
            Some(&token),
            &json!({ "options": { "players": 2 } }),
        )
        .await;
    crate::common::app::assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
}
