//! The database conversation of an action (issue 14): on PostgreSQL an action costs two round
//! trips (the game with its seats, the write in one statement) and a third when the account's
//! token check is not answered from the last seconds' reads; the same at the start of a game
//! and deep into it. Counted with the store's own statement
//! counter (`racko_db_statements_total`), with the server's background jobs slowed right down
//! so that only the request's statements are counted.

use std::time::Duration;

use racko_rules::View;
use reqwest::StatusCode;
use serde_json::json;

use crate::common::app::{json_body, spawn_app_with, TestApp};
use crate::common::db::{enabled, TestBackend};
use crate::tables::{players, post_action, post_with, small_game, view, Player};

const STATEMENTS: &str = "racko_db_statements_total";

async fn quiet_app() -> TestApp {
    spawn_app_with(TestBackend::Postgres, |config| {
        let hour = Duration::from_secs(3600);
        config.sweep_every = hour;
        config.webhook_poll = hour;
        config.push.poll = hour;
        config.housekeeping_every = hour;
    })
    .await
}

/// Plays the next move of whoever may act, chosen from their view (as a client would), and
/// returns the statements its POST cost.
async fn play_one(app: &TestApp, table: &[Player], game: &str, key: Option<&str>) -> f64 {
    for player in table {
        let seen = view(app, player, game).await;
        let table_view: View = serde_json::from_value(seen["table"].clone()).expect("a view");
        let Some(action) = racko_sample::choose(&table_view) else {
            continue;
        };
        let body = json!({ "version": seen["version"], "action": action });
        // A scrape reads the backlog from the database (`/metrics`): what one costs is
        // measured and taken off, so only the action's statements are counted.
        let first = app.scrape().await;
        let before = app.scrape().await;
        let scrape = before.rise(&first, STATEMENTS);
        let res = match key {
            Some(key) => {
                let path = format!("/v1/games/{game}/actions");
                post_with(
                    app,
                    &path,
                    player.token(),
                    &[("idempotency-key", key)],
                    &body,
                )
                .await
            }
            None => post_action(app, player, game, &body).await,
        };
        json_body(res, StatusCode::OK).await;
        return app.scrape().await.rise(&before, STATEMENTS) - scrape;
    }
    panic!("nobody may act in {game}");
}

#[actix_web::test]
async fn an_action_costs_one_round_trip_on_postgres() {
    if !enabled(TestBackend::Postgres) {
        return;
    }
    let app = quiet_app().await;
    let table = players(&app, &["ann", "bob"]).await;
    let game = small_game(&app, &table).await;
    let mut costs = Vec::new();
    for _ in 0..12 {
        costs.push(play_one(&app, &table, &game, None).await);
    }
    eprintln!("statements per action: {costs:?}");
    // The scrapes' own statements are taken off. The player's GET just before each
    // action has read the account, so the token check costs nothing; the game is decided on
    // as this process wrote it last (`store::recent`), so the write is the only statement.
    assert!(
        costs.iter().all(|&c| c == 1.0),
        "statements per action: {costs:?}"
    );
}

#[actix_web::test]
async fn an_action_with_an_idempotency_key_costs_two_round_trips_on_postgres() {
    if !enabled(TestBackend::Postgres) {
        return;
    }
    let app = quiet_app().await;
    let table = players(&app, &["ann", "bob"]).await;
    let game = small_game(&app, &table).await;
    let mut costs = Vec::new();
    for n in 0..6 {
        costs.push(play_one(&app, &table, &game, Some(&format!("key-{n}"))).await);
    }
    // One more than without: the look-up of an earlier answer for the key.
    assert!(
        costs.iter().all(|&c| c == 2.0),
        "statements per action: {costs:?}"
    );
}
