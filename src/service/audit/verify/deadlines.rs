//! R10.2 in a verification: every `turn_timed_out` came after a deadline of its own, a turn
//! time after the stage it ends began (times as recorded in the log).

use racko_rules::deadline::DeadlineCheck;
use racko_rules::Options;

use super::{discrepancy, VerifyError};
use crate::service::audit::export::GameExport;
use crate::service::LogEvent;

/// Checks the log's timeouts; returns how many there are.
pub(super) fn check_deadlines(doc: &GameExport, options: &Options) -> Result<usize, VerifyError> {
    let mut check = DeadlineCheck::new(options);
    for entry in &doc.events {
        let LogEvent::Play(event) = &entry.event else {
            continue;
        };
        check
            .observe(entry.at.timestamp_micros(), event)
            .map_err(|e| discrepancy(format!("event seq {} (turn_timed_out): {e}", entry.seq)))?;
    }
    Ok(check.timeouts())
}
