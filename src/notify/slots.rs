//! Bounds on open streams and long-polls: per account, per client address and in all, so that
//! one token or one address cannot take every descriptor of the process and leave nothing
//! for ordinary requests. A connection holds a [`Slot`] while it is open; dropping it (the
//! connection's end) gives the place back.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard};

use uuid::Uuid;

pub use crate::config::StreamLimits as Limits;
use crate::error::{Code, ServiceError};

/// Seconds a refused client is told to wait before trying again.
pub const RETRY_AFTER_SECS: u64 = 5;

#[derive(Default)]
struct Counts {
    total: usize,
    accounts: HashMap<Uuid, usize>,
    addresses: HashMap<IpAddr, usize>,
}

/// The open streams and long-polls of this process.
pub struct Slots {
    limits: Limits,
    counts: Mutex<Counts>,
}

/// One open stream or long-poll's place.
pub struct Slot {
    slots: Arc<Slots>,
    account: Uuid,
    address: Option<IpAddr>,
}

impl Slots {
    pub fn new(limits: Limits) -> Arc<Slots> {
        Arc::new(Slots {
            limits,
            counts: Mutex::new(Counts::default()),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Counts> {
        // Counts are changed by whole statements; a poisoned lock still holds good ones.
        self.counts.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A place for a connection of `account` from `address`, or 429 `too_many_requests`
    /// with `Retry-After` when one of the limits is reached.
    pub fn take(
        self: &Arc<Self>,
        account: Uuid,
        address: Option<IpAddr>,
    ) -> Result<Slot, ServiceError> {
        let mut counts = self.lock();
        let of_account = counts.accounts.get(&account).copied().unwrap_or(0);
        let of_address = address
            .and_then(|a| counts.addresses.get(&a).copied())
            .unwrap_or(0);
        let refused = if of_account >= self.limits.per_account {
            Some(format!(
                "this account has {of_account} streams or long-polls open, the most allowed"
            ))
        } else if of_address >= self.limits.per_address {
            Some(format!(
                "this address has {of_address} streams or long-polls open, the most allowed"
            ))
        } else if counts.total >= self.limits.total {
            Some("the server holds as many streams as it can; try again soon".to_string())
        } else {
            None
        };
        if let Some(detail) = refused {
            return Err(ServiceError {
                retry_after: Some(RETRY_AFTER_SECS),
                ..ServiceError::new(Code::TooManyRequests, detail)
            });
        }
        counts.total += 1;
        *counts.accounts.entry(account).or_insert(0) += 1;
        if let Some(address) = address {
            *counts.addresses.entry(address).or_insert(0) += 1;
        }
        Ok(Slot {
            slots: Arc::clone(self),
            account,
            address,
        })
    }

    /// Open streams and long-polls (for metrics and tests).
    pub fn open(&self) -> usize {
        self.lock().total
    }
}

fn release<K: std::hash::Hash + Eq>(map: &mut HashMap<K, usize>, key: &K) {
    if let Some(n) = map.get_mut(key) {
        *n = n.saturating_sub(1);
        if *n == 0 {
            map.remove(key);
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut counts = self.slots.lock();
        counts.total = counts.total.saturating_sub(1);
        release(&mut counts.accounts, &self.account);
        if let Some(address) = self.address {
            release(&mut counts.addresses, &address);
        }
    }
}

/// Raises the soft limit on open files to the hard one, so that a common default of 1,024
/// does not cap a server's connections; call once at start-up, before sizing the limits.
pub fn raise_open_files_limit() {
    #[cfg(target_os = "linux")]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit and setrlimit only read and write the struct passed by reference,
        // which lives on this stack frame for both calls.
        let raised = unsafe {
            libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0
                && limit.rlim_cur < limit.rlim_max
                && {
                    limit.rlim_cur = limit.rlim_max;
                    libc::setrlimit(libc::RLIMIT_NOFILE, &limit) == 0
                }
        };
        if raised {
            tracing::info!(open_files = limit.rlim_cur, "raised the open-files limit");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_limit_refuses_past_it_and_a_closed_slot_gives_its_place_back() {
        let slots = Slots::new(Limits {
            per_account: 2,
            per_address: 3,
            total: 4,
            drop_after: std::time::Duration::from_secs(60),
        });
        let (ann, bob, cid) = (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
        let home: IpAddr = [127, 0, 0, 1].into();
        let away: IpAddr = [127, 0, 0, 2].into();
        let a1 = slots.take(ann, Some(home)).expect("first");
        let _a2 = slots.take(ann, Some(home)).expect("second");
        let refused = slots.take(ann, Some(away)).err().expect("per account");
        assert_eq!(refused.code, Code::TooManyRequests);
        assert_eq!(refused.retry_after, Some(RETRY_AFTER_SECS));
        let _b1 = slots.take(bob, Some(home)).expect("third from home");
        assert!(slots.take(bob, Some(home)).is_err(), "per address");
        let _b2 = slots.take(bob, Some(away)).expect("another address");
        assert!(slots.take(cid, Some(away)).is_err(), "in all");
        drop(a1);
        assert_eq!(slots.open(), 3);
        slots.take(cid, Some(away)).expect("a place was given back");
    }
}
