//! `racko verify FILE`, the offline check of an export.

use super::{parse, unusable, verify};

/// `racko verify FILE`: prints what was checked (stdout) or the first problem (stderr) and
/// returns the exit code: 0 verified, 1 a discrepancy, 2 the file cannot be verified.
pub fn run_cli(path: &std::path::Path) -> i32 {
    let outcome = std::fs::read_to_string(path)
        .map_err(|e| unusable(format!("cannot read {}: {e}", path.display())))
        .and_then(|text| parse(&text))
        .and_then(|doc| verify(&doc));
    match outcome {
        Ok(report) => {
            print!("verified {report}");
            0
        }
        Err(e) => {
            eprintln!("{}: {e}", path.display());
            e.exit_code()
        }
    }
}
