//! Pushes do not stall each other: one account's 32 devices whose push service holds every
//! message unanswered (until the sender's timeout), and a device whose every push fails and is
//! retried, do not delay another account's push beyond a second; and no device ever has more
//! than one push in flight.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::common::db::TestBackend;
use crate::peer_fcm::FcmPeer;
use crate::push::{push_app, register, PATIENCE};
use crate::tables::{players, small_game, Player};

const DEVICES: usize = 32;

/// The table of a game of `a` and `b` (`a` creates it).
fn pair(a: &Player, b: &Player) -> [Player; 2] {
    let copy = |p: &Player| Player {
        name: p.name.clone(),
        token: p.token.clone(),
    };
    [copy(a), copy(b)]
}

async fn run(backend: TestBackend) {
    let peer = FcmPeer::start();
    let Some(app) = push_app(backend, None, Some(&peer)).await else {
        return;
    };
    let table = players(&app, &["sam", "ann", "bob", "fay"]).await;
    let (sam, ann, bob, fay) = (&table[0], &table[1], &table[2], &table[3]);
    let every = json!([
        "your_turn",
        "deadline_near",
        "game_finished",
        "game_started",
        "game_cancelled",
        "player_joined",
        "invited"
    ]);
    for i in 0..DEVICES {
        let token = format!("slow-{i}");
        peer.slow(&token, true);
        register(
            &app,
            sam,
            json!({ "fcm": { "token": token }, "kinds": every }),
        )
        .await;
    }
    peer.fail("fail-0");
    register(
        &app,
        fay,
        json!({ "fcm": { "token": "fail-0" }, "kinds": every }),
    )
    .await;
    register(&app, bob, json!({ "fcm": { "token": "bob-phone" } })).await;

    // sam's games: several pushes to each of his devices, more than a process sends at once.
    let (sam_and_ann, fay_and_ann) = (pair(sam, ann), pair(fay, ann));
    for _ in 0..3 {
        small_game(&app, &sam_and_ann).await;
    }
    small_game(&app, &fay_and_ann).await;
    peer.wait_for(PATIENCE, |sent| {
        let held = sent.iter().filter(|s| s.answered == 0).count();
        let failed = sent.iter().filter(|s| s.answered == 500).count();
        held >= DEVICES && failed >= 2
    })
    .await;

    // Every slow device has a message held (and more waiting), fay's keep failing: bob's
    // turn still goes out at once.
    let started = Instant::now();
    small_game(&app, &pair(ann, bob)).await;
    let bobs = |sent: &[crate::peer_fcm::Sent]| {
        sent.iter()
            .any(|s| s.answered == 200 && s.message["message"]["token"] == "bob-phone")
    };
    peer.wait_for(PATIENCE, bobs).await;
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(1),
        "bob's push waited {took:?} behind sam's and fay's"
    );
    assert_eq!(peer.most_held_at_once(), 1, "one push in flight per device");
    for i in 0..DEVICES {
        peer.slow(&format!("slow-{i}"), false);
    }
}

#[actix_web::test]
async fn a_slow_account_and_a_failing_device_do_not_hold_up_others_postgres() {
    run(TestBackend::Postgres).await
}

#[actix_web::test]
async fn a_slow_account_and_a_failing_device_do_not_hold_up_others_sqlite() {
    run(TestBackend::Sqlite).await
}
