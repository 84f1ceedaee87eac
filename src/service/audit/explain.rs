//! Naming a replay difference: which event, which field, and for a changed slot, the slot the
//! rest of the event belongs to.

use racko_rules::replay::{ReplayError, Steps};
use racko_rules::{Event, Game, Options, Slot};
use serde_json::Value;

use super::diff::first_difference;
use super::replay::starts_step;

pub fn describe(events: &[(i64, Event)], index: usize) -> String {
    match events.get(index) {
        Some((seq, event)) => format!("event seq {seq} ({})", event.kind()),
        None => "the end of the log".to_string(),
    }
}

/// Replays up to the step holding event `index`, runs that step again and compares what the
/// rules give with what was recorded, field by field.
pub fn explain(
    options: &Options,
    events: &[(i64, Event)],
    plain: &[Event],
    index: usize,
) -> Option<String> {
    let last = index.min(plain.len().checked_sub(1)?);
    let start = (0..=last)
        .rev()
        .find(|i| starts_step(plain, *i))
        .unwrap_or(0);
    let mut steps = Steps::new(options, plain).ok()?;
    while steps.position() < start {
        steps.next()?.ok()?;
    }
    if steps.position() != start {
        return None;
    }
    let before = steps.game().clone();
    let (input, produced) = match steps.run_next()? {
        Ok(step) => (step.input, step.produced),
        Err(ReplayError {
            index,
            refused: Some(e),
            ..
        }) => {
            return Some(format!(
                "{}: the rules refuse this action ({}: {e})",
                describe(events, index),
                e.code()
            ))
        }
        Err(_) => return None,
    };
    for (offset, expected) in produced.iter().enumerate() {
        let at = start + offset;
        match plain.get(at) {
            Some(recorded) if recorded == expected => {}
            Some(_) if at == input => {
                let recorded = &plain[input];
                let what = other_slot(&before, recorded, offset)
                    .or_else(|| first_difference(&json(recorded), &json(expected)))?;
                return Some(format!("{}: {what}", describe(events, at)));
            }
            Some(recorded) if recorded.kind() == expected.kind() => {
                let what = first_difference(&json(recorded), &json(expected))?;
                return Some(format!("{}: {what}", describe(events, at)));
            }
            Some(recorded) => {
                return Some(format!(
                    "{}: recorded {}, the rules give {} here",
                    describe(events, at),
                    recorded.kind(),
                    expected.kind()
                ))
            }
            None => {
                return Some(format!(
                    "the log ends at {}; the rules give {} next",
                    describe(events, plain.len() - 1),
                    expected.kind()
                ))
            }
        }
    }
    None
}

/// For a player's event whose cards do not fit its recorded slot: the slot they do fit, found by
/// playing the same action into each other slot. "recorded slot 30, rules give 25" says that
/// the slot was changed, where the cards alone would only say that they differ.
fn other_slot(game: &Game, recorded: &Event, offset: usize) -> Option<String> {
    let original = json(recorded);
    for field in ["slot", "my_slot", "their_slot"] {
        let Some(was) = original.get(field).and_then(Value::as_u64) else {
            continue;
        };
        for slot in Slot::all().filter(|s| u64::from(s.0) != was) {
            let mut moved = original.clone();
            moved[field] = Value::from(slot.0);
            let Ok(candidate) = serde_json::from_value::<Event>(moved) else {
                continue;
            };
            let Some(input) = candidate.input() else {
                continue;
            };
            let Ok(produced) = game.clone().play_mut(&input) else {
                continue;
            };
            if produced.get(offset) == Some(&candidate) {
                return Some(format!("recorded {field} {was}, rules give {}", slot.0));
            }
        }
    }
    None
}

fn json<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}
