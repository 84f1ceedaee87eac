//! A read replica that lags on purpose (`recovery_min_apply_delay`). Replays, exports,
//! verifications, event pages of finished games and the admin audit queries never miss the
//! caller's own writes: while the replica lacks them they are read on the primary, and once it
//! has them they are read there. `/metrics` says where the reads went and how far it lags.

use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::common::app::TEST_PASSWORD;
use crate::common::db::{enabled, TestBackend};
use crate::common::process::ServeProcess;
use crate::common::replicated::Replicated;
use crate::play::Run;

/// How long the replica holds each commit before applying it.
const DELAY: Duration = Duration::from_secs(3);

impl Run {
    async fn get_ok(&self, path: &str, token: &str) -> Value {
        let url = format!("{}{path}", self.url);
        let (status, body) = self.send(|| self.client.get(&url).bearer_auth(token)).await;
        assert_eq!(status, StatusCode::OK, "{path}: {body}");
        body
    }

    /// `racko_db_replica_reads_total{target}` now.
    async fn reads_to(&self, target: &str) -> u64 {
        let text = self
            .client
            .get(format!("{}/metrics", self.url))
            .send()
            .await
            .expect("metrics")
            .text()
            .await
            .expect("text");
        let series = format!("racko_db_replica_reads_total{{target=\"{target}\"}} ");
        text.lines()
            .find_map(|line| line.strip_prefix(&series))
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or_else(|| panic!("no {series} in\n{text}"))
    }
}

fn last_seq(events: &Value) -> i64 {
    events
        .as_array()
        .and_then(|events| events.iter().filter_map(|e| e["seq"].as_i64()).max())
        .unwrap_or_default()
}

/// Every read a replica may answer, right after the caller's last write: each must show it.
async fn reads_show(run: &Run, id: &str, token: &str, admin: &str, seq: i64) {
    let export = run.get_ok(&format!("/v1/games/{id}/export"), token).await;
    assert_eq!(export["status"], "finished", "R6: the game ended: {export}");
    assert_eq!(
        last_seq(&export["events"]),
        seq,
        "the export has the last action"
    );
    let verified = run.get_ok(&format!("/v1/games/{id}/verify"), token).await;
    assert_eq!(verified["verified"], true, "{verified}");
    let replay = run
        .get_ok(&format!("/v1/games/{id}/replay?seq={seq}"), token)
        .await;
    assert_eq!(replay["last_seq"].as_i64(), Some(seq), "{replay}");
    let after = seq - 1;
    let page = run
        .get_ok(&format!("/v1/games/{id}/events?after={after}"), token)
        .await;
    assert_eq!(last_seq(&page["events"]), seq, "the events page has it");
    let audit = run
        .get_ok(&format!("/v1/admin/events?game={id}&limit=500"), admin)
        .await;
    assert_eq!(last_seq(&audit["events"]), seq, "the audit query has it");
}

#[actix_web::test]
async fn a_lagging_replica_never_hides_the_callers_own_writes() {
    if !enabled(TestBackend::Postgres) {
        eprintln!("skipped: PostgreSQL is not in RACKO_TEST_BACKENDS");
        return;
    }
    let pair = Replicated::delayed(DELAY);
    let replica_url = pair.standby.url();
    // A generous lag bound: what keeps the caller's writes visible here is the catch-up
    // check, not the bound.
    let server = ServeProcess::start(
        &pair.primary.url(),
        &[
            ("RACKO_READ_DATABASE_URL", replica_url.as_str()),
            ("RACKO_READ_MAX_LAG_MS", "600000"),
        ],
    );
    let run = Run::new(&server.url);
    let ann = run.register("ann").await;
    let bob = run.register("bob").await;
    let store = racko::store::Store::open(&pair.primary.url(), 1).expect("the store");
    let username = racko::service::accounts::Username::parse("root").expect("a username");
    let password =
        racko::service::accounts::Password::parse(TEST_PASSWORD.into()).expect("a password");
    racko::service::accounts::register(&store, username, password, racko::store::Role::Admin)
        .await
        .expect("an admin");
    let url = format!("{}/v1/sessions", run.url);
    let body = json!({ "username": "root", "password": TEST_PASSWORD });
    let (status, signed_in) = run.send(|| run.client.post(&url).json(&body)).await;
    assert_eq!(status, StatusCode::OK, "{signed_in}");
    let admin = signed_in["token"].as_str().expect("a token").to_string();

    let id = run.table(&ann, &bob).await;
    let acked = run.play(&id, [&ann, &bob]).await;
    let seq = acked
        .iter()
        .map(|a| last_seq(&Value::Array(a.events.clone())))
        .max()
        .expect("actions");

    // At once: the replica holds the end of the game back for DELAY, so every read goes to
    // the primary and shows it.
    let started = Instant::now();
    reads_show(&run, &id, &ann, &admin, seq).await;
    assert!(
        started.elapsed() < DELAY,
        "the reads came before the replica had the end"
    );
    assert_eq!(
        run.reads_to("replica").await,
        0,
        "nothing read on the lagging replica"
    );
    assert!(run.reads_to("primary").await >= 5);

    // Once the replica has applied the game, the same reads go there and show the same.
    let deadline = Instant::now() + Duration::from_secs(30);
    let applied = format!("SELECT last_seq FROM games WHERE id = '{id}'");
    while pair.standby.try_query(&applied) != Ok(seq.to_string()) {
        assert!(
            Instant::now() < deadline,
            "the replica never applied the game"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    reads_show(&run, &id, &ann, &admin, seq).await;
    assert!(
        run.reads_to("replica").await >= 4,
        "the game's reads went to the replica once it had the game"
    );
    let text = run
        .client
        .get(format!("{}/metrics", run.url))
        .send()
        .await
        .expect("metrics")
        .text()
        .await
        .expect("text");
    assert!(text.contains("racko_db_replica_lag_seconds"), "{text}");
}
