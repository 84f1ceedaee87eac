//! Memory that a burst of sign-ups takes is given back to the OS afterwards.
//!
//! Each argon2id hash allocates one 19 MiB block. glibc's malloc serves blocks that large with
//! `mmap` and unmaps them on free, but only until the first such free: then it raises its
//! threshold to the freed size, and later blocks come from per-thread arenas that keep the
//! memory (a server held about 1 GB after 120 sign-ups). Fixing the threshold turns
//! that adjustment off, so every hash's block is unmapped when the hash is done. Hashes run at
//! most one per CPU at once (`auth::HASHING`), which bounds the peak.

/// Blocks at least this large are always mapped and unmapped on their own.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MMAP_THRESHOLD: libc::c_int = 1 << 20;

/// Call once at start-up (calling again is harmless). `RACKO_MALLOC_DEFAULTS=1` leaves
/// glibc's defaults, only so that `scripts/bench-signup-memory.sh` can compare both.
pub fn return_large_blocks() {
    if std::env::var_os("RACKO_MALLOC_DEFAULTS").is_some_and(|v| v == "1") {
        tracing::info!("RACKO_MALLOC_DEFAULTS=1: malloc keeps its default thresholds");
        return;
    }
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes a malloc tunable; it is thread-safe in glibc and takes no
    // pointer. A zero return means the value was refused, which leaves the default in place.
    let accepted = unsafe { libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD) } != 0;
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    let accepted = false;
    if !accepted {
        tracing::debug!("malloc threshold not set; large blocks may be kept after use");
    }
}
