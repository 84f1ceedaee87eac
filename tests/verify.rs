//! Export → verify round trips and tampering, on games played by the rules alone (no server),
//! and the `racko verify` command's exit codes.

use racko::service::audit::export::GameExport;
use racko::service::audit::verify::{parse, verify, VerifyError};
use racko_rules::Options;
use racko_sample as sample;
use serde_json::Value;

fn options() -> Options {
    Options {
        target: 200,
        ..Options::default()
    }
}

fn finished_export() -> GameExport {
    let options = options();
    let events = sample::play(&options, 7, 5_000).expect("the sample game plays");
    let start = chrono::DateTime::from_timestamp(1_700_000_000, 0).expect("a time");
    let doc = sample::export(uuid::Uuid::nil(), &options, &["ann", "bob"], events, start);
    assert!(doc.complete, "the sample game ends");
    doc
}

fn as_json(doc: &GameExport) -> Value {
    serde_json::to_value(doc).expect("serializes")
}

/// Verifies the JSON `doc` as a file would be.
fn check(doc: &Value) -> Result<racko::service::audit::verify::VerifyReport, VerifyError> {
    parse(&doc.to_string()).and_then(|d| verify(&d))
}

fn discrepancy(doc: &Value) -> String {
    match check(doc) {
        Err(VerifyError::Discrepancy(m)) => m,
        other => panic!("expected a discrepancy, got {other:?}"),
    }
}

fn unusable(doc: &Value) -> String {
    match check(doc) {
        Err(VerifyError::Unusable(m)) => m,
        other => panic!("expected an unusable document, got {other:?}"),
    }
}

/// The index in `events` of the `n`-th (0-based) event of `kind`.
fn nth(doc: &Value, kind: &str, n: usize) -> usize {
    let events = doc["events"].as_array().expect("events");
    events
        .iter()
        .enumerate()
        .filter(|(_, e)| e["kind"] == kind)
        .nth(n)
        .map(|(i, _)| i)
        .unwrap_or_else(|| panic!("no {kind} #{n}"))
}

#[test]
fn a_finished_game_round_trips_and_verifies() {
    let doc = finished_export();
    let rounds = doc.rounds.len();
    assert!(rounds >= 2, "the sample game has several rounds");
    let report = check(&as_json(&doc)).expect("verifies");
    assert_eq!(report.rounds, rounds);
    assert_eq!(report.commitments, rounds);
    assert_eq!(report.decks, rounds);
    assert_eq!(report.events, doc.events.len());
    assert!(report.actions > 50);
    assert_eq!(Some(&report.totals), doc.result.as_ref().map(|r| &r.totals));
    let printed = report.to_string();
    assert!(printed.contains("commitments"), "{printed}");
}

#[test]
fn a_changed_seed_fails_its_commitment() {
    let mut doc = as_json(&finished_export());
    let i = nth(&doc, "round_started", 1);
    doc["events"][i]["event"]["seed"] = Value::String("00".repeat(32));
    assert_eq!(
        discrepancy(&doc),
        "round 2: seed does not match its commitment"
    );
}

#[test]
fn a_changed_seed_and_commitment_fail_the_deal() {
    let mut doc = as_json(&finished_export());
    let i = nth(&doc, "round_started", 1);
    let seed = racko_rules::Seed([9; 32]);
    doc["events"][i]["event"]["seed"] = Value::String(seed.to_hex());
    doc["events"][i]["event"]["seed_commitment"] = Value::String(seed.commitment());
    let message = discrepancy(&doc);
    assert!(
        message.starts_with("round 2: seat ") && message.contains("does not match the seed's deck"),
        "{message}"
    );
}

#[test]
fn a_changed_card_is_named() {
    let mut doc = as_json(&finished_export());
    let events = doc["events"].as_array().expect("events").clone();
    let i = events
        .iter()
        .position(|e| e["kind"] == "drew" && e["event"]["card"]["kind"] == "number")
        .expect("a drawn number");
    let value = events[i]["event"]["card"]["value"].as_u64().expect("value");
    let other = if value == 1 { 2 } else { value - 1 };
    doc["events"][i]["event"]["card"]["value"] = Value::from(other);
    let seq = &events[i]["seq"];
    assert_eq!(
        discrepancy(&doc),
        format!("event seq {seq} (drew): recorded card {other}, rules give {value}")
    );
}

#[test]
fn a_changed_slot_is_named() {
    let mut doc = as_json(&finished_export());
    let i = nth(&doc, "drawn_placed", 3);
    let slot = doc["events"][i]["event"]["slot"].as_u64().expect("slot");
    let other = if slot == 60 { 55 } else { slot + 5 };
    doc["events"][i]["event"]["slot"] = Value::from(other);
    let seq = &doc["events"][i]["seq"];
    assert_eq!(
        discrepancy(&doc),
        format!("event seq {seq} (drawn_placed): recorded slot {other}, rules give {slot}")
    );
    // An impossible slot is refused by the rules, by name.
    doc["events"][i]["event"]["slot"] = Value::from(65);
    let message = discrepancy(&doc);
    assert!(message.contains("slot_out_of_range"), "{message}");
}

#[test]
fn a_changed_score_is_named() {
    let mut doc = as_json(&finished_export());
    let i = nth(&doc, "round_ended", 0);
    let score = doc["events"][i]["event"]["scores"][1]
        .as_u64()
        .expect("score");
    doc["events"][i]["event"]["scores"][1] = Value::from(score + 5);
    let seq = &doc["events"][i]["seq"];
    assert_eq!(
        discrepancy(&doc),
        format!(
            "event seq {seq} (round_ended): recorded scores[1] {}, rules give {score}",
            score + 5
        )
    );
}

#[test]
fn changed_totals_and_winners_are_named() {
    let mut doc = as_json(&finished_export());
    let total = doc["result"]["totals"][0].as_u64().expect("total");
    doc["result"]["totals"][0] = Value::from(total + 1);
    assert_eq!(
        discrepancy(&doc),
        format!(
            "result: recorded totals[0] {}, rules give {total}",
            total + 1
        )
    );
}

#[test]
fn a_changed_event_order_is_named() {
    let doc = as_json(&finished_export());
    let i = nth(&doc, "drew", 2);
    // Seqs swapped with their events: the seqs are out of order.
    let mut swapped = doc.clone();
    let events = swapped["events"].as_array_mut().expect("events");
    events.swap(i, i + 1);
    let (a, b) = (events[i]["seq"].clone(), events[i + 1]["seq"].clone());
    assert_eq!(
        discrepancy(&swapped),
        format!("event seq {b} comes after seq {a}: the log is out of order")
    );
    // Events swapped under their seqs: the rules see another order of play.
    let events = swapped["events"].as_array_mut().expect("events");
    events[i]["seq"] = b.clone();
    events[i + 1]["seq"] = a;
    let message = discrepancy(&swapped);
    assert!(
        message.starts_with(&format!("event seq {b} (")),
        "{message}"
    );
    // A gap.
    let mut gap = doc.clone();
    gap["events"].as_array_mut().expect("events").remove(i);
    assert!(discrepancy(&gap).starts_with("the log has a gap"));
}

#[test]
fn unknown_versions_and_malformed_files_cannot_be_verified() {
    let doc = as_json(&finished_export());
    let mut other = doc.clone();
    other["rules_version"] = Value::from(99);
    assert_eq!(
        unusable(&other),
        format!(
            "unknown rules version 99 (this verifier knows rules versions {:?})",
            racko_rules::SHIPPED_RULES_VERSIONS
        )
    );
    let mut other = doc.clone();
    other["format_version"] = Value::from(2);
    assert!(unusable(&other).starts_with("unknown format_version 2"));
    let mut other = doc.clone();
    other["complete"] = Value::Bool(false);
    assert!(unusable(&other).starts_with("the export is not complete"));
    let mut other = doc.clone();
    other["events"][3]["event"]["type"] = Value::from("no_such_event");
    assert!(unusable(&other).starts_with("not a valid export"));
    assert!(matches!(parse("{not json"), Err(VerifyError::Unusable(_))));
    assert!(matches!(parse("[]"), Err(VerifyError::Unusable(_))));
}

/// `racko verify FILE`: 0 verified, 1 a discrepancy, 2 a file that cannot be verified.
#[test]
fn the_verify_command_exits_by_outcome() {
    let dir = std::env::temp_dir().join(format!("racko-verify-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let doc = as_json(&finished_export());
    let mut tampered = doc.clone();
    let i = nth(&tampered, "round_started", 0);
    tampered["events"][i]["event"]["seed"] = Value::String("11".repeat(32));
    let cases = [
        ("good.json", doc.to_string(), 0, "verified game"),
        (
            "tampered.json",
            tampered.to_string(),
            1,
            "round 1: seed does not match its commitment",
        ),
        ("broken.json", "{".to_string(), 2, "the file is not JSON"),
    ];
    for (name, text, code, says) in cases {
        let path = dir.join(name);
        std::fs::write(&path, text).expect("write");
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_racko"))
            .arg("verify")
            .arg(&path)
            .output()
            .expect("racko runs");
        let printed = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(out.status.code(), Some(code), "{name}: {printed}");
        assert!(printed.contains(says), "{name}: {printed}");
    }
    let missing = std::process::Command::new(env!("CARGO_BIN_EXE_racko"))
        .args(["verify", "/no/such/file.json"])
        .output()
        .expect("racko runs");
    assert_eq!(missing.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The stored game of rules version `version`: an export of a game played under it, kept as
/// that version's build wrote it.
fn fixture(version: u32) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(format!("rules-v{version}.json"))
}

/// A game of the current version, for its fixture: a deck without rack swaps, so that a count
/// left out of what is stored (as a count added later is) can be tried on it.
fn game_of_this_version() -> GameExport {
    // Every count is named today; a count added later comes from `NONE` (0) with no edit here.
    #[allow(clippy::needless_update)]
    let options = Options {
        target: 100,
        deck: Some(racko_rules::DeckCounts {
            max_number: 50,
            jokers: 5,
            card_swaps: 3,
            skips: 3,
            rack_swaps: 0,
            ..racko_rules::DeckCounts::NONE
        }),
        ..Options::default()
    };
    let events = sample::play(&options, 11, 5_000).expect("the sample game plays");
    let start = chrono::DateTime::from_timestamp(1_700_000_000, 0).expect("a time");
    sample::export(uuid::Uuid::nil(), &options, &["ann", "bob"], events, start)
}

/// Every rules version this build shipped still verifies: a game stored under it replays
/// exactly as it was played. `RACKO_BLESS=1` writes the fixture of the current version once,
/// when a new version has none yet; an existing fixture is never rewritten.
#[test]
fn a_game_of_every_shipped_rules_version_still_verifies() {
    let current = racko_rules::RULES_VERSION;
    assert_eq!(racko_rules::SHIPPED_RULES_VERSIONS.last(), Some(&current));
    let path = fixture(current);
    if !path.exists() && std::env::var_os("RACKO_BLESS").is_some() {
        let doc = game_of_this_version();
        assert!(doc.complete, "the fixture's game ends");
        let text = serde_json::to_string(&doc).expect("serializes") + "\n";
        std::fs::write(&path, text).expect("the fixture is written");
    }
    for version in racko_rules::SHIPPED_RULES_VERSIONS {
        let path = fixture(*version);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "{}: {e} (RACKO_BLESS=1 writes the current version's)",
                path.display()
            )
        });
        let doc: Value = serde_json::from_str(&text).expect("the fixture is JSON");
        assert_eq!(doc["rules_version"], *version, "{}", path.display());
        let report = check(&doc).unwrap_or_else(|e| panic!("rules version {version}: {e:?}"));
        assert!(report.rounds >= 1 && report.actions > 20, "{report}");
    }
}

/// A count of the deck missing from what was stored (as every count added later will be from
/// older games) reads as none of that card, and the game still verifies.
#[test]
fn a_stored_deck_without_a_later_count_still_verifies() {
    let text = std::fs::read_to_string(fixture(1)).expect("the rules version 1 fixture");
    assert!(
        text.contains(r#","rack_swaps":0"#),
        "the fixture's deck has no rack swaps"
    );
    let older = text.replace(r#","rack_swaps":0"#, "");
    let doc: Value = serde_json::from_str(&older).expect("still JSON");
    assert!(doc["options"]["deck"].get("rack_swaps").is_none());
    check(&doc).expect("verifies without the count");
}
