//! The seek pool's housekeeping sweep, over real HTTP on each store.

use reqwest::Method;
use serde_json::json;

use crate::common::app::{spawn_app_with, TestApp};
use crate::seeks::{feed_kinds, seek, seek_of, two_player};

both_stores!(seeks_kept_apart_by_a_lifted_block_are_paired_by_the_sweep);

/// A seek pairs when it is made; seeks that became compatible later (a block lifted) are
/// paired by the housekeeping sweep.
async fn seeks_kept_apart_by_a_lifted_block_are_paired_by_the_sweep(app: TestApp) {
    let app = spawn_app_with(app.backend, |config| {
        config.housekeeping_every = std::time::Duration::from_millis(100);
    })
    .await;
    let (ann, _) = app.register("sweep_ann").await;
    let (bob, _) = app.register("sweep_bob").await;
    let res = app
        .post_json(
            "/v1/me/blocks",
            Some(&ann),
            &json!({ "username": "sweep_bob" }),
        )
        .await;
    assert!(res.status().is_success(), "{}", res.status());
    let a = seek(&app, &ann, &two_player(500)).await;
    let b = seek(&app, &bob, &two_player(500)).await;
    assert_eq!(b["status"], "open", "blocked: kept apart");
    let res = app
        .request(Method::DELETE, "/v1/me/blocks/sweep_bob", Some(&ann))
        .send()
        .await
        .expect("answered");
    assert!(res.status().is_success(), "{}", res.status());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let now = seek_of(&app, &ann, &a["id"]).await;
        if now["status"] == "matched" {
            let theirs = seek_of(&app, &bob, &b["id"]).await;
            assert_eq!(theirs["game_id"], now["game_id"], "paired with each other");
            let kinds = feed_kinds(&app, &bob, &now["game_id"]).await;
            assert!(kinds.contains(&"game_started".to_string()), "{kinds:?}");
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the sweep never paired them: {now}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}
