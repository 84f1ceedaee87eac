//! Why an input or a setup was refused. Every variant has a stable snake_case code
//! ([`RulesCode`]) that the HTTP layer sends to clients, declared once below with what it
//! means and its kind of [`Refusal`]: the server derives its codes, its error catalogue and
//! its API document from that list, so a new refusal is one entry here. Messages never
//! contain a card a seat may not see (R8).

use thiserror::Error;

/// What kind of refusal a code is: what a client can do about it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Refusal {
    /// The setup of a game breaks a rule: its options or its stacked deck (R1.1, R1.4, R7.1).
    Setup,
    /// The input names what is not at the table (a seat, a slot): it can never be played.
    Invalid,
    /// Not legal at this moment of the play; it may be later.
    NotNow,
    /// Never again in this game: the game is over, or the seat has resigned.
    Final,
}

/// Declares the refusals once: `RulesError` (with its messages), `RulesCode` (one fieldless
/// code each, with its wire name, meaning and kind) and the list of all codes.
macro_rules! refusals {
    ($(
        $(#[$attr:meta])*
        $variant:ident $(($field:ty))? = $code:literal, $refusal:ident, $meaning:literal;
    )*) => {
        /// Why an input or a setup was refused.
        #[derive(Clone, Debug, PartialEq, Eq, Error)]
        pub enum RulesError {
            $($(#[$attr])* $variant $(($field))?,)*
        }

        /// The code of each [`RulesError`], without its details.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum RulesCode {
            $($variant,)*
        }

        impl RulesError {
            /// The code, without the details.
            pub fn rules_code(&self) -> RulesCode {
                match self {
                    $(RulesError::$variant { .. } => RulesCode::$variant,)*
                }
            }

            /// One error of each code, in the order declared (for tests of what maps them).
            pub fn examples() -> Vec<RulesError> {
                vec![$(RulesError::$variant $((<$field>::default()))?,)*]
            }
        }

        impl RulesCode {
            /// Every code, in the order declared.
            pub const ALL: &'static [RulesCode] = &[$(RulesCode::$variant,)*];

            /// The stable snake_case name sent to clients.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(RulesCode::$variant => $code,)*
                }
            }

            /// What the refusal means, in a sentence for the error catalogue.
            pub const fn meaning(self) -> &'static str {
                match self {
                    $(RulesCode::$variant => $meaning,)*
                }
            }

            /// What kind of refusal it is.
            pub const fn refusal(self) -> Refusal {
                match self {
                    $(RulesCode::$variant => Refusal::$refusal,)*
                }
            }
        }
    };
}

refusals! {
    #[error("invalid options: {0}")]
    InvalidOptions(String) = "invalid_options", Setup,
        "The game's options break a rule; `detail` says which.";
    #[error("invalid stacked deck: {0}")]
    InvalidStackedDeck(String) = "invalid_stacked_deck", Setup,
        "The stacked deck is not a full, valid deck.";
    #[error("seat {0} is not at this table")]
    SeatOutOfRange(u8) = "seat_out_of_range", Invalid, "The seat is not at this table.";
    #[error("slot {0} does not exist; slots are 5, 10, ..., 60")]
    SlotOutOfRange(u16) = "slot_out_of_range", Invalid,
        "The slot does not exist; slots are 5, 10, …, 60.";
    #[error("the game is over")]
    GameOver = "game_over", Final, "The game is over.";
    #[error("no round is being played; the next round has not been dealt")]
    RoundNotStarted = "round_not_started", NotNow,
        "No round is being played; the next has not been dealt.";
    #[error("a round is already being played")]
    RoundInProgress = "round_in_progress", NotNow, "A round is being played already.";
    #[error("it is not your turn")]
    NotYourTurn = "not_your_turn", NotNow, "It is another seat's turn.";
    #[error("only the dealer chooses the deal")]
    NotDealer = "not_dealer", NotNow, "Only the dealer chooses the deal.";
    #[error("that action does not fit this moment of the play")]
    WrongPhase = "wrong_phase", NotNow, "The action does not fit this moment of the play.";
    #[error("that slot already holds a card")]
    SlotOccupied = "slot_occupied", NotNow, "That slot holds a card already.";
    #[error("the top discard is an event card and cannot be taken")]
    DiscardNotTakeable = "discard_not_takeable", NotNow,
        "The top discard is an event card and cannot be taken.";
    #[error("you have drawn a card; place it or discard it")]
    CardAlreadyDrawn = "card_already_drawn", NotNow,
        "A card is drawn; place it or discard it first.";
    #[error("you have not drawn a card")]
    NoCardDrawn = "no_card_drawn", NotNow, "No card is drawn yet.";
    #[error("the drawn event card must be carried out first")]
    EventPending = "event_pending", NotNow, "The drawn event card must be carried out first.";
    #[error("there is no card to draw")]
    StockEmpty = "stock_empty", NotNow, "There is no card to draw.";
    #[error("you cannot swap with yourself or with a seat not at the table")]
    InvalidSwapTarget = "invalid_swap_target", NotNow,
        "A swap needs another seat at the table.";
    #[error("your slot must hold a number card for a card swap")]
    NotANumberCard = "not_a_number_card", NotNow,
        "A card swap needs a number card in the slot.";
    #[error("your rack is not in order")]
    RackNotInOrder = "rack_not_in_order", NotNow,
        "The rack is not in order, so Racko cannot be called.";
    /// R10.2: only a seat the game waits for (and that is not already being played for) can
    /// run out of time. (The service sends the same code when it has nothing for a seat to
    /// do, e.g. no hint: the game does not wait for this seat now.)
    #[error("that seat is not expected to act now")]
    NotAwaited = "not_awaited", NotNow, "The game does not wait for this seat now.";
    /// R10.3: a seat resigns once.
    #[error("that seat has resigned")]
    AlreadyResigned = "already_resigned", Final, "The seat has resigned already.";
}

impl RulesError {
    /// The stable machine-readable code.
    pub fn code(&self) -> &'static str {
        self.rules_code().as_str()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_example_and_one_unique_code_per_refusal() {
        let examples = RulesError::examples();
        let codes: Vec<RulesCode> = examples.iter().map(RulesError::rules_code).collect();
        assert_eq!(codes, RulesCode::ALL);
        let mut names: Vec<&str> = RulesCode::ALL.iter().map(|c| c.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), RulesCode::ALL.len(), "a code twice");
        for code in RulesCode::ALL {
            let name = code.as_str();
            assert!(name.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'));
            assert!(code.meaning().ends_with('.'), "{name}");
        }
    }

    #[test]
    fn r10_timeouts_and_resigning_have_their_own_refusals() {
        assert_eq!(RulesCode::NotAwaited.refusal(), Refusal::NotNow);
        assert_eq!(RulesCode::AlreadyResigned.refusal(), Refusal::Final);
        assert_eq!(RulesError::AlreadyResigned.code(), "already_resigned");
    }
}
