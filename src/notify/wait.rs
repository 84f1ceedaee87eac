//! Long-polling: read, and when there is nothing yet, wait on the hub and read again, until
//! something comes or the time is up.

use std::time::Duration;

use super::Topic;
use crate::app::blocking;
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
/// answer. Woken by `topic`'s wake-ups, so a change answers at once.
pub async fn until<T, F>(
    store: &Store,
    topic: Topic,
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
    let mut woken = store.hub().subscribe(topic);
    loop {
        woken.borrow_and_update();
        let answer = blocking(store, read.clone()).await?;
        if has_news(&answer) {
            return Ok(answer);
        }
        match tokio::time::timeout_at(deadline, woken.changed()).await {
            Ok(Ok(())) => continue,
            Ok(Err(_)) | Err(_) => return Ok(answer),
        }
    }
}
