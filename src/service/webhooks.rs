//! Webhook endpoints of the caller's account: register (the signing secret is
//! shown once), list, delete, rotate the secret, and read the delivery log. Deliveries are
//! written to the outbox with the feed items (`store::feed`) and sent by `notify::deliver`.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use super::Caller;
use crate::error::{Code, ServiceError};
use crate::notify::address::Guard;
use crate::notify::signing;
use crate::store::{Delivery, NewWebhook, Store, StoreError, Webhook};

/// The feed kinds an endpoint may ask for.
pub const KINDS: &[&str] = &[
    "your_turn",
    "deadline_near",
    "game_started",
    "player_joined",
    "player_left",
    "game_finished",
    "game_cancelled",
    "invited",
    "webhook_disabled",
];
/// A kind of feed item an endpoint may ask for.
// The names of `KINDS`, for the document (a test keeps the two equal).
#[derive(Clone, Copy, Debug, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum FeedKind {
    YourTurn,
    DeadlineNear,
    GameStarted,
    PlayerJoined,
    PlayerLeft,
    GameFinished,
    GameCancelled,
    Invited,
    WebhookDisabled,
}

impl FeedKind {
    pub const ALL: [FeedKind; 9] = [
        FeedKind::YourTurn,
        FeedKind::DeadlineNear,
        FeedKind::GameStarted,
        FeedKind::PlayerJoined,
        FeedKind::PlayerLeft,
        FeedKind::GameFinished,
        FeedKind::GameCancelled,
        FeedKind::Invited,
        FeedKind::WebhookDisabled,
    ];
}

/// Endpoints per account.
pub const MAX_ENDPOINTS: usize = 10;
/// Longest URL accepted.
const MAX_URL: usize = 2000;
/// Deliveries shown in the log.
const LOG_LIMIT: i64 = 100;

/// An endpoint to register.
#[derive(Clone, Debug, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"url": "https://example.com/racko-hook", "kinds": ["your_turn", "game_finished"]}))]
pub struct WebhookRequest {
    /// Where to POST: http or https, at most 2000 characters, no credentials, not resolving to
    /// an internal address.
    #[schema(
        format = "uri",
        min_length = 8,
        max_length = 2000,
        pattern = "^[Hh][Tt][Tt][Pp][Ss]?://"
    )]
    pub url: String,
    /// Feed kinds to deliver; empty or missing: all.
    #[serde(default)]
    #[schema(inline, value_type = Vec<FeedKind>)]
    pub kinds: Vec<String>,
}

/// An endpoint as its owner sees it (never its secret).
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct WebhookView {
    pub id: Uuid,
    pub url: String,
    /// Empty: every kind.
    pub kinds: Vec<String>,
    /// False once it kept failing for the whole retry period; rotating the secret enables it.
    pub enabled: bool,
    pub created_at: DateTime<Utc>,
}

/// The answer to create and rotate: the secret, shown this once.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct WebhookSecret {
    pub webhook: WebhookView,
    /// `whsec_<base64 key>`: verify `webhook-signature` with it (Standard Webhooks).
    pub secret: String,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct WebhookList {
    pub webhooks: Vec<WebhookView>,
}

/// One delivery (one feed item to one endpoint) and how its attempts went.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct DeliveryView {
    /// The `webhook-id` header: the same on every attempt.
    pub id: String,
    /// The feed item's seq.
    pub feed_seq: i64,
    pub kind: String,
    /// `pending`, `delivered` or `failed`.
    pub status: String,
    pub attempts: i32,
    /// The next attempt, while pending.
    pub next_at: Option<DateTime<Utc>>,
    /// The receiver's HTTP status at the last attempt (none: no answer).
    pub last_status: Option<i32>,
    /// Why the last attempt failed, in a few words only: `timeout`, `connection refused`,
    /// `refused address`, `host not found`, `connection failed`, `no answer`, `HTTP <status>`.
    pub last_error: Option<String>,
    pub created_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct DeliveryLog {
    /// Newest first, at most 100.
    pub deliveries: Vec<DeliveryView>,
}

fn view(w: Webhook) -> WebhookView {
    WebhookView {
        id: w.id,
        url: w.url,
        kinds: w.kinds,
        enabled: w.enabled,
        created_at: w.created_at,
    }
}

fn not_found(e: StoreError) -> ServiceError {
    match e {
        StoreError::NotFound => {
            ServiceError::new(Code::WebhookNotFound, "you have no webhook with this id")
        }
        other => other.into(),
    }
}

/// Registers an endpoint; blocks (resolves the host).
pub fn create(
    store: &Store,
    caller: &Caller,
    request: WebhookRequest,
    guard: &Guard,
) -> Result<WebhookSecret, ServiceError> {
    if request.url.len() > MAX_URL {
        return Err(ServiceError::new(
            Code::InvalidWebhookUrl,
            format!("the URL is longer than {MAX_URL} characters"),
        ));
    }
    if let Some(bad) = request.kinds.iter().find(|k| !KINDS.contains(&k.as_str())) {
        return Err(ServiceError::new(
            Code::InvalidWebhookKind,
            format!("{bad:?} is not a feed kind; one of {}", KINDS.join(", ")),
        ));
    }
    guard.check(&request.url)?;
    if store.webhooks(caller.id)?.len() >= MAX_ENDPOINTS {
        return Err(ServiceError::new(
            Code::TooManyWebhooks,
            format!("an account has at most {MAX_ENDPOINTS} webhooks"),
        ));
    }
    let mut kinds = request.kinds;
    kinds.sort();
    kinds.dedup();
    let key = signing::new_key();
    let webhook = store.insert_webhook(&NewWebhook {
        account_id: caller.id,
        url: request.url,
        kinds,
        secret: key.clone(),
    })?;
    Ok(WebhookSecret {
        webhook: view(webhook),
        secret: format!("{}{key}", signing::SECRET_PREFIX),
    })
}

pub fn list(store: &Store, caller: &Caller) -> Result<WebhookList, ServiceError> {
    let webhooks = store.webhooks(caller.id)?.into_iter().map(view).collect();
    Ok(WebhookList { webhooks })
}

pub fn delete(store: &Store, caller: &Caller, id: Uuid) -> Result<(), ServiceError> {
    store.delete_webhook(caller.id, id).map_err(not_found)
}

/// A new secret (the old one stops at once); enables a disabled endpoint again.
pub fn rotate(store: &Store, caller: &Caller, id: Uuid) -> Result<WebhookSecret, ServiceError> {
    let key = signing::new_key();
    let webhook = store
        .rotate_webhook(caller.id, id, &key)
        .map_err(not_found)?;
    Ok(WebhookSecret {
        webhook: view(webhook),
        secret: format!("{}{key}", signing::SECRET_PREFIX),
    })
}

pub fn deliveries(store: &Store, caller: &Caller, id: Uuid) -> Result<DeliveryLog, ServiceError> {
    let deliveries = store
        .webhook_deliveries(caller.id, id, LOG_LIMIT)
        .map_err(not_found)?
        .into_iter()
        .map(|d: Delivery| DeliveryView {
            next_at: (d.status == "pending").then_some(d.next_at),
            id: d.id,
            feed_seq: d.feed_seq,
            kind: d.kind,
            status: d.status,
            attempts: d.attempts,
            last_status: d.last_status,
            last_error: d.last_error,
            created_at: d.created_at,
            finished_at: d.finished_at,
        })
        .collect();
    Ok(DeliveryLog { deliveries })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The document's kinds are the kinds the server accepts.
    #[test]
    fn feed_kinds_are_the_accepted_kinds() {
        let names: Vec<String> = FeedKind::ALL
            .iter()
            .map(|k| {
                serde_json::to_value(k)
                    .ok()
                    .and_then(|v| v.as_str().map(String::from))
            })
            .map(Option::unwrap_or_default)
            .collect();
        assert_eq!(names, KINDS);
    }
}
