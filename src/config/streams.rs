//! Bounds on open streams and long-polls, as configured (`notify::slots` enforces them).

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamLimits {
    pub per_account: usize,
    pub per_address: usize,
    pub total: usize,
    /// A stream whose client has taken no bytes for this long is disconnected.
    pub drop_after: std::time::Duration,
}

/// The soft limit on open files of this process (Linux), to size the default total.
pub fn open_files_limit() -> Option<usize> {
    let text = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = text.lines().find(|l| l.starts_with("Max open files"))?;
    line.split_whitespace().nth(3)?.parse().ok()
}

/// The default total: three quarters of the descriptors, less some for the database pool
/// and ordinary requests; 512 when the limit cannot be read.
pub fn default_total() -> usize {
    open_files_limit().map_or(512, |n| (n / 4 * 3).saturating_sub(64).max(16))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_total_leaves_room_below_the_descriptor_limit() {
        let total = default_total();
        if let Some(limit) = open_files_limit() {
            assert!(total < limit, "{total} of {limit}");
        }
        assert!(total >= 16);
    }
}
