//! Long-polling: read, and when there is nothing yet, wait on the hub and read again, until
//! something comes or the time is up.

use std::time::Duration;

use super::Hub;
use super::{Session, Topic};
use crate::blocking::blocking;
use crate::error::{Code, ServiceError};
use crate::store::Store;

/// The longest `wait` a client may ask for, in seconds.
pub const MAX_WAIT_SECS: u64 = 60;

/// `wait` in seconds, checked: 0..=60 (default 0: answer at once).
pub fn checked(wait: Option<u64>) -> Result<Duration, ServiceError> {
    match wait.unwrap_or(0) {
        secs @ 0..=MAX_WAIT_SECS => Ok(Duration::from_secs(secs)),
        _ => Err(ServiceError::new(
            Code::InvalidWait,
            format!("wait must be 0..={MAX_WAIT_SECS} seconds"),
        )),
    }
}

/// Calls `read` until `has_news` holds for its answer or `wait` has passed; returns the last
/// answer. Woken by `topic`'s wake-ups, so a change answers at once. Ends with 401
/// `unauthorized` as soon as the session's token is revoked.
pub async fn until<T, F>(
    (store, hub): (&Store, &Hub),
    (topic, session): (Topic, Session),
    wait: Duration,
    read: F,
    has_news: impl Fn(&T) -> bool,
) -> Result<T, ServiceError>
where
    F: Fn(&Store) -> Result<T, ServiceError> + Clone + Send + 'static,
    T: Send + 'static,
{
    if wait.is_zero() {
        return blocking(store, read).await;
    }
    let deadline = tokio::time::Instant::now() + wait;
    let mut woken = hub.subscribe(topic);
    let mut sessions = session.watch(hub);
    let mut closing = hub.closing();
    let mut recheck = false;
    loop {
        woken.borrow_and_update();
        let answer = blocking(store, read.clone()).await?;
        // A revocation announced before or while the page was read: nothing of it goes out.
        if recheck || sessions.has_changed().unwrap_or(true) {
            sessions.borrow_and_update();
            if !session.holds(store, true).await {
                return Err(revoked());
            }
        }
        recheck = false;
        if has_news(&answer) || *closing.borrow() {
            return Ok(answer);
        }
        tokio::select! {
            _ = closing.changed() => return Ok(answer),
            changed = woken.changed() => {
                if changed.is_err() {
                    return Ok(answer);
                }
            }
            changed = sessions.changed() => {
                if changed.is_err() {
                    return Ok(answer);
                }
                recheck = true;
            }
            () = tokio::time::sleep_until(deadline) => return Ok(answer),
        }
    }
}

fn revoked() -> ServiceError {
    ServiceError::unauthorized("the token was revoked while waiting; sign in again")
}
