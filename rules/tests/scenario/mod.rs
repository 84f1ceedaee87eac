//! Runs one scenario: deals each round from its stacked deck, applies the steps, and checks the
//! expectations. Every step also goes through the table's checks (tracker, legality, R8).

pub mod format;

use racko_rules::deadline::begins_stage;
use racko_rules::{Card, Event, Game, RoundDeal, Seat, StackedDeck, Viewer};
use serde_json::Value;

use crate::common::deal::{racks, racks_from_hands, start_seat};
use crate::common::notation::{show, CardSpec};
use crate::common::{seed, Checks, Table};
use format::{Expect, Round, Scenario, Step};

/// True when every field `pattern` names equals the one in `actual`.
pub fn matches(pattern: &Value, actual: &Value) -> bool {
    match (pattern, actual) {
        (Value::Object(p), Value::Object(a)) => p
            .iter()
            .all(|(k, v)| a.get(k).is_some_and(|actual| matches(v, actual))),
        (Value::Array(p), Value::Array(a)) => {
            p.len() == a.len() && p.iter().zip(a).all(|(p, a)| matches(p, a))
        }
        _ => pattern == actual,
    }
}

/// The patterns occur in `events` in this order (other events may come between).
fn check_events(patterns: &[Value], events: &[Event]) {
    let actual: Vec<Value> = events
        .iter()
        .map(|e| serde_json::to_value(e).unwrap())
        .collect();
    let mut rest = actual.iter();
    for pattern in patterns {
        assert!(
            rest.any(|a| matches(pattern, a)),
            "no event matches {pattern} (in order); events were:\n{}",
            actual
                .iter()
                .map(|a| format!("  {a}\n"))
                .collect::<String>()
        );
    }
}

pub fn run(scenario: &Scenario) {
    assert!(
        !scenario.rules.is_empty() && !scenario.description.is_empty(),
        "{}: a scenario names its rules and describes itself",
        scenario.name
    );
    let options = scenario.options.clone();
    if let Some(code) = &scenario.options_error {
        let error = Game::new(options).expect_err("the options must be refused");
        assert_eq!(error.code(), code, "{error}");
        return;
    }
    let mut table = Table::new(options, Checks::Full);
    for round in &scenario.rounds {
        deal(&mut table, round);
        for (i, step) in round.steps.iter().enumerate() {
            run_step(&mut table, step, i);
        }
    }
    if let Some(expect) = &scenario.expect {
        check(&table, expect);
    }
    table.check_replay();
}

fn deal(table: &mut Table, round: &Round) {
    let number = table.game.round() + 1;
    let start = start_seat(number, table.players());
    let deck = table.options().deck_counts();
    let order = match (&round.racks, &round.hands, &round.deal) {
        (Some(given), None, None) => Some(StackedDeck::deal_order(&racks(given), start)),
        (None, Some(hands), None) => Some(StackedDeck::deal_order(&racks_from_hands(hands), start)),
        (None, None, Some(deal)) => Some(deal.clone()),
        (None, None, None) => None,
        _ => panic!("a round gives one of racks, hands, deal"),
    };
    let stock: Vec<Card> = round.stock.iter().map(|c| c.card()).collect();
    let stacked = |deal: Vec<u16>| match round.fill {
        true => StackedDeck::from_deal(&deck, deal, &stock),
        false => StackedDeck {
            deal,
            stock: stock.clone(),
        },
    };
    let deal = RoundDeal {
        seed: round.seed.unwrap_or(seed(number as u8)),
        stacked: (!round.shuffled).then(|| stacked(order.unwrap_or_default())),
    };
    let result = table.start_round(&deal);
    match (&round.deal_error, result) {
        (Some(code), Err(e)) => assert_eq!(e.code(), code, "{e}"),
        (Some(code), Ok(_)) => panic!("the deal must be refused with {code}"),
        (None, Err(e)) => panic!("the deal was refused: {} ({e})", e.code()),
        (None, Ok(events)) => {
            if let Some(patterns) = &round.events {
                check_events(patterns, &events);
            }
        }
    }
    if let Some(expect) = &round.expect {
        check(table, expect);
    }
}

fn run_step(table: &mut Table, step: &Step, index: usize) {
    let context = format!("step {index} {}", step.note.as_deref().unwrap_or(""));
    if step.action.is_some() || step.stand_in {
        let seat = step
            .seat
            .unwrap_or_else(|| panic!("{context}: an action needs a seat"));
        let (result, action) = match step.action {
            Some(action) => (table.act(seat, action), format!("{action:?}")),
            None => (table.stand_in(seat), "stand-in".to_string()),
        };
        match (&step.expect_error, result) {
            (Some(code), Err(e)) => assert_eq!(e.code(), code, "{context}: {e}"),
            (Some(code), Ok(_)) => panic!("{context}: {action} must be refused with {code}"),
            (None, Err(e)) => panic!("{context}: seat {seat} {action} refused: {}", e.code()),
            (None, Ok(events)) => {
                if let Some(patterns) = &step.events {
                    check_events(patterns, &events);
                }
                if let Some(kinds) = &step.event_kinds {
                    let actual: Vec<&str> = events.iter().map(Event::kind).collect();
                    assert_eq!(actual, *kinds, "{context}: event kinds");
                }
                if let Some(fresh) = &step.fresh_deadlines {
                    let begun: Vec<Seat> = table
                        .game
                        .awaiting()
                        .into_iter()
                        .filter(|s| events.iter().any(|e| begins_stage(e, *s)))
                        .collect();
                    assert_eq!(&begun, fresh, "{context}: fresh deadlines (R10.1)");
                }
            }
        }
    }
    if let Some(expect) = &step.expect {
        check(table, expect);
    }
}

fn cards(specs: &[CardSpec]) -> Vec<Card> {
    specs.iter().map(|c| c.card()).collect()
}

fn check(table: &Table, expect: &Expect) {
    let t = &table.tracker;
    if let Some(pattern) = &expect.phase {
        let phase = serde_json::to_value(table.game.phase()).unwrap();
        assert!(
            matches(pattern, &phase),
            "phase {phase}, expected {pattern}"
        );
    }
    if let Some(round) = expect.round {
        assert_eq!(table.game.round(), round, "round");
    }
    if let Some(awaiting) = &expect.awaiting {
        assert_eq!(&table.game.awaiting(), awaiting, "awaiting");
    }
    for (seat, rack) in &expect.racks {
        let seat: usize = seat.parse().expect("racks are keyed by seat number");
        let want: Vec<Option<Card>> = rack.iter().map(|c| c.map(CardSpec::card)).collect();
        assert_eq!(show(&t.racks[seat]), show(&want), "seat {seat}'s rack");
    }
    if let Some(discard) = &expect.discard {
        assert_eq!(t.discard, cards(discard), "discard pile");
    }
    if let Some(top) = expect.discard_top {
        assert_eq!(t.top(), Some(top.card()), "top discard");
    }
    if let Some(size) = expect.stock_size {
        assert_eq!(t.stock, size, "stock size");
    }
    if let Some(scores) = &expect.round_scores {
        assert_eq!(t.round_scores.last(), Some(scores), "round scores");
    }
    if let Some(totals) = &expect.totals {
        assert_eq!(&t.totals, totals, "totals");
    }
    if let Some(teams) = &expect.team_totals {
        let view = table.game.view(Viewer::Everyone);
        assert_eq!(view.team_totals.as_ref(), Some(teams), "team totals");
    }
    if let Some(winners) = &expect.winners {
        assert_eq!(t.winners.as_ref(), Some(winners), "winners");
    }
    for (seat, count) in &expect.timeouts {
        let seat = seat.parse().expect("timeouts are keyed by seat number");
        assert_eq!(table.game.timeouts(seat), *count, "seat {seat}'s timeouts");
    }
    if let Some(resigned) = &expect.resigned {
        assert_eq!(&table.game.resigned_seats(), resigned, "resigned seats");
    }
    for (seat, legal) in &expect.legal {
        let actions = table.game.legal_actions(seat.parse().expect("seat number"));
        for a in &legal.includes {
            assert!(
                actions.contains(a),
                "seat {seat}: {a:?} must be legal; legal: {actions:?}"
            );
        }
        for a in &legal.excludes {
            assert!(!actions.contains(a), "seat {seat}: {a:?} must not be legal");
        }
        if let Some(exactly) = &legal.exactly {
            let mut want = exactly.clone();
            let mut got = actions.clone();
            want.sort_by_key(|a| format!("{a:?}"));
            got.sort_by_key(|a| format!("{a:?}"));
            assert_eq!(got, want, "seat {seat}: exactly these actions are legal");
        }
        if let Some(count) = legal.count {
            assert_eq!(
                actions.len(),
                count,
                "seat {seat}: number of legal actions {actions:?}"
            );
        }
    }
}
