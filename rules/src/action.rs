//! What a seat can do: actions are plain data (R3, R4.2, R7.3).

use serde::{Deserialize, Serialize};

use crate::{Seat, Slot};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    /// The dealer's choice of a Blitz deal or a normal one (R7.3, dealer's choice).
    ChooseDeal { blitz: bool },
    /// Put the card just dealt to you into an empty slot (R7.3).
    PlaceBlitzCard { slot: Slot },
    /// Take the top discard into a slot (R3.1a).
    TakeDiscard { slot: Slot },
    /// Draw the top card of the stock (R3.1b).
    Draw,
    /// Put the drawn number card or joker into a slot (R3.2).
    PlaceDrawn { slot: Slot },
    /// Discard the drawn number card or joker (R3.2).
    DiscardDrawn,
    /// Carry out a card swap (R3.4): `their_slot` of seat `with` changes places with `my_slot`.
    SwapCard {
        with: Seat,
        their_slot: Slot,
        my_slot: Slot,
    },
    /// Carry out a rack swap with seat `with` (R3.4).
    SwapRacks { with: Seat },
    /// Call "Racko" (R4.2), at any moment of the play.
    CallRacko,
}

impl Action {
    /// A stable snake_case name of the kind of action (matches the serde tag).
    pub fn kind(&self) -> &'static str {
        match self {
            Action::ChooseDeal { .. } => "choose_deal",
            Action::PlaceBlitzCard { .. } => "place_blitz_card",
            Action::TakeDiscard { .. } => "take_discard",
            Action::Draw => "draw",
            Action::PlaceDrawn { .. } => "place_drawn",
            Action::DiscardDrawn => "discard_drawn",
            Action::SwapCard { .. } => "swap_card",
            Action::SwapRacks { .. } => "swap_racks",
            Action::CallRacko => "call_racko",
        }
    }
}
