//! What each seat knows of the other racks from the public facts of play (R8.1): a card taken
//! from the discard pile sits in a named slot (everyone), the cards of a card swap (the two
//! players), a joker that voided a card swap (the drawer), and a whole rack given away in a
//! rack swap (the two players, each knows the rack it gave). Cards moved by a swap carry
//! what others knew of them; a drawn card placed into a slot hides that slot again. A round's
//! end forgets everything: the racks are then shown (R8.2).

use serde::de::{self, Deserializer};
use serde::ser::Serializer;
use serde::{Deserialize, Serialize};

use super::stored::Stored;
use crate::{Card, Event, Rack, Seat, Slot};

/// One fact: `viewer` knows that slot index `slot` of `seat`'s rack holds `card`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Fact {
    pub viewer: Seat,
    pub seat: Seat,
    pub slot: u8,
    pub card: Card,
}

/// Stored as `[viewer, seat, slot index, card code]` (the stored card codes).
impl Serialize for Fact {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (self.viewer, self.seat, self.slot, Stored(self.card).code()).serialize(s)
    }
}

impl<'de> Deserialize<'de> for Fact {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Fact, D::Error> {
        let (viewer, seat, slot, code) = <(Seat, Seat, u8, i64)>::deserialize(d)?;
        if slot >= 12 {
            return Err(de::Error::custom(format!("slot index {slot} out of range")));
        }
        Ok(Fact {
            viewer,
            seat,
            slot,
            card: Stored::from_code(code)?,
        })
    }
}

/// Every fact of the round, sorted by viewer, seat and slot; at most one per (viewer, seat, slot).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub(crate) struct Known(Vec<Fact>);

impl Known {
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// What `viewer` knows of the other racks: (seat, slot, card), by seat and slot.
    pub(crate) fn of(&self, viewer: Seat) -> Vec<(Seat, Slot, Card)> {
        self.0
            .iter()
            .filter(|f| f.viewer == viewer)
            .map(|f| (f.seat, Slot::from_index(usize::from(f.slot)), f.card))
            .collect()
    }

    fn get(&self, viewer: Seat, seat: Seat, slot: u8) -> Option<Card> {
        self.0
            .iter()
            .find(|f| f.viewer == viewer && f.seat == seat && f.slot == slot)
            .map(|f| f.card)
    }

    fn set(&mut self, viewer: Seat, seat: Seat, slot: u8, card: Option<Card>) {
        self.0
            .retain(|f| !(f.viewer == viewer && f.seat == seat && f.slot == slot));
        if let Some(card) = card.filter(|_| viewer != seat) {
            // Kept sorted, so that a new fact changes the stored state only from its place.
            let at = self
                .0
                .partition_point(|f| (f.viewer, f.seat, f.slot) < (viewer, seat, slot));
            self.0.insert(
                at,
                Fact {
                    viewer,
                    seat,
                    slot,
                    card,
                },
            );
        }
    }

    /// Takes in the facts `events` made public; `racks` are the racks after them.
    pub(crate) fn learn(&mut self, events: &[Event], players: u8, racks: &[Rack]) {
        for event in events {
            self.learn_one(event, players, racks);
        }
    }

    fn learn_one(&mut self, event: &Event, players: u8, racks: &[Rack]) {
        let slot_of = |slot: &Slot| slot.index().map(|i| i as u8);
        match event {
            Event::RoundStarted { .. } | Event::RoundEnded { .. } => self.0.clear(),
            Event::DiscardTaken {
                seat, slot, card, ..
            } => {
                if let Some(i) = slot_of(slot) {
                    for viewer in 0..players {
                        self.set(viewer, *seat, i, Some(*card));
                    }
                }
            }
            Event::DrawnPlaced { seat, slot, .. } => {
                if let Some(i) = slot_of(slot) {
                    for viewer in 0..players {
                        self.set(viewer, *seat, i, None);
                    }
                }
            }
            Event::CardsSwapped {
                seat,
                with,
                my_slot,
                their_slot,
                given,
                taken,
            } => {
                let (Some(mine), Some(theirs)) = (slot_of(my_slot), slot_of(their_slot)) else {
                    return;
                };
                for viewer in (0..players).filter(|v| v != seat && v != with) {
                    let a = self.get(viewer, *seat, mine);
                    let b = self.get(viewer, *with, theirs);
                    self.set(viewer, *seat, mine, b);
                    self.set(viewer, *with, theirs, a);
                }
                self.set(*seat, *with, theirs, *given);
                self.set(*with, *seat, mine, *taken);
            }
            Event::CardSwapVoid {
                seat,
                with: Some(with),
                their_slot: Some(their_slot),
                ..
            } => {
                if let Some(theirs) = slot_of(their_slot) {
                    self.set(*seat, *with, theirs, Some(Card::Joker));
                }
            }
            Event::RacksSwapped { seat, with } => {
                for fact in &mut self.0 {
                    if fact.seat == *seat {
                        fact.seat = *with;
                    } else if fact.seat == *with {
                        fact.seat = *seat;
                    }
                }
                self.0.sort_by_key(|f| (f.viewer, f.seat, f.slot));
                // Each of the two knows the rack it gave away; what it knew of the other
                // rack is its own rack now.
                self.0.retain(|f| f.viewer != f.seat);
                for (viewer, other) in [(*seat, *with), (*with, *seat)] {
                    if let Some(rack) = racks.get(usize::from(other)) {
                        for (i, card) in rack.0.iter().enumerate() {
                            self.set(viewer, other, i as u8, Some(*card));
                        }
                    }
                }
            }
            _ => {}
        }
    }
}
