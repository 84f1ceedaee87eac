//! The statements' parts, checked.

use super::statement::*;

/// Each of the 32 statements holds exactly the parts its flags name, and is the one
/// `statement` gives for those flags.
#[test]
fn each_statement_holds_the_parts_its_change_needs() {
    for i in 0..32 {
        let parts = Parts::from_index(i);
        assert_eq!(parts.index(), i);
        let text = parts.statement();
        assert!(text.starts_with(GAME_AND_EVENTS));
        for (on, part) in [
            (parts.gone_seats, GONE_SEATS),
            (parts.changed_seats, CHANGED_SEATS),
            (parts.new_seats, NEW_SEATS),
            (parts.feed, FEED),
            (parts.idempotency, IDEMPOTENCY),
        ] {
            assert_eq!(text.contains(part), on, "statement {i}");
        }
        assert_eq!(text.contains(" heads h "), parts.feed, "statement {i}");
    }
}
