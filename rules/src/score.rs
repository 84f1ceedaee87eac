//! Order and scoring (R4.1, R5, R7.2).

use crate::Card;

/// R4.1: each number card higher than every number card before it; jokers fit anywhere.
pub fn in_order(rack: &[Card]) -> bool {
    todo!("{}", rack.len())
}

/// R5.2: the number of cards of the ordered prefix from slot 5.
pub fn ordered_prefix(rack: &[Card]) -> usize {
    todo!("{}", rack.len())
}

/// R7.2: the longest direct sequence, jokers reading as the number the run needs within
/// 1..=max_number.
pub fn longest_sequence(rack: &[Card], max_number: u16) -> usize {
    todo!("{} {max_number}", rack.len())
}

/// R7.2: the bonus for a sequence length (0 below 3).
pub fn sequence_bonus(len: usize) -> u32 {
    todo!("{len}")
}
