//! A complete stacked game played over HTTP: after every change, each viewer's replay at the
//! live seq equals his live view; nobody sees hidden cards through replay or export before
//! R8.2 allows; after the game both are complete and the export verifies.

use racko_rules::Card;
use reqwest::StatusCode;
use serde_json::{json, Value};

use super::{account, act, admin, deck, get, last_seq, stacked_game, Who};
use crate::common::app::{assert_problem, TestApp};
use crate::common::json::{assert_withheld, field};

fn n(value: u16) -> Card {
    Card::Number { value }
}

/// Round 1 (dealer 0, start seat 1) exercises a take, a skip, a discard, a card swap, a rack
/// swap, a placed draw and a Racko call; round 2 a card swap that names a joker (void) and the
/// end of the game (target 100).
pub fn decks() -> Vec<racko_rules::StackedDeck> {
    let ann1 = [1, 5, 9, 13, 17, 21, 25, 29, 33, 37, 41, 4];
    let bob1 = [2, 6, 10, 14, 18, 22, 26, 30, 34, 38, 42, 3];
    let top1 = [
        n(47),
        Card::Skip,
        n(48),
        Card::CardSwap,
        Card::RackSwap,
        n(49),
    ];
    let ann2 = [1, 5, 9, 13, 17, 21, 25, 29, 33, 37, 41, 45];
    let bob2 = [2, 6, 3, 14, 18, 22, 26, 30, 34, 38, 42, 47];
    let top2 = [n(10), n(46), Card::Joker, Card::CardSwap, n(48)];
    vec![deck([ann1, bob1], 1, &top1), deck([ann2, bob2], 0, &top2)]
}

/// (seq, viewer index, the live table) of every check, for the checks after the game.
type Seen = Vec<(i64, usize, Value)>;

/// Each viewer's live view equals its replay at the live seq.
async fn compare(app: &TestApp, viewers: &[&Who], id: &str, seen: &mut Seen) {
    let seq = last_seq(app, viewers[0], id).await;
    for (i, who) in viewers.iter().enumerate() {
        let live = get(app, who, &format!("/v1/games/{id}")).await;
        let replay = get(app, who, &format!("/v1/games/{id}/replay?seq={seq}")).await;
        assert_eq!(replay["as_of_seq"], seq, "{}: {replay}", who.name);
        let table = field(&live, "table");
        assert_eq!(field(&replay, "table"), table, "{} at seq {seq}", who.name);
        seen.push((seq, i, table.clone()));
    }
}

/// During the game: at every seq, a player's replay shows only his own rack and a spectator's
/// no rack; no replay holds every rack.
async fn sweep_hidden(app: &TestApp, viewers: &[&Who], id: &str) {
    let last = last_seq(app, viewers[0], id).await;
    for seq in 0..=last {
        for (i, who) in viewers.iter().enumerate() {
            let r = get(app, who, &format!("/v1/games/{id}/replay?seq={seq}")).await;
            let table = field(&r, "table");
            assert!(r["as_of_seq"].as_i64().is_some_and(|s| s <= seq), "{r}");
            let why = format!("{} sees every rack at {seq}", who.name);
            assert_withheld(table, "racks", &why);
            if i == 2 {
                assert_withheld(
                    table,
                    "rack",
                    &format!("the spectator sees a rack at {seq}"),
                );
                assert_eq!(table["viewer"], json!({"type": "spectator"}));
            } else {
                assert_eq!(table["viewer"], json!({"type": "seat", "seat": i}));
            }
            let on_turn = table["turn"].as_u64() == Some(i as u64);
            let drawn = field(table, "drawn");
            let event_card = drawn["kind"]
                .as_str()
                .is_some_and(|k| k != "number" && k != "joker");
            assert!(
                drawn.is_null() || on_turn || event_card,
                "{} sees a drawn card",
                who.name
            );
        }
    }
}

/// A projected export for viewer `seat` (None: spectator) during round 2 hides what R8 hides.
fn assert_export_hides(doc: &Value, seat: Option<usize>) {
    assert_eq!(doc["complete"], false);
    assert_withheld(doc, "result", "the game goes on");
    assert_withheld(doc, "rounds.1.seed", "round 2's seed is not revealed");
    let seed = field(doc, "rounds.0.seed");
    assert!(
        seed.as_str().is_some_and(|s| s.len() == 64),
        "round 1's seed is revealed: {seed}"
    );
    let events = doc["events"].as_array().expect("events");
    // A void card swap is a fact only for the two seats in it (R8): a bystander sees a swap.
    let voids = events
        .iter()
        .filter(|e| e["kind"] == "card_swap_void")
        .count();
    assert_eq!(voids, usize::from(seat.is_some()), "void card swaps seen");
    for e in events {
        let (event, round) = (&e["event"], e["round"].as_u64());
        assert_eq!(
            e["kind"], event["type"],
            "the kind is the projected event's"
        );
        let mine = |s: &Value| seat.is_some_and(|me| s.as_u64() == Some(me as u64));
        match (event["type"].as_str(), round) {
            (Some("dealt"), Some(1)) => {
                let racks = field(event, "racks").as_array().expect("racks");
                assert_eq!(racks.len(), 2, "{event}");
                assert!(racks.iter().all(|r| r.is_array()), "{event}");
            }
            (Some("dealt"), Some(2)) => {
                let racks = field(event, "racks").as_array().expect("racks");
                assert_eq!(racks.len(), 2, "{event}");
                for (s, rack) in racks.iter().enumerate() {
                    assert_eq!(
                        rack.is_null(),
                        seat != Some(s),
                        "dealt rack of seat {s}: {event}"
                    );
                }
            }
            (Some("round_started"), Some(2)) => {
                assert_withheld(event, "seed", "R9.2: round 2's seed");
                assert_withheld(event, "stacked", "R9.2: round 2's deck");
            }
            (Some("drew" | "drawn_placed"), Some(2)) if !mine(&event["seat"]) => {
                let card = field(event, "card");
                let event_card = card["kind"]
                    .as_str()
                    .is_some_and(|k| k != "number" && k != "joker");
                assert!(
                    card.is_null() || event_card,
                    "another's card is visible: {event}"
                );
            }
            _ => {}
        }
    }
}

both_stores! {
    async fn replay_and_export_follow_the_live_game(app: TestApp) {
        let (ann, bob, carl) = (
            account(&app, "ann").await,
            account(&app, "bob").await,
            account(&app, "carl").await,
        );
        let id = stacked_game(&app, &ann, &bob, 100, &decks()).await;
        let viewers = [&ann, &bob, &carl];
        let mut seen = Seen::new();
        compare(&app, &viewers, &id, &mut seen).await;
        let round1 = [
            (&bob, json!({"type": "take_discard", "slot": 60})),
            (&ann, json!({"type": "draw"})),
            (&bob, json!({"type": "draw"})),
            (&bob, json!({"type": "discard_drawn"})),
            (&ann, json!({"type": "draw"})),
            (&ann, json!({"type": "swap_card", "with": 1, "their_slot": 60, "my_slot": 60})),
            (&bob, json!({"type": "draw"})),
            (&bob, json!({"type": "swap_racks", "with": 0})),
            (&ann, json!({"type": "draw"})),
            (&ann, json!({"type": "place_drawn", "slot": 60})),
            (&bob, json!({"type": "call_racko"})),
        ];
        for (who, action) in round1 {
            act(&app, who, &id, action).await;
            compare(&app, &viewers, &id, &mut seen).await;
        }
        sweep_hidden(&app, &viewers, &id).await;
        let round2 = [
            (&ann, json!({"type": "draw"})),
            (&ann, json!({"type": "place_drawn", "slot": 60})),
            (&bob, json!({"type": "draw"})),
            (&bob, json!({"type": "place_drawn", "slot": 5})),
            (&ann, json!({"type": "draw"})),
            (&ann, json!({"type": "swap_card", "with": 1, "their_slot": 5, "my_slot": 5})),
            (&bob, json!({"type": "draw"})),
            (&bob, json!({"type": "discard_drawn"})),
        ];
        for (who, action) in round2 {
            act(&app, who, &id, action).await;
            compare(&app, &viewers, &id, &mut seen).await;
        }
        sweep_hidden(&app, &viewers, &id).await;
        // An admin's filters and cursors work on what he may see (R8): while round 2 is open
        // the void swap is a card swap to him, and no page or cursor tells otherwise.
        let root = admin(&app, "root").await;
        let kind_page = |kind: &str, limit: u32| {
            format!("/v1/admin/events?game={id}&kind={kind}&limit={limit}")
        };
        for limit in [1, 100] {
            let voids = get(&app, &root, &kind_page("card_swap_void", limit)).await;
            assert_eq!(field(&voids, "events"), &json!([]), "limit {limit}");
            assert_withheld(&voids, "next_cursor", "no cursor past a hidden event");
        }
        let swaps = get(&app, &root, &kind_page("cards_swapped", 100)).await;
        assert_eq!(swaps["events"].as_array().map(Vec::len), Some(2), "{swaps}");
        let first = get(&app, &root, &kind_page("cards_swapped", 1)).await;
        let cursor = field(&first, "next_cursor").as_str().expect("a second swap follows");
        let second = get(&app, &root, &format!("{}&cursor={cursor}", kind_page("cards_swapped", 1))).await;
        assert_eq!(second["events"][0]["kind"], "cards_swapped");
        assert_withheld(&second, "next_cursor", "the last card swap");
        for (seat, who) in [(Some(0), &ann), (Some(1), &bob), (None, &carl)] {
            let doc = get(&app, who, &format!("/v1/games/{id}/export")).await;
            assert_export_hides(&doc, seat);
            // The event log labels each entry by its projection too (R8).
            let log = get(&app, who, &format!("/v1/games/{id}/events?after=0&limit=500")).await;
            let entries = log["events"].as_array().expect("events");
            let voids = entries.iter().filter(|e| e["kind"] == "card_swap_void").count();
            assert_eq!(voids, usize::from(seat.is_some()), "void card swaps in the log");
            for e in entries {
                assert_eq!(e["kind"], e["event"]["type"], "the kind is the projected event's");
            }
        }
        let res = app.get(&format!("/v1/games/{id}/verify"), Some(&ann.token)).await;
        assert_problem(res, StatusCode::CONFLICT, "game_not_finished").await;

        let end = act(&app, &ann, &id, json!({"type": "call_racko"})).await;
        assert_eq!(end["view"]["status"], "finished");
        assert_eq!(end["view"]["table"]["winners"], json!([0]));
        compare(&app, &viewers, &id, &mut seen).await;
        after_the_game(&app, &viewers, &id, &seen).await;
        // A finished game is public (R8.2): now the admin finds the void swap as it was.
        let voids = get(&app, &root, &kind_page("card_swap_void", 100)).await;
        assert_eq!(voids["events"].as_array().map(Vec::len), Some(1), "{voids}");
        let swaps = get(&app, &root, &kind_page("cards_swapped", 100)).await;
        assert_eq!(swaps["events"].as_array().map(Vec::len), Some(1), "{swaps}");
    }
}

/// After the game: every replay is complete and agrees with what each viewer saw live; the
/// export is complete and verifies, here and through the endpoint.
async fn after_the_game(app: &TestApp, viewers: &[&Who], id: &str, seen: &Seen) {
    for (seq, viewer, live) in seen {
        let r = get(app, viewers[0], &format!("/v1/games/{id}/replay?seq={seq}")).await;
        let full = field(&r, "table");
        assert_eq!(full["viewer"], json!({"type": "everyone"}));
        for name in [
            "phase",
            "round",
            "discard",
            "stock_size",
            "totals",
            "last_round",
        ] {
            assert_eq!(field(full, name), field(live, name), "{name} at seq {seq}");
        }
        let rack = field(live, "rack");
        if *viewer < 2 && !rack.is_null() {
            assert_eq!(
                field(full, &format!("racks.{viewer}")),
                rack,
                "seat {viewer}'s rack at {seq}"
            );
        }
    }
    let text = app
        .get(&format!("/v1/games/{id}/export"), Some(&viewers[2].token))
        .await
        .text()
        .await
        .expect("export body");
    let doc = racko::service::audit::verify::parse(&text).expect("the export parses");
    assert!(doc.complete);
    assert_eq!(doc.rounds.len(), 2);
    assert!(doc.rounds.iter().all(|r| r.seed.is_some() && r.stacked));
    let report = racko::service::audit::verify::verify(&doc).expect("the export verifies");
    assert_eq!((report.rounds, report.commitments, report.decks), (2, 2, 2));
    assert_eq!(report.winners, vec![0]);
    let checked = get(app, viewers[1], &format!("/v1/games/{id}/verify")).await;
    assert_eq!(checked["verified"], true, "{checked}");
    assert_eq!(checked["report"]["actions"], report.actions);
}
