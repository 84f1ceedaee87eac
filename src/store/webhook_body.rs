//! The body of a webhook delivery, built here for both write paths, so that the same feed
//! item is the same bytes on either store (and signed as such). The body is a Standard
//! Webhooks payload, `{"data": <the feed item>, "timestamp": …, "type": <kind>}`, written as
//! `serde_json` writes a `Value` (keys in order, no spaces): erasing a name rewrites bodies
//! that way too. On PostgreSQL the item's feed seq is only known inside the write statement,
//! so the body is built as the text before and after it.

use chrono::{DateTime, SecondsFormat, Utc};
use uuid::Uuid;

use super::rows::to_json;
use super::StoreError;

/// A webhook body but for the feed seq, which goes between the two.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct BodyAroundSeq {
    pub before: String,
    pub after: String,
}

impl BodyAroundSeq {
    /// The feed item's fields as the feed shows them; `payload` is the item's stored JSON.
    pub fn new(
        kind: &str,
        (game_id, game_version): (Option<Uuid>, Option<i64>),
        at: DateTime<Utc>,
        payload: &serde_json::Value,
    ) -> Result<BodyAroundSeq, StoreError> {
        let kind = to_json("webhook kind", &kind)?;
        // RFC 3339 in UTC, as serde writes a time elsewhere.
        let at = to_json(
            "webhook time",
            &at.to_rfc3339_opts(SecondsFormat::AutoSi, true),
        )?;
        let game_id = to_json("webhook game", &game_id)?;
        let game_version = to_json("webhook game version", &game_version)?;
        let payload = to_json("feed item", payload)?;
        // Keys in sorted order, as a `serde_json::Value` writes them.
        Ok(BodyAroundSeq {
            before: format!(
                r#"{{"data":{{"at":{at},"data":{payload},"game_id":{game_id},"game_version":{game_version},"kind":{kind},"seq":"#
            ),
            after: format!(r#"}},"timestamp":{at},"type":{kind}}}"#),
        })
    }

    /// The whole body, for the item numbered `seq`.
    pub fn with_seq(&self, seq: i64) -> String {
        format!("{}{seq}{}", self.before, self.after)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The body equals the `Value` of the same fields, as serde writes it.
    #[test]
    fn the_body_is_what_serde_writes_for_its_value() {
        let game = Uuid::new_v4();
        let at = DateTime::from_timestamp(1_700_000_000, 123_456_000).expect("a time");
        let payload = json!({"seat": 1, "username": "ann \"the\" \\ first", "seq": 0, "z": [null]});
        for (game_id, game_version) in [(Some(game), Some(7)), (None, None)] {
            let body = BodyAroundSeq::new("your_turn", (game_id, game_version), at, &payload)
                .expect("built");
            let expected = json!({
                "type": "your_turn",
                "timestamp": at,
                "data": {
                    "seq": 42,
                    "kind": "your_turn",
                    "game_id": game_id,
                    "game_version": game_version,
                    "at": at,
                    "data": payload,
                },
            });
            assert_eq!(body.with_seq(42), expected.to_string());
        }
    }
}
