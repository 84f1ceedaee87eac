//! Why an action or a setup was refused. Every variant has a stable snake_case `code()` that
//! the HTTP layer sends to clients. Messages never contain a card a seat may not see (R8).

use thiserror::Error;

#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum RulesError {
    #[error("invalid options: {0}")]
    InvalidOptions(String),
    #[error("invalid stacked deck: {0}")]
    InvalidStackedDeck(String),
    #[error("seat {0} is not at this table")]
    SeatOutOfRange(u8),
    #[error("slot {0} does not exist; slots are 5, 10, ..., 60")]
    SlotOutOfRange(u16),
    #[error("the game is over")]
    GameOver,
    #[error("no round is being played; the next round has not been dealt")]
    RoundNotStarted,
    #[error("a round is already being played")]
    RoundInProgress,
    #[error("it is not your turn")]
    NotYourTurn,
    #[error("only the dealer chooses the deal")]
    NotDealer,
    #[error("that action does not fit this moment of the play")]
    WrongPhase,
    #[error("that slot already holds a card")]
    SlotOccupied,
    #[error("the top discard is an event card and cannot be taken")]
    DiscardNotTakeable,
    #[error("you have drawn a card; place it or discard it")]
    CardAlreadyDrawn,
    #[error("you have not drawn a card")]
    NoCardDrawn,
    #[error("the drawn event card must be carried out first")]
    EventPending,
    #[error("there is no card to draw")]
    StockEmpty,
    #[error("you cannot swap with yourself or with a seat not at the table")]
    InvalidSwapTarget,
    #[error("your slot must hold a number card for a card swap")]
    NotANumberCard,
    #[error("your rack is not in order")]
    RackNotInOrder,
    /// R10.2: only a seat the game waits for (and that is not already being played for) can
    /// run out of time.
    #[error("that seat is not expected to act now")]
    NotAwaited,
    /// R10.3: a seat resigns once.
    #[error("that seat has resigned")]
    AlreadyResigned,
}

impl RulesError {
    /// The stable machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            RulesError::InvalidOptions(_) => "invalid_options",
            RulesError::InvalidStackedDeck(_) => "invalid_stacked_deck",
            RulesError::SeatOutOfRange(_) => "seat_out_of_range",
            RulesError::SlotOutOfRange(_) => "slot_out_of_range",
            RulesError::GameOver => "game_over",
            RulesError::RoundNotStarted => "round_not_started",
            RulesError::RoundInProgress => "round_in_progress",
            RulesError::NotYourTurn => "not_your_turn",
            RulesError::NotDealer => "not_dealer",
            RulesError::WrongPhase => "wrong_phase",
            RulesError::SlotOccupied => "slot_occupied",
            RulesError::DiscardNotTakeable => "discard_not_takeable",
            RulesError::CardAlreadyDrawn => "card_already_drawn",
            RulesError::NoCardDrawn => "no_card_drawn",
            RulesError::EventPending => "event_pending",
            RulesError::StockEmpty => "stock_empty",
            RulesError::InvalidSwapTarget => "invalid_swap_target",
            RulesError::NotANumberCard => "not_a_number_card",
            RulesError::RackNotInOrder => "rack_not_in_order",
            // The service's own `not_awaited` (no hint to give) means the same: the game does
            // not wait for this seat now.
            RulesError::NotAwaited => "not_awaited",
            RulesError::AlreadyResigned => "already_resigned",
        }
    }
}
