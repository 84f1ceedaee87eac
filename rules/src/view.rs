//! What one viewer may see of a game (R8).

use serde::{Deserialize, Serialize};

use crate::event::RoundEnd;
use crate::{Action, Card, Options, Phase, Rack, Seat, Seed, Slot};

/// Who is looking.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Viewer {
    /// A player at the table.
    Seat { seat: Seat },
    /// Anyone else: public facts only.
    Spectator,
    /// Everything (a finished game's record, R8.2; audits).
    Everyone,
}

/// One slot of a rack as a viewer sees it: `card` is None for an empty slot (Blitz deal).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SlotCard {
    pub slot: Slot,
    pub card: Option<Card>,
}

/// An ended round, all public (R8.2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RoundResult {
    pub round: u32,
    pub dealer: Seat,
    pub end: RoundEnd,
    /// By seat, as they stood when the round ended.
    pub racks: Vec<Rack>,
    /// By seat.
    pub scores: Vec<u32>,
    pub seed: Seed,
}

/// The projection of a game for one viewer (R8). During a round it never holds another seat's
/// rack values or any stock card, except for `Viewer::Everyone`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct View {
    pub viewer: Viewer,
    pub options: Options,
    pub phase: Phase,
    /// Rounds started so far.
    pub round: u32,
    /// The dealer and start player of the current (or last) round; None before round 1.
    pub dealer: Option<Seat>,
    pub start_seat: Option<Seat>,
    /// The seat on turn, if a turn is being played.
    pub turn: Option<Seat>,
    /// The seats expected to act now (`Game::awaiting`).
    pub awaiting: Vec<Seat>,
    /// The viewer's own rack during a round, slot 5 first.
    pub rack: Option<Vec<SlotCard>>,
    /// Every rack during a round, by seat: `Viewer::Everyone` only.
    pub racks: Option<Vec<Vec<SlotCard>>>,
    /// The card drawn and not yet played: for the drawer (and Everyone), or for all when it is
    /// an event card being carried out (R3.4 is done in the open).
    pub drawn: Option<Card>,
    /// The viewer's next Blitz card (R7.3).
    pub blitz_card: Option<Card>,
    /// During a Blitz deal, how many cards each seat has placed (public, by seat).
    pub blitz_placed: Vec<u8>,
    /// Bottom first; the last is the top card.
    pub discard: Vec<Card>,
    pub stock_size: u32,
    /// The current round's seed commitment (R9.2) while it is played.
    pub seed_commitment: Option<String>,
    /// Scores of every ended round, by seat.
    pub round_scores: Vec<Vec<u32>>,
    /// By seat.
    pub totals: Vec<u32>,
    /// With Partner (R7.1): team 0 (seats 0 and 2), team 1 (seats 1 and 3).
    pub team_totals: Option<Vec<u32>>,
    /// What the viewer may do now (empty for spectators and Everyone).
    pub legal_actions: Vec<Action>,
    /// The last ended round, racks and seed included (R8.2).
    pub last_round: Option<RoundResult>,
    /// When the game is over (R6.1; R10.3: never a resigned seat, empty when all resigned).
    pub winners: Option<Vec<Seat>>,
    /// R10.3: the seats that resigned, ascending (public, R10.4).
    pub resigned: Vec<Seat>,
    /// R10.2: by seat, the turns in a row on which it ran out of time (public, R10.4).
    pub timeouts: Vec<u8>,
}
