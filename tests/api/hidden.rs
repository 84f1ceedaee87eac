//! R8: as bob (and as a spectator) in a stacked game, no answer of any endpoint — views,
//! events, event streams, the account feed, lists, action answers, errors — shows a number card of ann's rack or of the stock
//! that the viewer may not see. With a stacked deck every secret value is known at each step.

use std::collections::BTreeSet;

use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::common::app::{json_body, TestApp};
use crate::common::json::assert_withheld;
use crate::tables::{act, number_cards, players, post_action, view, Player};

both_stores!(nobody_sees_another_rack_or_the_stock);

/// Everything `viewer` can ask about game `id`, plus the given action answers.
async fn answers(app: &TestApp, viewer: &Player, id: &str) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for path in [
        format!("/v1/games/{id}"),
        format!("/v1/games/{id}/events?limit=500"),
        "/v1/games?status=active".to_string(),
        "/v1/me/games?filter=all".to_string(),
    ] {
        let res = app.get(&path, viewer.token()).await;
        out.push((path, json_body(res, StatusCode::OK).await));
    }
    // Issue 10: the game's stream (the whole log so far) and the account feed.
    let last = crate::sse::last_seq(app, viewer.token(), id).await;
    let path = format!("/v1/games/{id}/stream");
    let mut stream = crate::sse::Stream::open(app, &path, viewer.token(), None).await;
    let frames = stream.until(last, std::time::Duration::from_secs(10)).await;
    assert_eq!(
        frames.last().map(|f| f.id),
        Some(last),
        "the stream reaches the log's end"
    );
    out.push((
        path,
        Value::Array(frames.into_iter().map(|f| f.data).collect()),
    ));
    let res = app.get("/v1/me/feed?limit=500", viewer.token()).await;
    out.push((
        "/v1/me/feed".to_string(),
        json_body(res, StatusCode::OK).await,
    ));
    // Refusals: a stale version and an illegal (or unauthorized) action.
    for body in [
        json!({ "version": 0, "action": { "type": "draw" } }),
        json!({ "version": view(app, viewer, id).await["version"], "action": { "type": "call_racko" } }),
        json!({ "version": view(app, viewer, id).await["version"], "action": { "type": "place_drawn", "slot": 5 } }),
    ] {
        let res = post_action(app, viewer, id, &body).await;
        let status = res.status();
        assert!(status.is_client_error(), "{status}");
        let text = res.text().await.expect("body");
        out.push((
            format!("refusal {body}"),
            serde_json::from_str(&text).expect("json"),
        ));
    }
    out
}

fn assert_hidden(who: &str, step: &str, answers: &[(String, Value)], secret: &BTreeSet<u64>) {
    for (what, body) in answers {
        let mut seen = Vec::new();
        number_cards(body, &mut seen);
        let leaked: Vec<u64> = seen.into_iter().filter(|v| secret.contains(v)).collect();
        assert!(
            leaked.is_empty(),
            "{who} sees {leaked:?} after {step} in {what}: {body}"
        );
        // No seed is shown while the round is played (R9.2), nor a stacked deck.
        let text = body.to_string();
        assert!(
            !text.contains("\"seed\":\""),
            "{who}: a seed in {what} after {step}"
        );
        assert!(
            !text.contains("\"stacked\":{"),
            "{who}: a deck in {what} after {step}"
        );
    }
}

fn set(values: impl IntoIterator<Item = u64>) -> BTreeSet<u64> {
    values.into_iter().collect()
}

async fn nobody_sees_another_rack_or_the_stock(app: TestApp) {
    let table = players(&app, &["ann", "bob", "cat"]).await;
    let (ann, bob, cat) = (&table[0], &table[1], &table[2]);
    let id = crate::tables::small_game(&app, &table[..2]).await;
    let id = id.as_str();
    // ann: 23 3 5 … 21 1; bob: 24 4 6 … 22 2; start card 25; stock 26, 27, 28, 29, 30, then
    // the joker and the event cards.
    let mut anns: BTreeSet<u64> = set((1..=23).step_by(2));
    let mut bobs: BTreeSet<u64> = set((2..=24).step_by(2));
    let mut stock: BTreeSet<u64> = set(26..=30);

    let check = async |step: &str,
                       anns: &BTreeSet<u64>,
                       bobs: &BTreeSet<u64>,
                       stock: &BTreeSet<u64>,
                       extra: &[Value]| {
        let for_bob: BTreeSet<u64> = anns.union(stock).copied().collect();
        let mut seen_by_bob = answers(&app, bob, id).await;
        seen_by_bob.extend(
            extra
                .iter()
                .map(|v| ("action answer".to_string(), v.clone())),
        );
        assert_hidden("bob", step, &seen_by_bob, &for_bob);
        let for_cat: BTreeSet<u64> = for_bob.union(bobs).copied().collect();
        assert_hidden("cat", step, &answers(&app, cat, id).await, &for_cat);
    };

    check("the deal", &anns, &bobs, &stock, &[]).await;

    // Bob draws 26 and puts it into slot 5: his 24 goes face up.
    let drew = act(&app, bob, id, json!({ "type": "draw" })).await;
    stock.remove(&26);
    bobs.insert(26);
    let placed = act(&app, bob, id, json!({ "type": "place_drawn", "slot": 5 })).await;
    bobs.remove(&24);
    check("bob placed 26", &anns, &bobs, &stock, &[drew, placed]).await;

    // Ann draws 27 (bob must not see it) and puts it into slot 60: her 1 goes face up.
    act(&app, ann, id, json!({ "type": "draw" })).await;
    stock.remove(&27);
    anns.insert(27);
    check("ann drew 27", &anns, &bobs, &stock, &[]).await;
    act(&app, ann, id, json!({ "type": "place_drawn", "slot": 60 })).await;
    anns.remove(&1);
    check("ann placed 27", &anns, &bobs, &stock, &[]).await;

    // Bob draws 28 and discards it; ann takes it into slot 5, showing her 23.
    act(&app, bob, id, json!({ "type": "draw" })).await;
    stock.remove(&28);
    let discarded = act(&app, bob, id, json!({ "type": "discard_drawn" })).await;
    check("bob discarded 28", &anns, &bobs, &stock, &[discarded]).await;
    act(&app, ann, id, json!({ "type": "take_discard", "slot": 5 })).await;
    anns.remove(&23);
    check("ann took 28", &anns, &bobs, &stock, &[]).await;

    // The search finds what is there: ann's own view holds her secret 27, and the values bob
    // holds appear in his view.
    let mut own = Vec::new();
    number_cards(&view(&app, ann, id).await, &mut own);
    assert!(own.contains(&27) && own.contains(&3));
    let mut bob_sees = Vec::new();
    for (_, body) in answers(&app, bob, id).await {
        number_cards(&body, &mut bob_sees);
    }
    for public in [26, 24, 1, 28, 23] {
        assert!(bob_sees.contains(&public), "bob sees {public}");
    }
    // The seed and the deck are there as fields, withheld: the text checks above would miss
    // them under another name.
    for viewer in [bob, cat] {
        let path = format!("/v1/games/{id}/events?limit=500");
        let log = json_body(app.get(&path, viewer.token()).await, StatusCode::OK).await;
        let started = log["events"]
            .as_array()
            .expect("events")
            .iter()
            .find(|e| e["kind"] == "round_started")
            .expect("round_started");
        assert_withheld(started, "event.seed", "R9.2: the open round's seed");
        assert_withheld(started, "event.stacked", "R9.2: the open round's deck");
    }
}
