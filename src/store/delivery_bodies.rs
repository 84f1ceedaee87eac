//! The bodies of a feed item's deliveries, built here once for both write paths, so that the
//! same feed item is the same bytes on either store (and a webhook is signed as such):
//! - a push row's body is the feed item as the stream shows it, `{"at": …, "data": <payload>,
//!   "game_id": …, "game_version": …, "kind": …, "seq": …}`;
//! - a webhook's is a Standard Webhooks payload around it, `{"data": <the feed item>,
//!   "timestamp": …, "type": <kind>}`.
//!
//! Both are written as `serde_json` writes a `Value` (keys in order, no spaces): erasing a
//! name rewrites bodies that way too. On PostgreSQL the item's feed seq is only known inside
//! the write statement, so each body is built as the text before and after it, and the
//! statement only puts the seq between.

use chrono::{DateTime, SecondsFormat, Utc};
use uuid::Uuid;

use super::rows::to_json;
use super::StoreError;

/// A body but for the feed seq, which goes between the two.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct BodyAroundSeq {
    pub before: String,
    pub after: String,
}

impl BodyAroundSeq {
    /// The whole body, for the item numbered `seq`.
    pub fn with_seq(&self, seq: i64) -> String {
        format!("{}{seq}{}", self.before, self.after)
    }
}

/// The webhook body and the push body of one feed item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Bodies {
    pub webhook: BodyAroundSeq,
    pub push: BodyAroundSeq,
}

impl Bodies {
    /// The feed item's fields as the feed shows them; `payload` is the item's stored JSON.
    pub fn new(
        kind: &str,
        (game_id, game_version): (Option<Uuid>, Option<i64>),
        at: DateTime<Utc>,
        payload: &serde_json::Value,
    ) -> Result<Bodies, StoreError> {
        let kind = to_json("feed kind", &kind)?;
        // RFC 3339 in UTC, as serde writes a time elsewhere.
        let at = to_json(
            "feed time",
            &at.to_rfc3339_opts(SecondsFormat::AutoSi, true),
        )?;
        let game_id = to_json("feed game", &game_id)?;
        let game_version = to_json("feed game version", &game_version)?;
        let payload = to_json("feed item", payload)?;
        // Keys in sorted order, as a `serde_json::Value` writes them.
        let item = format!(
            r#"{{"at":{at},"data":{payload},"game_id":{game_id},"game_version":{game_version},"kind":{kind},"seq":"#
        );
        Ok(Bodies {
            webhook: BodyAroundSeq {
                before: format!(r#"{{"data":{item}"#),
                after: format!(r#"}},"timestamp":{at},"type":{kind}}}"#),
            },
            push: BodyAroundSeq {
                before: item,
                after: "}".into(),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Each body equals the `Value` of the same fields, as serde writes it.
    #[test]
    fn the_bodies_are_what_serde_writes_for_their_values() {
        let game = Uuid::new_v4();
        let at = DateTime::from_timestamp(1_700_000_000, 123_456_000).expect("a time");
        let payload = json!({"seat": 1, "username": "ann \"the\" \\ first", "seq": 0, "z": [null]});
        for (game_id, game_version) in [(Some(game), Some(7)), (None, None)] {
            let bodies =
                Bodies::new("your_turn", (game_id, game_version), at, &payload).expect("built");
            let item = json!({
                "seq": 42,
                "kind": "your_turn",
                "game_id": game_id,
                "game_version": game_version,
                "at": at,
                "data": payload,
            });
            let webhook = json!({"type": "your_turn", "timestamp": at, "data": item});
            assert_eq!(bodies.webhook.with_seq(42), webhook.to_string());
            assert_eq!(bodies.push.with_seq(42), item.to_string());
        }
    }
}
