//! The state of a game and the transitions of the rules (R2..R7).
//!
//! The work is split by moment of play: `deal` deals a round (R2, R7.3), `turn` checks and
//! carries out the actions of a turn (R3, R4.2), `end` scores a round and ends the game (R5,
//! R6, R7.1), `legal` lists the legal actions, `project` builds the views (R8) and `outlast`
//! holds the service's rules for games that outlast their players: timeouts and resigning
//! (R10).

mod deal;
mod end;
mod known;
mod legal;
mod outlast;
mod project;
mod stored;
mod turn;

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::deck::deal_index;
use crate::view::RoundResult;
use crate::{
    Action, Card, DeckCounts, Event, Input, Options, Rack, RoundDeal, RulesError, Seat, Seed, Slot,
    StackedDeck, View, Viewer,
};

/// Where in the play a game is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Phase {
    /// Before the first round and between rounds. No player acts here: the server deals the
    /// next round by itself, and clients read the game again.
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

/// The Blitz deal in progress (R7.3).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct BlitzDeal {
    /// The number cards in deal order (R2.2); seat s's k-th card is at
    /// [`deal_index`]`(s, k, ..)`.
    deal: Vec<u16>,
    /// Per seat, bit i set when slot index i holds its card. Empty slots of `Game::racks` hold
    /// a placeholder that no view or event ever shows.
    filled: Vec<u16>,
}

/// Every slot filled.
const FULL_RACK: u16 = (1 << 12) - 1;

/// A whole game. It serializes (serde) completely, hidden cards and seeds included: the server
/// stores it as the current state, its cards as numbers (`stored`). Never send it to a client;
/// send `view()` instead.
///
/// The fields are declared in the order they are stored: what a round never changes first and
/// what an action changes last (stock, racks, discard, drawn card, phase). PostgreSQL logs an
/// update of a row that stays on its page as the bytes between the first and the last that
/// changed, so this order keeps the write-ahead log of an action to about a quarter of the
/// state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Game {
    options: Options,
    /// The deck in use (R1.4), resolved once.
    deck: DeckCounts,
    /// Rounds started so far.
    round: u32,
    /// The dealer of the current (or last) round.
    dealer: Seat,
    /// The seed of the current (or last) round (R9).
    seed: Seed,
    /// Scores of every ended round, by seat.
    round_scores: Vec<Vec<u32>>,
    /// Totals by seat (R6.1).
    totals: Vec<u32>,
    /// The last ended round, public (R8.2).
    #[serde(with = "stored::last_round")]
    last_round: Option<RoundResult>,
    /// R10.3: the seats that resigned, ascending. (Games stored before R10 have none.)
    #[serde(default)]
    resigned: Vec<Seat>,
    /// R10.2: each seat's count of turns in a row on which it ran out of time; seats with
    /// none are absent, so that a game stored before R10 equals its replay.
    #[serde(default)]
    timeouts: BTreeMap<Seat, u8>,
    /// R10.2: the seat whose deadline passed and for which the service is acting, until the
    /// game no longer awaits it.
    #[serde(default)]
    played_for: Option<Seat>,
    /// A stacked deck waiting for the dealer's choice (R7.3).
    pending_stack: Option<StackedDeck>,
    blitz: Option<BlitzDeal>,
    /// Shuffle streams used so far in this round; the next reshuffle uses this stream (R9.1).
    shuffles: u64,
    /// What each seat knows of the other racks from public facts (R8.1); none in games
    /// stored before it was kept.
    #[serde(default, skip_serializing_if = "known::Known::is_empty")]
    known: known::Known,
    /// The face-down stock, bottom first: the top card is the last (so drawing is a pop, and
    /// leaves the stored bytes before it as they were).
    #[serde(with = "stored::cards")]
    stock: Vec<Card>,
    /// `racks[s]` is seat s's rack.
    #[serde(with = "stored::racks")]
    racks: Vec<Rack>,
    /// The discard pile, bottom first: the top card is the last.
    #[serde(with = "stored::cards")]
    discard: Vec<Card>,
    /// The card the player on turn has drawn and not yet placed, discarded or carried out.
    #[serde(with = "stored::card")]
    drawn: Option<Card>,
    phase: Phase,
}

impl Game {
    /// A new game waiting for its first round; `invalid_options` when `options` break R1.1,
    /// R1.4 or R7.1.
    pub fn new(options: Options) -> Result<Game, RulesError> {
        options.validate()?;
        let players = usize::from(options.players);
        Ok(Game {
            deck: options.deck_counts(),
            options,
            phase: Phase::AwaitingRound,
            round: 0,
            dealer: 0,
            seed: Seed([0; 32]),
            shuffles: 0,
            pending_stack: None,
            racks: vec![Rack([Card::Joker; 12]); players],
            known: known::Known::default(),
            stock: Vec::new(),
            discard: Vec::new(),
            drawn: None,
            blitz: None,
            round_scores: Vec::new(),
            totals: vec![0; players],
            last_round: None,
            resigned: Vec::new(),
            timeouts: BTreeMap::new(),
            played_for: None,
        })
    }

    pub fn options(&self) -> &Options {
        &self.options
    }

    pub fn phase(&self) -> &Phase {
        &self.phase
    }

    /// Rounds started so far (0 before the first deal).
    pub fn round(&self) -> u32 {
        self.round
    }

    /// True when `round` has ended (R8.2 then makes all of it public).
    pub fn round_closed(&self, round: u32) -> bool {
        round < self.round || (round == self.round && !self.in_round())
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
        match &self.phase {
            Phase::ChoosingDeal { dealer } => vec![*dealer],
            Phase::Turn { seat, .. } => vec![*seat],
            Phase::BlitzDeal => self
                .seats()
                .filter(|s| self.blitz_card(*s).is_some())
                .collect(),
            Phase::AwaitingRound | Phase::GameOver { .. } => Vec::new(),
        }
    }

    /// Plays one `input` (a deal, an action, a timeout, a resignation): on success the new game
    /// and the events, in order; on error `self` is untouched. Refusals: a deal is
    /// `round_in_progress` unless `needs_round()`; an action is accepted exactly when
    /// `legal_actions(seat)` lists it; a timeout and a resignation as R10.2 and R10.3 say
    /// (`outlast`).
    pub fn play(&self, input: &Input) -> Result<(Game, Vec<Event>), RulesError> {
        let mut next = self.clone();
        let events = next.play_mut(input)?;
        Ok((next, events))
    }

    /// As `play`, in place; on error `self` is unchanged (each input is checked fully before
    /// anything changes).
    pub fn play_mut(&mut self, input: &Input) -> Result<Vec<Event>, RulesError> {
        let events = match input {
            Input::Deal(deal) => self.deal(deal),
            Input::Act { seat, action } => self.act(*seat, action),
            Input::TimeOut { seat } => self.time_out(*seat),
            Input::Resign { seat } => self.resign(*seat),
        }?;
        // Every input passes here, so what each seat knows follows every event.
        self.known.learn(&events, self.players(), &self.racks);
        Ok(events)
    }

    /// `play` of a deal, for the tests and tools that deal by hand.
    pub fn start_round(&self, deal: &RoundDeal) -> Result<(Game, Vec<Event>), RulesError> {
        self.play(&Input::Deal(deal.clone()))
    }

    /// `play_mut` of a deal.
    pub fn start_round_mut(&mut self, deal: &RoundDeal) -> Result<Vec<Event>, RulesError> {
        self.play_mut(&Input::Deal(deal.clone()))
    }

    /// `play` of one action, for the computer players, tests and tools.
    pub fn apply(&self, seat: Seat, action: &Action) -> Result<(Game, Vec<Event>), RulesError> {
        let mut next = self.clone();
        let events = next.apply_mut(seat, action)?;
        Ok((next, events))
    }

    /// `play_mut` of one action.
    pub fn apply_mut(&mut self, seat: Seat, action: &Action) -> Result<Vec<Event>, RulesError> {
        self.play_mut(&Input::Act {
            seat,
            action: *action,
        })
    }

    /// Deals the next round (R2, R7.3).
    fn deal(&mut self, deal: &RoundDeal) -> Result<Vec<Event>, RulesError> {
        match self.phase {
            Phase::AwaitingRound => {}
            Phase::GameOver { .. } => return Err(RulesError::GameOver),
            _ => return Err(RulesError::RoundInProgress),
        }
        if let Some(stacked) = &deal.stacked {
            stacked.validate(&self.deck, self.options.players)?;
        }
        let mut events = Vec::with_capacity(4);
        self.deal_round(deal, &mut events);
        Ok(events)
    }

    /// Carries out `action` of `seat`.
    ///
    /// R10.2: an action of a seat that is not being played for resets its count of timeouts;
    /// once the game no longer awaits the seat being played for, it may resign for timeouts
    /// (`Resigned` and its consequences end these events).
    fn act(&mut self, seat: Seat, action: &Action) -> Result<Vec<Event>, RulesError> {
        self.check(seat, action)?;
        if self.played_for != Some(seat) {
            self.timeouts.remove(&seat);
        }
        let mut events = Vec::with_capacity(4);
        self.perform(seat, *action, &mut events);
        self.settle_played_for(&mut events);
        Ok(events)
    }

    /// Exactly the actions `seat` may take now; empty when none (or `seat` is not at the table).
    pub fn legal_actions(&self, seat: Seat) -> Vec<Action> {
        let mut actions = Vec::new();
        self.legal_actions_into(seat, &mut actions);
        actions
    }

    /// The R8 projection for `viewer`, with the viewer's legal actions.
    pub fn view(&self, viewer: Viewer) -> View {
        self.project(viewer)
    }

    /// The rack of `seat` as it stands (for tests and audits; it holds hidden cards).
    pub fn rack(&self, seat: Seat) -> Option<&Rack> {
        self.racks.get(usize::from(seat))
    }

    /// The discard pile, bottom first (public, R8.1).
    pub fn discard_pile(&self) -> &[Card] {
        &self.discard
    }

    /// The number of cards in the stock (public, R8.1).
    pub fn stock_size(&self) -> usize {
        self.stock.len()
    }

    /// Totals by seat (R6.1).
    pub fn totals(&self) -> &[u32] {
        &self.totals
    }

    fn players(&self) -> u8 {
        self.options.players
    }

    fn seats(&self) -> impl Iterator<Item = Seat> {
        0..self.players()
    }

    /// The seat left of `seat` (R1.1).
    fn left_of(&self, seat: Seat) -> Seat {
        (seat + 1) % self.players()
    }

    /// The start player of the current round (R2.1).
    fn start_seat(&self) -> Seat {
        self.left_of(self.dealer)
    }

    fn in_round(&self) -> bool {
        matches!(
            self.phase,
            Phase::ChoosingDeal { .. } | Phase::BlitzDeal | Phase::Turn { .. }
        )
    }

    fn rack_cards(&self, seat: Seat) -> &[Card; 12] {
        &self.racks[usize::from(seat)].0
    }

    /// The card Blitz would deal to `seat` next, if it still has an empty slot (R7.3).
    fn blitz_card(&self, seat: Seat) -> Option<Card> {
        let blitz = self.blitz.as_ref()?;
        let filled = *blitz.filled.get(usize::from(seat))?;
        if filled == FULL_RACK {
            return None;
        }
        let received = filled.count_ones() as usize;
        let index = deal_index(seat, received, self.players(), self.start_seat());
        let value = *blitz.deal.get(index)?;
        Some(Card::Number { value })
    }

    /// True when the Blitz deal has filled slot `index` of `seat`, or no Blitz deal is on.
    fn slot_filled(&self, seat: Seat, index: usize) -> bool {
        match &self.blitz {
            Some(blitz) => blitz.filled[usize::from(seat)] & (1 << index) != 0,
            None => true,
        }
    }
}

/// The index of a slot label, or `slot_out_of_range`.
fn slot_index(slot: Slot) -> Result<usize, RulesError> {
    slot.index().ok_or(RulesError::SlotOutOfRange(slot.0))
}
