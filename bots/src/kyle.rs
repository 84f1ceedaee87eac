//! The `kyle` sparring partner: racko-ai's "Kyle hard" player (Azmisov/racko-ai), written here
//! from its description, no code taken. It aims for a flat, evenly spread rack:
//! - an *anchor* is a slot whose card lies in its own band (slot i of 12 holds the i-th twelfth
//!   of the numbers), or the slot right after an anchor when it holds that anchor's card + 1;
//! - the slots between two anchors form a *range*: it wants the values strictly between the
//!   anchors' cards (1 and max at the ends);
//! - take the top discard when it falls into a range (ends included), else draw; keep a drawn
//!   card only when it lies strictly inside a range, else discard it;
//! - within a range the card goes to its first slot when it equals the range's low end, else to
//!   the slot of the range its value points at, spread evenly; the placed card becomes an anchor.
//!
//! Kyle's player remembers its anchors from turn to turn. A player here reads its view only, so
//! ours rebuilds them from the rack each turn: after the band anchors, every card that lies
//! within the range around it (so is in order with the anchors beside it) counts as one too,
//! which is what a card Kyle placed is, and a range too short for its slots gives up the anchor
//! above it (Kyle's own player can get stuck there). Our choices for what Kyle knows nothing
//! of: a joker in the rack is no anchor and is never replaced; a joker offered is taken into
//! the middle slot of the widest range.

use racko_rules::{Card, Slot};

use crate::sight::{Slots, EMPTY, JOKER};

/// A run of non-anchor slots `start..start + slots` wanting values `low..=high`.
#[derive(Clone, Copy, Debug)]
struct Range {
    low: u16,
    high: u16,
    start: usize,
    slots: usize,
}

/// Whether slot `i` holds a card of its own band (bands of `max / 12` values, the last band
/// running to `max`).
fn in_band(rack: &Slots, i: usize, max: u16) -> bool {
    let width = (max / 12).max(1);
    let card = rack[i];
    if card == JOKER || card == EMPTY {
        return false;
    }
    let low = width * i as u16 + 1;
    let high = if i == 11 { max } else { width * (i as u16 + 1) };
    (low..=high).contains(&card)
}

fn anchors(rack: &Slots, max: u16) -> [bool; 12] {
    let mut anchor = [false; 12];
    for (i, a) in anchor.iter_mut().enumerate() {
        *a = in_band(rack, i, max);
    }
    for i in 0..11 {
        if anchor[i] && rack[i] != JOKER && rack[i] != EMPTY && rack[i + 1] == rack[i] + 1 {
            anchor[i + 1] = true;
        }
    }
    // Our stand-in for Kyle's memory: a card in order with the anchors around it is kept.
    for i in 0..12 {
        if anchor[i] || rack[i] == EMPTY {
            continue;
        }
        if let Some(range) = ranges(rack, &anchor, max)
            .into_iter()
            .find(|r| (r.start..r.start + r.slots).contains(&i))
        {
            if range.low < rack[i] && rack[i] < range.high {
                anchor[i] = true;
            }
        }
    }
    // A range with fewer values than slots could never be filled: its upper anchor (its lower
    // one at the rack's end) is given up, so Kyle cannot get stuck.
    while let Some(r) = ranges(rack, &anchor, max)
        .into_iter()
        .find(|r| usize::from((r.high + 1).saturating_sub(r.low)) < r.slots)
    {
        let end = r.start + r.slots;
        if end < 12 {
            anchor[end] = false;
        } else if r.start > 0 {
            anchor[r.start - 1] = false;
        } else {
            break;
        }
    }
    anchor
}

fn ranges(rack: &Slots, anchor: &[bool; 12], max: u16) -> Vec<Range> {
    let mut out = Vec::new();
    let mut low = 1u16;
    let mut start = 0usize;
    for i in (0..=12).filter(|i| *i == 12 || anchor[*i]) {
        let high = if i == 12 {
            max
        } else {
            rack[i].saturating_sub(1)
        };
        if i > start {
            out.push(Range {
                low,
                high,
                start,
                slots: i - start,
            });
        }
        if i < 12 {
            low = rack[i] + 1;
        }
        start = i + 1;
    }
    out
}

/// The slot of `range` nearest `at` that holds no joker (a joker fits anywhere: keep it).
fn near(rack: &Slots, range: &Range, at: usize) -> Option<Slot> {
    (range.start..range.start + range.slots)
        .filter(|i| rack[*i] != JOKER)
        .min_by_key(|i| i.abs_diff(at))
        .map(Slot::from_index)
}

/// The slot Kyle puts `card` into, when it wants it. `inside`: the card must lie strictly
/// inside a range (a drawn card), else the range's ends count too (the top discard).
pub(crate) fn slot_for(rack: &Slots, card: Option<Card>, max: u16, inside: bool) -> Option<Slot> {
    let anchor = anchors(rack, max);
    let ranges = ranges(rack, &anchor, max);
    let value = match card? {
        Card::Number { value } => value,
        Card::Joker => {
            let widest = ranges.iter().max_by_key(|r| r.slots)?;
            return near(rack, widest, widest.start + widest.slots / 2);
        }
        _ => return None,
    };
    let range = ranges.iter().find(|r| {
        if inside {
            r.low < value && value < r.high
        } else {
            r.low <= value && value <= r.high
        }
    })?;
    let offset = if value == range.low {
        0
    } else {
        let span = f32::from(range.high - range.low + 1);
        let at = (f32::from(value - range.low) + 0.5) / span * range.slots as f32;
        (at as usize).min(range.slots - 1)
    };
    near(rack, range, range.start + offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_lie_between_the_anchors() {
        // Bands of 4 for max 50: slot 0 wants 1..=4, slot 1 5..=8, ...
        let rack: Slots = [2, 40, 30, 14, 1, 22, 3, 29, 44, 4, 42, 50];
        let anchor = anchors(&rack, 50);
        assert!(anchor[0] && anchor[3] && anchor[5] && anchor[11]);
        assert!(!anchor[1] && !anchor[4]);
        // 9 lies between 2 (slot 0) and 14 (slot 3): it goes into slots 1 or 2.
        let slot = slot_for(&rack, Some(Card::Number { value: 9 }), 50, true);
        assert!(matches!(slot.and_then(Slot::index), Some(1 | 2)));
        // 3 fits no range: 2 and 14 bound slots 1..=2 at 3..=13, but 3 is the low end, so a
        // drawn 3 is thrown away and a discarded 3 taken into slot 1.
        assert_eq!(
            slot_for(&rack, Some(Card::Number { value: 3 }), 50, true),
            None
        );
        assert_eq!(
            slot_for(&rack, Some(Card::Number { value: 3 }), 50, false),
            Some(Slot::from_index(1))
        );
    }
}
