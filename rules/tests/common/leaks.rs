//! The R8 projection checks. A projection is serialized to JSON and every number card in it
//! (an object `{"kind": "number", "value": v}`) must be a value the viewer may know (the
//! tracker's `known`): its own rack, cards it drew or swapped, the discard pile of this round.
//! A view's `last_round` (the racks shown at the last round's end, public by R8.2) is left out.
//! Sound (a legal projection never fails) though not complete (a leaked value the viewer
//! happens to know already goes unnoticed).

use std::collections::BTreeSet;

use racko_rules::{Card, Event, Game, Phase, Slot, View, Viewer};
use serde_json::Value;

use super::tracker::Tracker;

/// Every number card value in card position anywhere in `json`.
pub fn number_cards(json: &Value, out: &mut BTreeSet<u16>) {
    match json {
        Value::Object(map) => {
            if map.get("kind").and_then(Value::as_str) == Some("number") {
                if let Some(v) = map.get("value").and_then(Value::as_u64) {
                    out.insert(v as u16);
                }
            }
            map.values().for_each(|v| number_cards(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| number_cards(v, out)),
        _ => {}
    }
}

fn viewers(tracker: &Tracker) -> Vec<(Viewer, usize)> {
    let seats = (0..tracker.players).map(|s| (Viewer::Seat { seat: s as u8 }, s));
    seats
        .chain([(Viewer::Spectator, tracker.players)])
        .collect()
}

/// The number values in card positions of `json` that are not in `known`.
pub fn unknown_values(json: &Value, known: &BTreeSet<u16>) -> Vec<u16> {
    let mut seen = BTreeSet::new();
    number_cards(json, &mut seen);
    seen.difference(known).copied().collect()
}

fn assert_known(json: &Value, known: &BTreeSet<u16>, what: &str) {
    let leaked = unknown_values(json, known);
    assert!(
        leaked.is_empty(),
        "R8: {what} shows values it may not know: {leaked:?}\n{json}"
    );
}

/// `game.view` for every seat and a spectator.
pub fn check_views(game: &Game, tracker: &Tracker) {
    for (viewer, k) in viewers(tracker) {
        let view = game.view(viewer);
        let own_blitz_card = match viewer {
            Viewer::Seat { seat } if game.phase() == &Phase::BlitzDeal => {
                tracker.next_blitz_card(seat)
            }
            _ => None,
        };
        assert_eq!(
            view.blitz_card, own_blitz_card,
            "R7.3: a seat sees its next card only"
        );
        check_view_facts(game, tracker, &view);
        let mut json = serde_json::to_value(view).unwrap();
        let fields = json.as_object_mut().unwrap();
        fields.remove("last_round");
        fields.remove("blitz_card");
        assert_known(&json, &tracker.known[k], &format!("view for {viewer:?}"));
        if let (true, Some(seed)) = (tracker.round_open, tracker.seed) {
            let text = json.to_string();
            assert!(
                !text.contains(&seed.to_hex()),
                "R8.2: the open round's seed is shown"
            );
        }
    }
}

/// What a view must show (R8.1): the viewer's own rack slot by slot, the discard pile, the
/// stock's size, the scores, and the viewer's legal actions.
fn check_view_facts(game: &Game, tracker: &Tracker, view: &View) {
    let own = match view.viewer {
        Viewer::Seat { seat } => Some(seat),
        _ => None,
    };
    let dealt = tracker.round_open && !matches!(game.phase(), Phase::ChoosingDeal { .. });
    if let (Some(seat), true) = (own, dealt) {
        let rack = view
            .rack
            .as_ref()
            .expect("a seat sees its own rack during a round");
        let cards: Vec<Option<Card>> = rack.iter().map(|s| s.card).collect();
        assert_eq!(
            cards,
            tracker.racks[usize::from(seat)],
            "R8.1: the own rack"
        );
        let slots: Vec<Slot> = rack.iter().map(|s| s.slot).collect();
        assert_eq!(slots, Slot::all().collect::<Vec<_>>(), "slots 5 to 60");
    } else {
        assert_eq!(view.rack, None, "no own rack outside a dealt round");
    }
    let legal = own.map(|seat| game.legal_actions(seat)).unwrap_or_default();
    assert_eq!(
        view.legal_actions, legal,
        "the view lists the viewer's legal actions"
    );
    if tracker.round_open {
        assert_eq!(
            view.discard, tracker.discard,
            "R8.1: the whole discard pile"
        );
    }
    if matches!(game.phase(), Phase::Turn { .. }) {
        assert_eq!(
            view.stock_size as usize, tracker.stock,
            "R8.1: the stock's size"
        );
    }
    assert_eq!(view.totals, tracker.totals, "R8.1: every player's total");
    assert_eq!(
        view.round_scores, tracker.round_scores,
        "R8.1: every round's scores"
    );
    assert_eq!(view.phase, *game.phase());
}

/// `event.for_viewer` for every seat and a spectator; call after the tracker has applied it.
pub fn check_event(event: &Event, tracker: &Tracker) {
    for (viewer, k) in viewers(tracker) {
        let projected = event.for_viewer(viewer, false);
        let json = serde_json::to_value(&projected).unwrap();
        assert_known(
            &json,
            &tracker.known[k],
            &format!("{} for {viewer:?}", event.kind()),
        );
        if let Event::RoundStarted { seed, stacked, .. } = &projected {
            assert!(
                seed.is_none() && stacked.is_none(),
                "R8.2: seed hidden in an open round"
            );
        }
        // The one exception: to a bystander a void card swap looks like any card swap, so
        // that it does not tell him the named card is a joker (R8).
        let bystander_of_void = matches!(
            (event, viewer),
            (Event::CardSwapVoid { seat, with: Some(with), .. }, Viewer::Seat { seat: v })
                if v != *seat && v != *with
        ) || matches!(
            (event, viewer),
            (Event::CardSwapVoid { with: Some(_), .. }, Viewer::Spectator)
        );
        if bystander_of_void {
            assert_eq!(
                projected.kind(),
                "cards_swapped",
                "R8: a void swap looks like a swap"
            );
            assert_eq!(
                projected.action(),
                event.action(),
                "the choice stays public"
            );
        } else {
            assert_eq!(
                projected.kind(),
                event.kind(),
                "a projection keeps the event's kind"
            );
        }
        assert_eq!(
            &event.for_viewer(viewer, true),
            event,
            "R8.2: a closed round is public"
        );
    }
    assert_eq!(
        &event.for_viewer(Viewer::Everyone, false),
        event,
        "Everyone sees all"
    );
}
