//! `Idempotency-Key`: a retried POST gets the first answer back instead of acting twice.
//!
//! The first successful answer is stored in the same transaction as the change it reports
//! (`service::write`), so either both exist or neither does. A request names what it
//! asks by a hash of method, path and canonical body; the same key with another request is
//! refused rather than silently answered with a stale reply.
//!
//! An action's answer (the caller's view and the events) is most of what the game's state and
//! log hold already, so its record keeps only what the change set and the log cannot give
//! back ([`StoredAs::Change`]); a retry rebuilds the answer from the log
//! (`service::write::rebuilt`) with the same code that built it the first time.

use chrono::{DateTime, Utc};
use serde::Serialize;
use sha2::{Digest, Sha256};
use uuid::Uuid;

use crate::error::{Code, ServiceError};
use crate::store::{IdempotencyRecord, Store, StoredAs};

/// Keys are opaque to us; the bound keeps them to something a client would generate.
const MAX_KEY_LEN: usize = 200;

/// A validated key together with the hash of the request it came with.
#[derive(Clone, Debug)]
pub struct IdempotencyKey {
    pub key: String,
    pub request_hash: String,
}

impl IdempotencyKey {
    /// `body` is the parsed request, serialized again so that formatting does not matter.
    pub fn new(
        key: &str,
        method: &str,
        path: &str,
        body: &impl Serialize,
    ) -> Result<IdempotencyKey, ServiceError> {
        let valid = !key.is_empty()
            && key.len() <= MAX_KEY_LEN
            && key.bytes().all(|b| b.is_ascii_graphic());
        if !valid {
            return Err(ServiceError::new(
                Code::InvalidIdempotencyKey,
                format!("Idempotency-Key must be 1 to {MAX_KEY_LEN} visible ASCII characters"),
            ));
        }
        let body = serde_json::to_vec(body).map_err(ServiceError::internal)?;
        let mut hash = Sha256::new();
        hash.update(method.as_bytes());
        hash.update(b" ");
        hash.update(path.as_bytes());
        hash.update(b"\n");
        hash.update(&body);
        Ok(IdempotencyKey {
            key: key.to_string(),
            request_hash: hex::encode(hash.finalize()),
        })
    }

    /// The record to store with the change made `at`: `body` is what `stored_as` says (the
    /// answer a retry will get, or what it is rebuilt from).
    pub fn record(
        &self,
        account: Uuid,
        status: u16,
        body: &impl Serialize,
        stored_as: StoredAs,
        at: DateTime<Utc>,
    ) -> Result<IdempotencyRecord, ServiceError> {
        Ok(IdempotencyRecord {
            account_id: account,
            key: self.key.clone(),
            request_hash: self.request_hash.clone(),
            status,
            body: serde_json::to_value(body).map_err(ServiceError::internal)?,
            created_at: at,
            stored_as,
        })
    }
}

/// An answer: done now, or the stored answer of an earlier request with the same key.
#[derive(Debug)]
pub enum Reply<T> {
    Fresh(T),
    Replayed {
        status: u16,
        body: serde_json::Value,
    },
}

/// Rebuilds a stored answer from a record kept as [`StoredAs::Change`].
pub type Rebuild<'a> = &'a dyn Fn(&serde_json::Value) -> Result<serde_json::Value, ServiceError>;

/// For requests whose records always hold the answer.
pub fn answers_only(_: &serde_json::Value) -> Result<serde_json::Value, ServiceError> {
    Err(ServiceError::internal(
        "an idempotency record of a change where an answer was expected",
    ))
}

/// The stored answer for this key, if the request was done before; 422
/// `idempotency_key_reused` when the key was used for another request.
pub fn stored<T>(
    store: &Store,
    account: Uuid,
    key: Option<&IdempotencyKey>,
    rebuild: Rebuild<'_>,
) -> Result<Option<Reply<T>>, ServiceError> {
    let Some(key) = key else { return Ok(None) };
    let Some(record) = store.idempotency_record(account, &key.key)? else {
        return Ok(None);
    };
    if record.request_hash != key.request_hash {
        return Err(ServiceError::new(
            Code::IdempotencyKeyReused,
            "this Idempotency-Key was used for another request",
        ));
    }
    let body = match record.stored_as {
        StoredAs::Answer => record.body,
        StoredAs::Change => rebuild(&record.body)?,
    };
    Ok(Some(Reply::Replayed {
        status: record.status,
        body,
    }))
}

/// Runs `work` once per key: a stored answer is returned as is; when `work` fails and a
/// request with the same key finished meanwhile (two retries raced, and the loser hit the
/// version check or the unique key), that request's answer is returned instead.
pub fn once<T>(
    store: &Store,
    account: Uuid,
    key: Option<&IdempotencyKey>,
    rebuild: Rebuild<'_>,
    work: impl FnOnce() -> Result<T, ServiceError>,
) -> Result<Reply<T>, ServiceError> {
    if let Some(reply) = stored(store, account, key, rebuild)? {
        return Ok(reply);
    }
    match work() {
        Ok(answer) => Ok(Reply::Fresh(answer)),
        Err(e) => match stored(store, account, key, rebuild)? {
            Some(reply) => Ok(reply),
            None => Err(e),
        },
    }
}
