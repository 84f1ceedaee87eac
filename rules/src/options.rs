//! Game options chosen at creation (R1.4, R6.1, R7).

use serde::{Deserialize, Serialize};

use crate::RulesError;

/// How the Blitz variant is used (R7.3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum BlitzMode {
    #[default]
    Off,
    EveryRound,
    /// The dealer decides before each deal (`Action::ChooseDeal`).
    DealersChoice,
}

/// The cards in the deck (R1.4). Counts are wide integers so that a too-large count is a clear
/// `invalid_options` error and not a parse error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct DeckCounts {
    /// Number cards are 1..=max_number, each once.
    pub max_number: u16,
    pub jokers: u16,
    pub card_swaps: u16,
    pub skips: u16,
    pub rack_swaps: u16,
}

impl DeckCounts {
    /// The default deck for a player count (R1.4 table), None outside 2..=4.
    pub fn default_for(players: u8) -> Option<DeckCounts> {
        todo!("R1.4 table: {players}")
    }
}

/// Everything fixed at game creation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields, default)]
pub struct Options {
    /// 2..=4 (R1.1); exactly 4 with `partner`.
    pub players: u8,
    /// R7.1
    pub partner: bool,
    /// R7.2
    pub bonus: bool,
    /// R7.3
    pub blitz: BlitzMode,
    /// R6.1, default 500.
    pub target: u32,
    /// None: the R1.4 default for the player count.
    pub deck: Option<DeckCounts>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            players: 2,
            partner: false,
            bonus: false,
            blitz: BlitzMode::Off,
            target: 500,
            deck: None,
        }
    }
}

impl Options {
    /// Checks R1.1, R1.4 and R7.1; the error is `invalid_options` with a message that says
    /// which value is wrong.
    pub fn validate(&self) -> Result<(), RulesError> {
        todo!()
    }
    /// The deck in use: `deck` or the default for the player count.
    pub fn deck_counts(&self) -> DeckCounts {
        todo!()
    }
}
