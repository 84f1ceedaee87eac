//! Actions on many games at once: on SQLite the writers queued for the file share commits
//! (`store::group_commit`). Every action is answered after its commit, each game's log stays
//! gapless, and a refused action of one game changes nothing of the others'.

use futures_util::future::join_all;
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::common::app::{json_body, spawn_app};
use crate::common::db::TestBackend;
use crate::tables::{next_move, players, post_action, small_game};

const GAMES: usize = 12;
const ROUNDS: usize = 6;

#[actix_web::test]
async fn actions_on_many_games_at_once_share_commits_and_each_stands_alone() {
    let app = spawn_app(TestBackend::Sqlite).await;
    let mut tables = Vec::new();
    for n in 0..GAMES {
        let table = players(&app, &[&format!("ann{n}"), &format!("bob{n}")]).await;
        let game = small_game(&app, &table).await;
        tables.push((table, game));
    }
    let before = app.scrape().await;
    let mut applied = 0.0;
    for round in 0..ROUNDS {
        let moves = join_all(tables.iter().map(|(t, g)| next_move(&app, t, g))).await;
        // In every other round the first game's action comes at a stale version: refused,
        // while the others' actions in the same commits stand.
        let bodies: Vec<Value> = moves
            .iter()
            .enumerate()
            .map(|(n, (_, body))| {
                let mut body = body.clone();
                if n == 0 && round % 2 == 1 {
                    body["version"] = json!(0);
                }
                body
            })
            .collect();
        let posts = tables
            .iter()
            .zip(&moves)
            .zip(&bodies)
            .map(|(((t, g), (who, _)), body)| post_action(&app, &t[*who], g, body));
        for (n, res) in join_all(posts).await.into_iter().enumerate() {
            if n == 0 && round % 2 == 1 {
                assert_eq!(res.status(), StatusCode::CONFLICT);
            } else {
                json_body(res, StatusCode::OK).await;
                applied += 1.0;
            }
        }
    }
    for (table, game) in &tables {
        let res = app
            .get(
                &format!("/v1/games/{game}/events?limit=500"),
                table[0].token(),
            )
            .await;
        let page = json_body(res, StatusCode::OK).await;
        let seqs: Vec<i64> = page["events"]
            .as_array()
            .expect("events")
            .iter()
            .map(|e| e["seq"].as_i64().expect("a seq"))
            .collect();
        assert_eq!(seqs, (1..=seqs.len() as i64).collect::<Vec<_>>(), "{game}");
    }
    let after = app.scrape().await;
    let writes = after.rise(&before, "racko_db_writes_total");
    let commits = after.rise(&before, "racko_db_commits_total");
    eprintln!("{applied} actions: {writes} writes in {commits} commits");
    assert!(writes >= applied, "{writes} writes for {applied} actions");
    assert!(
        commits >= 1.0 && commits <= writes,
        "{commits} commits for {writes} writes"
    );
}
