//! Computer players at the table. A computer seat is held by one of twelve fixed
//! accounts, one per level and seat number (created by migration 8, no password, no token), so
//! a table may hold several computers of one level and the log names the computer as the
//! actor of its moves. Its moves are made by the sweeper (`sweep`), never inside a player's
//! request.

use racko_bots::Level;
use racko_rules::Seat;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::error::{Code, ServiceError};
use crate::store::SeatRecord;

/// A seat a game is created with, played by the computer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"seat": 1, "level": "expert"}))]
pub struct ComputerSeat {
    /// 1 to `players` - 1 (the creator sits at seat 0).
    #[schema(minimum = 1, maximum = 3, value_type = u8)]
    pub seat: Seat,
    pub level: Level,
}

/// Account ids 00000000-0000-0000-0000-00000000c0LS: L the level's index, S the seat.
const BASE: u128 = 0xc000;

fn index(level: Level) -> u128 {
    match level {
        Level::Random => 0,
        Level::Basic => 1,
        Level::Strong => 2,
        Level::Expert => 3,
    }
}

/// The account that holds `seat` for a computer of `level`.
pub fn account(level: Level, seat: Seat) -> Uuid {
    Uuid::from_u128(BASE | index(level) << 4 | u128::from(seat))
}

/// The level of the computer holding `account`, if it is one.
pub fn level_of(account: Uuid) -> Option<Level> {
    let id = account.as_u128();
    let seat = id & 0xf;
    let level = (id >> 4) & 0xf;
    if id & !0xff != BASE || seat > 3 {
        return None;
    }
    Level::ALL.into_iter().find(|l| index(*l) == level)
}

/// The seat record of a computer seat (its username is the account's).
pub fn seat_record(computer: ComputerSeat) -> SeatRecord {
    SeatRecord {
        seat: computer.seat,
        account_id: account(computer.level, computer.seat),
        username: format!("computer-{}-{}", computer.level, computer.seat),
        awaiting: false,
        deadline: None,
        reminded: false,
        away_until: None,
    }
}

/// Checks a creation's computer seats: each one of seats 1 .. players - 1, at most once.
pub fn check(seats: &[ComputerSeat], players: u8) -> Result<(), ServiceError> {
    for (i, computer) in seats.iter().enumerate() {
        if computer.seat == 0 || computer.seat >= players {
            return Err(ServiceError::new(
                Code::InvalidComputerSeat,
                format!(
                    "computer seat {} does not exist: seats 1 to {} can be computers (the \
                     creator sits at seat 0)",
                    computer.seat,
                    players.saturating_sub(1)
                ),
            ));
        }
        if seats[..i].iter().any(|c| c.seat == computer.seat) {
            return Err(ServiceError::new(
                Code::InvalidComputerSeat,
                format!("seat {} is named twice", computer.seat),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_level_and_seat_has_its_own_account_and_reads_back() {
        let mut seen = std::collections::HashSet::new();
        for level in Level::ALL {
            for seat in 0..4 {
                let id = account(level, seat);
                assert!(seen.insert(id));
                assert_eq!(level_of(id), Some(level));
            }
        }
        assert_eq!(
            account(Level::Strong, 1).to_string(),
            "00000000-0000-0000-0000-00000000c021",
            "the ids migration 8 inserts"
        );
        assert_eq!(level_of(Uuid::new_v4()), None);
        assert_eq!(level_of(Uuid::from_u128(0xc034)), None);
    }
}
