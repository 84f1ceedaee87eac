//! What one viewer may see of a game (R8).

use serde::{Deserialize, Serialize};

use crate::Seat;

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

/// TODO(engine): the projection of a game for one viewer: phase and whose turn, the viewer's own
/// rack (slot by slot), own drawn card, own pending Blitz card, the discard pile, the stock size,
/// scores per round and totals (and team totals with Partner), the viewer's legal actions, and
/// after a round or the game ends what R8.2 reveals (every rack of the last ended round).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct View {
    pub viewer: Viewer,
}
