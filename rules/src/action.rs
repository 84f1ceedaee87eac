//! What a seat can do: actions are plain data (R3, R4.2, R7.3).

use serde::{Deserialize, Serialize};

use crate::{Seat, Slot};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    deny_unknown_fields,
    from = "WireAction"
)]
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

/// What [`Action`] is read from: the same JSON, but the field-less actions are empty struct
/// variants, because serde lets an internally tagged *unit* variant ignore unknown fields
/// (`{"type":"draw","bogus":1}` would pass) while every other variant refuses them.
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
enum WireAction {
    ChooseDeal {
        blitz: bool,
    },
    PlaceBlitzCard {
        slot: Slot,
    },
    TakeDiscard {
        slot: Slot,
    },
    Draw {},
    PlaceDrawn {
        slot: Slot,
    },
    DiscardDrawn {},
    SwapCard {
        with: Seat,
        their_slot: Slot,
        my_slot: Slot,
    },
    SwapRacks {
        with: Seat,
    },
    CallRacko {},
}

impl From<WireAction> for Action {
    fn from(wire: WireAction) -> Action {
        match wire {
            WireAction::ChooseDeal { blitz } => Action::ChooseDeal { blitz },
            WireAction::PlaceBlitzCard { slot } => Action::PlaceBlitzCard { slot },
            WireAction::TakeDiscard { slot } => Action::TakeDiscard { slot },
            WireAction::Draw {} => Action::Draw,
            WireAction::PlaceDrawn { slot } => Action::PlaceDrawn { slot },
            WireAction::DiscardDrawn {} => Action::DiscardDrawn,
            WireAction::SwapCard {
                with,
                their_slot,
                my_slot,
            } => Action::SwapCard {
                with,
                their_slot,
                my_slot,
            },
            WireAction::SwapRacks { with } => Action::SwapRacks { with },
            WireAction::CallRacko {} => Action::CallRacko,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> Result<Action, serde_json::Error> {
        serde_json::from_str(json)
    }

    #[test]
    fn field_less_actions_refuse_unknown_fields_like_the_others() {
        assert_eq!(parse(r#"{"type":"draw"}"#).unwrap(), Action::Draw);
        assert_eq!(
            parse(r#"{"type":"discard_drawn"}"#).unwrap(),
            Action::DiscardDrawn
        );
        assert_eq!(
            parse(r#"{"type":"call_racko"}"#).unwrap(),
            Action::CallRacko
        );
        for json in [
            r#"{"type":"draw","bogus":1}"#,
            r#"{"type":"discard_drawn","bogus":1}"#,
            r#"{"type":"call_racko","bogus":null}"#,
            r#"{"type":"place_drawn","slot":5,"bogus":1}"#,
        ] {
            let err = parse(json).expect_err(json);
            assert!(err.to_string().contains("unknown field"), "{json}: {err}");
        }
    }

    #[test]
    fn every_action_reads_back_what_it_writes() {
        for action in [
            Action::ChooseDeal { blitz: true },
            Action::PlaceBlitzCard { slot: Slot(5) },
            Action::TakeDiscard { slot: Slot(10) },
            Action::Draw,
            Action::PlaceDrawn { slot: Slot(15) },
            Action::DiscardDrawn,
            Action::SwapCard {
                with: 1,
                their_slot: Slot(20),
                my_slot: Slot(25),
            },
            Action::SwapRacks { with: 2 },
            Action::CallRacko,
        ] {
            let json = serde_json::to_string(&action).unwrap();
            assert_eq!(parse(&json).unwrap(), action, "{json}");
            assert_eq!(
                serde_json::from_str::<serde_json::Value>(&json).unwrap()["type"],
                action.kind()
            );
        }
    }
}
