//! Every fact of play. Events carry full information as the server knows it; `for_viewer`
//! blanks what a viewer may not see (R8). The log of full events is enough to replay a game.

use serde::{Deserialize, Serialize};

use crate::{Action, Card, Rack, Seat, Seed, Slot, StackedDeck, Viewer};

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

/// Hidden values are `Option`s: `Some` in the full event, `None` in a projection for a viewer who
/// may not see them. TODO(engine): this list is a starting point; add facts as needed (e.g. the
/// void card swap of a drawer without a number card), keeping one "input" event per action.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// A round begins (R2.1, R9.2). `seed` and `stacked` are hidden until the round has ended.
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
    /// its slot this way), or (`with` None) the drawer has no number card to give.
    CardSwapVoid {
        seat: Seat,
        with: Option<Seat>,
        their_slot: Option<Slot>,
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
    /// R6.1: equal highest totals share the win.
    GameEnded {
        winners: Vec<Seat>,
        totals: Vec<u32>,
    },
}

impl Event {
    /// The event as `viewer` may see it. `round_closed` is true when the round this event
    /// belongs to has ended (R8.2: then everything of that round is public).
    pub fn for_viewer(&self, viewer: Viewer, round_closed: bool) -> Event {
        todo!("{viewer:?} {round_closed}")
    }

    /// The seat and action that caused this event, for events that record a player's choice.
    pub fn action(&self) -> Option<(Seat, Action)> {
        todo!()
    }

    /// A stable snake_case name of the event kind (matches the serde tag).
    pub fn kind(&self) -> &'static str {
        todo!()
    }
}
