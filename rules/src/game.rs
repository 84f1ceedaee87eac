//! The state of a game and the transitions of the rules (R2..R7).

use serde::{Deserialize, Serialize};

use crate::{Action, Event, Options, RoundDeal, RulesError, Seat, View, Viewer};

/// Where in the play a game is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Phase {
    /// Before the first round and between rounds: the caller must `start_round`.
    AwaitingRound,
    /// R7.3 dealer's choice: the dealer picks the kind of deal.
    ChoosingDeal { dealer: Seat },
    /// R7.3: every seat with an empty slot places its next dealt card.
    BlitzDeal,
    /// R3: `seat` is on turn.
    Turn { seat: Seat, stage: TurnStage },
    /// R6.1
    GameOver { winners: Vec<Seat> },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum TurnStage {
    /// Take the discard or draw (R3.1).
    Begin,
    /// A number card or joker was drawn: place or discard it (R3.2).
    Drawn,
    /// A card swap must be carried out (R3.4, R2.4).
    CardSwap,
    /// A rack swap must be carried out (R3.4, R2.4).
    RackSwap,
}

/// A whole game. It serializes (serde) completely, hidden cards and seeds included: the server
/// stores it as the current state. Never send it to a client; send `view()` instead.
/// TODO(engine): the fields are the engine's choice.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Game {
    options: Options,
}

impl Game {
    /// A new game waiting for its first round; `invalid_options` when `options` break R1.1,
    /// R1.4 or R7.1.
    pub fn new(options: Options) -> Result<Game, RulesError> {
        options.validate()?;
        todo!()
    }

    pub fn options(&self) -> &Options {
        &self.options
    }

    pub fn phase(&self) -> &Phase {
        todo!()
    }

    /// Rounds started so far (0 before the first deal).
    pub fn round(&self) -> u32 {
        todo!()
    }

    /// True when `round` has ended (R8.2 then makes all of it public).
    pub fn round_closed(&self, round: u32) -> bool {
        todo!("{round}")
    }

    /// True when the caller must deal the next round.
    pub fn needs_round(&self) -> bool {
        matches!(self.phase(), Phase::AwaitingRound)
    }

    pub fn is_over(&self) -> bool {
        matches!(self.phase(), Phase::GameOver { .. })
    }

    /// The seats that are expected to act now (whose turn it is, the choosing dealer, the seats
    /// still placing Blitz cards); a Racko call is possible beyond these. For "my turn" inboxes.
    pub fn awaiting(&self) -> Vec<Seat> {
        todo!()
    }

    /// Deals the next round (R2, R7.3): `round_in_progress` unless `needs_round()`.
    pub fn start_round(&self, deal: &RoundDeal) -> Result<(Game, Vec<Event>), RulesError> {
        let mut next = self.clone();
        let events = next.start_round_mut(deal)?;
        Ok((next, events))
    }

    /// As `start_round`, in place; on error `self` is unchanged.
    pub fn start_round_mut(&mut self, deal: &RoundDeal) -> Result<Vec<Event>, RulesError> {
        todo!("{deal:?}")
    }

    /// Applies `action` of `seat`. On success, the new game and the events, in order; on error
    /// `self` is untouched. An action is accepted exactly when `legal_actions(seat)` lists it.
    pub fn apply(&self, seat: Seat, action: &Action) -> Result<(Game, Vec<Event>), RulesError> {
        let mut next = self.clone();
        let events = next.apply_mut(seat, action)?;
        Ok((next, events))
    }

    /// As `apply`, in place (checks fully before it changes anything).
    pub fn apply_mut(&mut self, seat: Seat, action: &Action) -> Result<Vec<Event>, RulesError> {
        todo!("{seat} {action:?}")
    }

    /// Exactly the actions `seat` may take now; empty when none (or `seat` is not at the table).
    pub fn legal_actions(&self, seat: Seat) -> Vec<Action> {
        todo!("{seat}")
    }

    /// The R8 projection for `viewer`, with the viewer's legal actions.
    pub fn view(&self, viewer: Viewer) -> View {
        todo!("{viewer:?}")
    }
}
