//! Every fact of play. Events carry full information as the server knows it; `for_viewer`
//! blanks what a viewer may not see (R8). The log of full events is enough to replay a game.
//!
//! The order in which they come:
//! - `start_round`: `RoundStarted`, then (dealer's choice) nothing until `ChooseDeal` gives
//!   `DealChosen`; then `Dealt`, `StartCard`, `TurnStarted` (R2), or `BlitzDealStarted` and,
//!   after the last `BlitzCardPlaced`, either the round's end (Blitz-Racko) or `StartCard`,
//!   `TurnStarted`. An event start card is carried out at once: `Skipped` and the next
//!   `TurnStarted`, or the start player's card swap / rack swap choice.
//! - A turn: `DiscardTaken`; or [`StockReshuffled`], `Drew`, then `DrawnPlaced`,
//!   `DrawnDiscarded`, `Skipped`, `CardsSwapped`, `CardSwapVoid` or `RacksSwapped`; then the
//!   next `TurnStarted` (or, R3.6, `RoundEnded` right after it).
//! - `RackoCalled`, at any moment of a turn; then `RoundEnded`, and `GameEnded` if a total
//!   reached the target (R6.1).
//! - `TurnTimedOut` (R10.2), at any moment a seat is awaited; then the actions made for the
//!   seat, each its own step. After the one that leaves the seat no longer awaited, if the seat
//!   has run out of time on `timeouts_to_resign` turns in a row: `Resigned` (reason `timeouts`)
//!   right after that action's events, then what resigning causes.
//! - `Resigned` (R10.3), at any moment before the game is over; with two players or Partner
//!   then `GameEnded` (the round in progress is not scored); with three or four, `GameEnded`
//!   only once every seat has resigned.
//!
//! [`StockReshuffled`]: Event::StockReshuffled

use serde::{Deserialize, Serialize};

use crate::{Action, Actor, Card, Input, Rack, RoundDeal, Seat, Seed, Slot, StackedDeck, Viewer};

/// Why a round ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum RoundEnd {
    /// R4.2
    Racko { seat: Seat },
    /// R7.3
    BlitzRacko { seat: Seat },
    /// R3.6: nothing can be drawn or taken.
    StockExhausted,
}

/// Why a seat resigned (R10.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ResignReason {
    /// The player resigned ([`Game::resign`](crate::Game::resign)).
    Player,
    /// The seat ran out of time on `timeouts_to_resign` turns in a row (R10.2).
    Timeouts,
}

/// Hidden values are `Option`s: `Some` in the full event, `None` in a projection for a viewer who
/// may not see them. Each input played (a deal, an action, a timeout, a resignation) produces
/// exactly one event that records it, the one [`Event::input`] maps back to it; the other
/// events follow from the rules.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// A round begins (R2.1, R9.2). `seed` is hidden until the round has ended (as is the deck
    /// of a game in test mode).
    RoundStarted {
        round: u32,
        dealer: Seat,
        start_seat: Seat,
        seed_commitment: String,
        seed: Option<Seed>,
        stacked: Option<StackedDeck>,
    },
    /// The dealer chose the kind of deal (R7.3, dealer's choice).
    DealChosen { dealer: Seat, blitz: bool },
    /// The normal deal (R2.2): `racks[s]` is seat s's rack, hidden from everyone but s.
    Dealt { racks: Vec<Option<Rack>> },
    /// A Blitz deal began; each seat now places the cards dealt to it (R7.3).
    BlitzDealStarted,
    /// A seat put a Blitz card into a slot; the value only that seat sees.
    BlitzCardPlaced {
        seat: Seat,
        slot: Slot,
        card: Option<Card>,
    },
    /// The start card was turned up (R2.3).
    StartCard { card: Card },
    /// A seat's turn begins.
    TurnStarted { seat: Seat },
    /// R3.1a: the taken card and the replaced card are both public.
    DiscardTaken {
        seat: Seat,
        slot: Slot,
        card: Card,
        replaced: Card,
    },
    /// R3.1b: the value only the drawer sees, except an event card, which is carried out openly.
    Drew { seat: Seat, card: Option<Card> },
    /// R3.2: the placed value is hidden; the replaced card goes face up onto the discard pile.
    DrawnPlaced {
        seat: Seat,
        slot: Slot,
        card: Option<Card>,
        replaced: Card,
    },
    /// R3.2
    DrawnDiscarded { seat: Seat, card: Card },
    /// R3.4 skip (also the start card, R2.4).
    Skipped { seat: Seat },
    /// R3.4 card swap: the values only `seat` and `with` see.
    CardsSwapped {
        seat: Seat,
        with: Seat,
        my_slot: Slot,
        their_slot: Slot,
        /// The card `seat` gave away (now in `with`'s `their_slot`).
        given: Option<Card>,
        /// The card `seat` took (now in `seat`'s `my_slot`).
        taken: Option<Card>,
    },
    /// R3.4 card swap with no effect: the named card of `with` is a joker (a joker never leaves
    /// its slot this way; then `with`, `their_slot` and `my_slot` are the drawer's choice), or
    /// (all three null) the drawer has no number card to give, which needs no choice.
    CardSwapVoid {
        seat: Seat,
        with: Option<Seat>,
        their_slot: Option<Slot>,
        #[serde(default)]
        my_slot: Option<Slot>,
    },
    /// R3.4 rack swap.
    RacksSwapped { seat: Seat, with: Seat },
    /// R3.6: the discards but the top card became the new stock.
    StockReshuffled { cards: u32 },
    /// R4.2
    RackoCalled { seat: Seat },
    /// R5, R6, R7, R8.2: every rack and the seed are shown.
    RoundEnded {
        round: u32,
        end: RoundEnd,
        racks: Vec<Rack>,
        scores: Vec<u32>,
        totals: Vec<u32>,
        seed: Seed,
    },
    /// R6.1: equal highest totals share the win. R10.3: after a resignation the winners are
    /// the other player or team, or nobody when every seat resigned.
    GameEnded {
        winners: Vec<Seat>,
        totals: Vec<u32>,
    },
    /// R10.2: the seat's deadline passed; the actions that follow are made for it until it is
    /// no longer awaited. Public (R10.4).
    TurnTimedOut { seat: Seat },
    /// R10.3: public (R10.4).
    Resigned { seat: Seat, reason: ResignReason },
}

/// R8.2: the kinds `for_viewer` may show as another kind, as (shown, stored): a bystander of
/// an open round sees a void card swap as a card swap whose cards he cannot see.
const DISGUISES: &[(&str, &str)] = &[("cards_swapped", "card_swap_void")];

/// The stored kinds whose events a viewer may be shown as kind `shown` (R8.2): the kind itself
/// and those `for_viewer` disguises as it. A search of a log by the kind a viewer sees reads
/// all of them, and the projection then decides what is shown.
pub fn kinds_shown_as(shown: &str) -> Vec<&str> {
    let disguised = DISGUISES
        .iter()
        .filter(|(as_shown, _)| *as_shown == shown)
        .map(|(_, stored)| *stored);
    std::iter::once(shown).chain(disguised).collect()
}

impl Event {
    /// The event as `viewer` may see it. `round_closed` is true when the round this event
    /// belongs to has ended (R8.2: then everything of that round is public).
    pub fn for_viewer(&self, viewer: Viewer, round_closed: bool) -> Event {
        let me = match viewer {
            Viewer::Everyone => return self.clone(),
            _ if round_closed => return self.clone(),
            Viewer::Seat { seat } => Some(seat),
            Viewer::Spectator => None,
        };
        let is_me = |seat: Seat| me == Some(seat);
        // A bystander must not learn that the named card was a joker (R8.2): to him a void
        // card swap looks like any card swap whose values he cannot see (see `DISGUISES`).
        if let Event::CardSwapVoid {
            seat,
            with: Some(with),
            their_slot: Some(their_slot),
            my_slot: Some(my_slot),
        } = *self
        {
            if !is_me(seat) && !is_me(with) {
                return Event::CardsSwapped {
                    seat,
                    with,
                    my_slot,
                    their_slot,
                    given: None,
                    taken: None,
                };
            }
        }
        let mut event = self.clone();
        match &mut event {
            Event::RoundStarted { seed, stacked, .. } => {
                *seed = None;
                *stacked = None;
            }
            Event::Dealt { racks } => {
                for (seat, rack) in racks.iter_mut().enumerate() {
                    if me.map(usize::from) != Some(seat) {
                        *rack = None;
                    }
                }
            }
            // An event card is carried out in the open (R3.4).
            Event::Drew { seat, card } if !is_me(*seat) && !card.is_some_and(|c| c.is_event()) => {
                *card = None;
            }
            Event::DrawnPlaced { seat, card, .. } | Event::BlitzCardPlaced { seat, card, .. }
                if !is_me(*seat) =>
            {
                *card = None;
            }
            Event::CardsSwapped {
                seat,
                with,
                given,
                taken,
                ..
            } if !is_me(*seat) && !is_me(*with) => {
                *given = None;
                *taken = None;
            }
            _ => {}
        }
        event
    }

    /// The input this event records, for the one event of each input that does: a deal's
    /// `RoundStarted` (with its seed: a projection that hides it records none), an action's
    /// own event, a `TurnTimedOut`, a player's `Resigned`. A resignation for timeouts is no
    /// input: it follows from the last action made for the seat (R10.2). Playing the input
    /// on the game before it gives this event again (R9.2).
    pub fn input(&self) -> Option<Input> {
        let (seat, action) = match *self {
            Event::RoundStarted {
                seed: Some(seed),
                ref stacked,
                ..
            } => {
                let stacked = stacked.clone();
                return Some(Input::Deal(RoundDeal { seed, stacked }));
            }
            Event::TurnTimedOut { seat } => return Some(Input::TimeOut { seat }),
            Event::Resigned {
                seat,
                reason: ResignReason::Player,
            } => return Some(Input::Resign { seat }),
            Event::DealChosen { dealer, blitz } => (dealer, Action::ChooseDeal { blitz }),
            Event::BlitzCardPlaced { seat, slot, .. } => (seat, Action::PlaceBlitzCard { slot }),
            Event::DiscardTaken { seat, slot, .. } => (seat, Action::TakeDiscard { slot }),
            Event::Drew { seat, .. } => (seat, Action::Draw),
            Event::DrawnPlaced { seat, slot, .. } => (seat, Action::PlaceDrawn { slot }),
            Event::DrawnDiscarded { seat, .. } => (seat, Action::DiscardDrawn),
            Event::CardsSwapped {
                seat,
                with,
                my_slot,
                their_slot,
                ..
            }
            | Event::CardSwapVoid {
                seat,
                with: Some(with),
                their_slot: Some(their_slot),
                my_slot: Some(my_slot),
            } => (
                seat,
                Action::SwapCard {
                    with,
                    their_slot,
                    my_slot,
                },
            ),
            Event::RacksSwapped { seat, with } => (seat, Action::SwapRacks { with }),
            Event::RackoCalled { seat } => (seat, Action::CallRacko),
            _ => return None,
        };
        Some(Input::Act { seat, action })
    }

    /// The seat and action of an action's own event ([`Input::Act`]).
    pub fn action(&self) -> Option<(Seat, Action)> {
        match self.input() {
            Some(Input::Act { seat, action }) => Some((seat, action)),
            _ => None,
        }
    }

    /// Whose choice this event records: its input's actor ([`Input::actor`]); the server's
    /// for a resignation for timeouts (R10.2) and for a deal whose seed is hidden; nobody's
    /// for what follows from the rules.
    pub fn actor(&self) -> Actor {
        match self.input() {
            Some(input) => input.actor(),
            None if matches!(self, Event::Resigned { .. } | Event::RoundStarted { .. }) => {
                Actor::Server
            }
            None => Actor::Rules,
        }
    }

    /// True for the event a replay step begins from: one with an [`Event::input`], or a
    /// `RoundStarted` whose seed is hidden (a projection, which cannot be replayed).
    pub fn is_input(&self) -> bool {
        matches!(self, Event::RoundStarted { .. }) || self.input().is_some()
    }

    /// A stable snake_case name of the event kind (matches the serde tag).
    pub fn kind(&self) -> &'static str {
        match self {
            Event::RoundStarted { .. } => "round_started",
            Event::DealChosen { .. } => "deal_chosen",
            Event::Dealt { .. } => "dealt",
            Event::BlitzDealStarted => "blitz_deal_started",
            Event::BlitzCardPlaced { .. } => "blitz_card_placed",
            Event::StartCard { .. } => "start_card",
            Event::TurnStarted { .. } => "turn_started",
            Event::DiscardTaken { .. } => "discard_taken",
            Event::Drew { .. } => "drew",
            Event::DrawnPlaced { .. } => "drawn_placed",
            Event::DrawnDiscarded { .. } => "drawn_discarded",
            Event::Skipped { .. } => "skipped",
            Event::CardsSwapped { .. } => "cards_swapped",
            Event::CardSwapVoid { .. } => "card_swap_void",
            Event::RacksSwapped { .. } => "racks_swapped",
            Event::StockReshuffled { .. } => "stock_reshuffled",
            Event::RackoCalled { .. } => "racko_called",
            Event::RoundEnded { .. } => "round_ended",
            Event::GameEnded { .. } => "game_ended",
            Event::TurnTimedOut { .. } => "turn_timed_out",
            Event::Resigned { .. } => "resigned",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RoundEnd;

    #[test]
    fn r8_2_a_bystander_cannot_tell_a_void_card_swap_from_a_swap() {
        let void = Event::CardSwapVoid {
            seat: 2,
            with: Some(1),
            their_slot: Some(Slot(5)),
            my_slot: Some(Slot(10)),
        };
        let bystander = void.for_viewer(Viewer::Seat { seat: 0 }, false);
        let unseen_swap = Event::CardsSwapped {
            seat: 2,
            with: 1,
            my_slot: Slot(10),
            their_slot: Slot(5),
            given: None,
            taken: None,
        };
        assert_eq!(bystander, unseen_swap);
        assert_eq!(void.for_viewer(Viewer::Spectator, false), unseen_swap);
        assert_eq!(
            bystander.action(),
            void.action(),
            "the choice stays the same"
        );
        for seat in [1, 2] {
            assert_eq!(
                void.for_viewer(Viewer::Seat { seat }, false),
                void,
                "seat {seat}"
            );
        }
        assert_eq!(
            void.for_viewer(Viewer::Seat { seat: 0 }, true),
            void,
            "round closed"
        );
    }

    fn every_event() -> Vec<Event> {
        let slot = Slot(5);
        let card = Card::Joker;
        vec![
            Event::RoundStarted {
                round: 1,
                dealer: 0,
                start_seat: 1,
                seed_commitment: String::new(),
                seed: None,
                stacked: None,
            },
            Event::DealChosen {
                dealer: 0,
                blitz: true,
            },
            Event::Dealt { racks: vec![] },
            Event::BlitzDealStarted,
            Event::BlitzCardPlaced {
                seat: 0,
                slot,
                card: None,
            },
            Event::StartCard { card },
            Event::TurnStarted { seat: 0 },
            Event::DiscardTaken {
                seat: 0,
                slot,
                card,
                replaced: card,
            },
            Event::Drew {
                seat: 0,
                card: None,
            },
            Event::DrawnPlaced {
                seat: 0,
                slot,
                card: None,
                replaced: card,
            },
            Event::DrawnDiscarded { seat: 0, card },
            Event::Skipped { seat: 0 },
            Event::CardsSwapped {
                seat: 0,
                with: 1,
                my_slot: slot,
                their_slot: slot,
                given: None,
                taken: None,
            },
            Event::CardSwapVoid {
                seat: 0,
                with: None,
                their_slot: None,
                my_slot: None,
            },
            Event::RacksSwapped { seat: 0, with: 1 },
            Event::StockReshuffled { cards: 3 },
            Event::RackoCalled { seat: 0 },
            Event::RoundEnded {
                round: 1,
                end: RoundEnd::StockExhausted,
                racks: vec![],
                scores: vec![],
                totals: vec![],
                seed: Seed([0; 32]),
            },
            Event::GameEnded {
                winners: vec![],
                totals: vec![],
            },
            Event::TurnTimedOut { seat: 1 },
            Event::Resigned {
                seat: 0,
                reason: ResignReason::Player,
            },
            Event::Resigned {
                seat: 1,
                reason: ResignReason::Timeouts,
            },
        ]
    }

    #[test]
    fn r10_4_timeouts_and_resignations_reveal_nothing_and_hide_nothing() {
        let events = [
            Event::TurnTimedOut { seat: 1 },
            Event::Resigned {
                seat: 0,
                reason: ResignReason::Timeouts,
            },
        ];
        for event in events {
            for viewer in [
                Viewer::Seat { seat: 0 },
                Viewer::Seat { seat: 2 },
                Viewer::Spectator,
            ] {
                assert_eq!(event.for_viewer(viewer, false), event, "{viewer:?}");
            }
        }
        let json = serde_json::to_value(Event::Resigned {
            seat: 2,
            reason: ResignReason::Player,
        })
        .expect("serializes");
        assert_eq!(
            json,
            serde_json::json!({"type": "resigned", "seat": 2, "reason": "player"})
        );
    }

    #[test]
    fn r10_inputs_are_deals_actions_timeouts_and_a_players_resignation() {
        let inputs: Vec<&str> = every_event()
            .iter()
            .filter(|e| e.is_input())
            .map(Event::kind)
            .collect();
        let expected = [
            "round_started",
            "deal_chosen",
            "blitz_card_placed",
            "discard_taken",
            "drew",
            "drawn_placed",
            "drawn_discarded",
            "cards_swapped",
            "racks_swapped",
            "racko_called",
            "turn_timed_out",
            "resigned",
        ];
        assert_eq!(inputs, expected);
        let for_timeouts = Event::Resigned {
            seat: 1,
            reason: ResignReason::Timeouts,
        };
        assert!(!for_timeouts.is_input());
    }

    #[test]
    fn r10_whose_choice_each_event_records() {
        let actors: Vec<(&str, Actor)> = every_event()
            .iter()
            .map(|e| (e.kind(), e.actor()))
            .collect();
        let expected = [
            ("round_started", Actor::Server),
            ("deal_chosen", Actor::Seat(0)),
            ("dealt", Actor::Rules),
            ("blitz_deal_started", Actor::Rules),
            ("blitz_card_placed", Actor::Seat(0)),
            ("start_card", Actor::Rules),
            ("turn_started", Actor::Rules),
            ("discard_taken", Actor::Seat(0)),
            ("drew", Actor::Seat(0)),
            ("drawn_placed", Actor::Seat(0)),
            ("drawn_discarded", Actor::Seat(0)),
            ("skipped", Actor::Rules),
            ("cards_swapped", Actor::Seat(0)),
            // A void card swap that needed no choice (R3.4).
            ("card_swap_void", Actor::Rules),
            ("racks_swapped", Actor::Seat(0)),
            ("stock_reshuffled", Actor::Rules),
            ("racko_called", Actor::Seat(0)),
            ("round_ended", Actor::Rules),
            ("game_ended", Actor::Rules),
            ("turn_timed_out", Actor::Server),
            ("resigned", Actor::Seat(0)),
            ("resigned", Actor::Server),
        ];
        assert_eq!(actors, expected);
    }

    #[test]
    fn r8_2_a_shown_kind_names_every_stored_kind_it_may_stand_for() {
        let mut events = every_event();
        events.push(Event::CardSwapVoid {
            seat: 2,
            with: Some(1),
            their_slot: Some(Slot(5)),
            my_slot: Some(Slot(10)),
        });
        let viewers = [
            Viewer::Seat { seat: 0 },
            Viewer::Seat { seat: 1 },
            Viewer::Seat { seat: 2 },
            Viewer::Spectator,
            Viewer::Everyone,
        ];
        for event in &events {
            for viewer in viewers {
                let shown = event.for_viewer(viewer, false);
                let stored = kinds_shown_as(shown.kind());
                assert!(stored.contains(&event.kind()), "{event:?} as {viewer:?}");
            }
        }
        assert_eq!(
            kinds_shown_as("cards_swapped"),
            ["cards_swapped", "card_swap_void"]
        );
        assert_eq!(kinds_shown_as("drew"), ["drew"]);
        assert_eq!(kinds_shown_as("player_joined"), ["player_joined"]);
    }

    #[test]
    fn kind_is_the_serde_tag() {
        for event in every_event() {
            let json = serde_json::to_value(&event).expect("serializes");
            assert_eq!(json["type"], event.kind());
            let back: Event = serde_json::from_value(json).expect("deserializes");
            assert_eq!(back, event);
        }
    }

    #[test]
    fn input_events_map_back_to_their_action() {
        let inputs: Vec<&str> = every_event()
            .iter()
            .filter(|e| e.action().is_some())
            .map(Event::kind)
            .collect();
        let expected = [
            "deal_chosen",
            "blitz_card_placed",
            "discard_taken",
            "drew",
            "drawn_placed",
            "drawn_discarded",
            "cards_swapped",
            "racks_swapped",
            "racko_called",
        ];
        assert_eq!(inputs, expected);
    }

    #[test]
    fn action_kind_is_the_serde_tag() {
        let swap = Action::SwapCard {
            with: 1,
            their_slot: Slot(30),
            my_slot: Slot(5),
        };
        let json = serde_json::to_value(swap).expect("serializes");
        assert_eq!(
            json,
            serde_json::json!({"type": "swap_card", "with": 1, "their_slot": 30, "my_slot": 5})
        );
        for action in [
            Action::Draw,
            Action::CallRacko,
            Action::ChooseDeal { blitz: true },
        ] {
            let json = serde_json::to_value(action).expect("serializes");
            assert_eq!(json["type"], action.kind());
        }
    }
}
