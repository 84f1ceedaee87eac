//! Replay and verification of a ~2,000-event game (R9.2 audits).
//!
//! `cargo bench --bench audit` prints the game's size, then criterion's timings of
//! `replay::replay` over its full log and of `verify` over its export (parsed once, and from
//! the JSON text). The time the same kind of game takes through the HTTP API is measured by
//! `cargo run --release --example audit_timing` (see docs/audit.md for both figures).

use criterion::{criterion_group, criterion_main, Criterion};
use racko::service::audit::verify;
use racko_rules::{replay::replay, Options};
use racko_sample as sample;

/// Three players to 700 points: about 2,000 events with the sample player.
pub fn options() -> Options {
    Options {
        players: 3,
        target: 700,
        ..Options::default()
    }
}

fn bench(c: &mut Criterion) {
    let options = options();
    let events = sample::play(&options, 1, 100_000).expect("the sample game plays");
    let start = chrono::DateTime::from_timestamp(1_700_000_000, 0).expect("a time");
    let names = ["ann", "bob", "cat"];
    let doc = sample::export(uuid::Uuid::nil(), &options, &names, events.clone(), start);
    let text = serde_json::to_string(&doc).expect("json");
    let report = verify::verify(&doc).expect("the sample game verifies");
    println!(
        "sample game: {} events ({} rules events, {} actions, {} rounds), export {} KiB",
        report.events,
        events.len(),
        report.actions,
        report.rounds,
        text.len() / 1024
    );
    c.bench_function("replay a ~2,000-event game", |b| {
        b.iter(|| replay(&options, &events).expect("replays"))
    });
    c.bench_function("verify its export", |b| {
        b.iter(|| verify::verify(&doc).expect("verifies"))
    });
    c.bench_function("parse and verify its export (JSON text)", |b| {
        b.iter(|| {
            verify::parse(&text)
                .and_then(|d| verify::verify(&d))
                .expect("verifies")
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
