//! Table talk: a short word to the table, kept apart from the rules log.
//!
//! - The seated players write; whoever may see the game reads (its spectators and invited
//!   accounts too), as a page, a long-poll or a stream of the game's chat.
//! - Only what people wrote travels here: the server writes no message of its own, so no
//!   card can reach the chat but one a player chose to type (R8 binds the server, not what
//!   players say).
//! - A block works here too: a reader never gets a message whose author it blocks or is
//!   blocked by, whenever the block was made.
//! - Each account may send [`RATE`] messages a minute over all its games (counted by the
//!   store, so it holds across processes); past it, 429 `rate_limited` with `Retry-After`.
//! - A deleted account's messages lose their text and show its pseudonym.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use super::blocks::Shunned;
use super::{access, seat_of, Caller, Service};
use crate::error::{Code, ServiceError};
use crate::store::{
    ChatMessage, ChatPosted, ChatRate, ChatReported, GameStatus, NewChatMessage, Store,
};

/// The longest message, in characters.
pub const MAX_CHARS: usize = 500;
/// The longest report reason, in characters.
pub const MAX_REASON_CHARS: usize = 300;
/// Messages an account may send within a minute, over all games.
pub const RATE: ChatRate = ChatRate {
    messages: 10,
    window: chrono::Duration::seconds(60),
};
pub const DEFAULT_LIMIT: i64 = 100;
pub const MAX_LIMIT: i64 = 500;

/// A message to the table.
#[derive(Clone, Debug, Deserialize, Serialize, ToSchema)]
#[schema(example = json!({ "text": "good luck, all" }))]
#[serde(deny_unknown_fields)]
pub struct ChatPost {
    /// 1 to 500 characters, not only spaces; no control characters but line breaks.
    #[schema(min_length = 1, max_length = 500)]
    pub text: String,
}

/// A report of a message to the admins.
#[derive(Clone, Debug, Default, Deserialize, Serialize, ToSchema)]
#[schema(example = json!({ "reason": "insults" }))]
#[serde(deny_unknown_fields)]
pub struct ChatReportRequest {
    /// Why, in up to 300 characters (may be empty).
    #[schema(max_length = 300)]
    #[serde(default)]
    pub reason: String,
}

/// One message of a game's chat as a reader sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ChatEntry {
    /// 1, 2, 3, … within the game's chat (its own sequence, apart from the event log); a
    /// reader may see gaps where messages were left out for a block.
    pub seq: i64,
    /// The author's username (a `deleted-player-…` pseudonym once the account is deleted).
    pub author: String,
    /// The author's seat at the table.
    pub seat: Option<u8>,
    /// The message; null when it went with its author's deleted account.
    pub text: Option<String>,
    pub at: DateTime<Utc>,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct ChatPage {
    pub messages: Vec<ChatEntry>,
    /// Pass as `after` to read on: the highest seq read (or `after` when none), also when
    /// the messages read were all left out for a block.
    pub next_after: i64,
}

/// A report as the admins read it.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct ChatReportEntry {
    pub game_id: Uuid,
    pub seq: i64,
    pub reporter: String,
    pub reason: String,
    pub at: DateTime<Utc>,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct ChatReportPage {
    pub reports: Vec<ChatReportEntry>,
    /// Pass as `cursor` for the next page; null on the last.
    pub next_cursor: Option<String>,
}

fn invalid(detail: impl Into<String>) -> ServiceError {
    ServiceError::new(Code::InvalidChatMessage, detail)
}

/// The text as it is kept: trimmed, within bounds, with no control character but line breaks.
fn checked_text(text: &str) -> Result<String, ServiceError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(invalid("the message is empty"));
    }
    if text.chars().count() > MAX_CHARS {
        return Err(invalid(format!("at most {MAX_CHARS} characters")));
    }
    if text.chars().any(|c| c.is_control() && c != '\n') {
        return Err(invalid("no control characters but line breaks"));
    }
    Ok(text.to_string())
}

/// Sends `post` to game `id`'s table. Only a seated player writes; a game that was
/// cancelled takes no more.
pub fn post(
    service: &Service,
    caller: &Caller,
    id: Uuid,
    post: &ChatPost,
) -> Result<ChatEntry, ServiceError> {
    let text = checked_text(&post.text)?;
    let game = access::load_visible(service, id, caller.id)?;
    let Some(seat) = seat_of(&game, caller.id) else {
        return Err(access::no_seat(&game, caller.id));
    };
    if game.status == GameStatus::Cancelled {
        return Err(super::cancelled());
    }
    let message = NewChatMessage {
        game_id: id,
        author_id: caller.id,
        body: text,
        at: service.now(),
    };
    match service.after(service.post_chat(&message, RATE)?) {
        ChatPosted::Posted(message) => Ok(entry(&message, Some(seat))),
        ChatPosted::Limited { oldest } => {
            let wait = (oldest + RATE.window - message.at)
                .to_std()
                .unwrap_or_default();
            let mut refusal = ServiceError::rate_limited(wait);
            refusal.detail = format!(
                "at most {} messages a minute; try again in {} s",
                RATE.messages,
                refusal.retry_after.unwrap_or(1)
            );
            Err(refusal)
        }
    }
}

fn entry(message: &ChatMessage, seat: Option<u8>) -> ChatEntry {
    ChatEntry {
        seq: message.seq,
        author: message.author.clone(),
        seat,
        text: (!message.removed).then(|| message.body.clone()),
        at: message.at,
    }
}

/// Messages of game `id`'s chat after `after` that `caller` may read, at most `limit` read.
pub fn page(
    service: &Store,
    caller: &Caller,
    id: Uuid,
    after: Option<i64>,
    limit: Option<i64>,
) -> Result<ChatPage, ServiceError> {
    let after = after.unwrap_or(0);
    if after < 0 {
        return Err(ServiceError::new(
            Code::InvalidAfter,
            "after must be 0 or more",
        ));
    }
    let limit = limit.unwrap_or(DEFAULT_LIMIT);
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(ServiceError::new(
            Code::InvalidLimit,
            format!("limit must be 1..={MAX_LIMIT}"),
        ));
    }
    let game = access::load_visible(service, id, caller.id)?;
    let read = service.chat(id, after, limit)?;
    let next_after = read.last().map_or(after, |m| m.seq);
    let shunned = Shunned::of(service, caller.id)?;
    let messages = read
        .iter()
        .filter(|m| !shunned.contains(m.author_id))
        .map(|m| entry(m, seat_of(&game, m.author_id)))
        .collect();
    Ok(ChatPage {
        messages,
        next_after,
    })
}

/// Reports message `seq` of game `id`'s chat to the admins: any reader may, once per
/// message. True when the report is new.
pub fn report(
    service: &Store,
    caller: &Caller,
    (id, seq): (Uuid, i64),
    request: &ChatReportRequest,
) -> Result<bool, ServiceError> {
    let reason = request.reason.trim();
    if reason.chars().count() > MAX_REASON_CHARS || reason.chars().any(char::is_control) {
        return Err(ServiceError::new(
            Code::InvalidReportReason,
            format!(
                "a reason is at most {MAX_REASON_CHARS} characters, with no control characters"
            ),
        ));
    }
    access::load_visible(service, id, caller.id)?;
    let not_found = || {
        ServiceError::new(
            Code::ChatMessageNotFound,
            "this game's chat has no such message",
        )
    };
    if seq < 1 {
        return Err(not_found());
    }
    match service.report_chat((id, seq), caller.id, reason, service.now())? {
        ChatReported::New => Ok(true),
        ChatReported::Again => Ok(false),
        ChatReported::NoSuchMessage => Err(not_found()),
    }
}

/// The reports, oldest first (admins; the caller checks the role).
pub fn reports(
    service: &Store,
    cursor: Option<&str>,
    limit: Option<i64>,
) -> Result<ChatReportPage, ServiceError> {
    let limit = limit.unwrap_or(DEFAULT_LIMIT);
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(ServiceError::new(
            Code::InvalidLimit,
            format!("limit must be 1..={MAX_LIMIT}"),
        ));
    }
    let after = cursor.map(read_cursor).transpose()?;
    let found = service.chat_reports(after, limit)?;
    let next_cursor = (found.len() as i64 == limit)
        .then(|| found.last().map(|r| cursor_of(r.at, r.game_id, r.seq)))
        .flatten();
    let reports = found
        .into_iter()
        .map(|r| ChatReportEntry {
            game_id: r.game_id,
            seq: r.seq,
            reporter: r.reporter,
            reason: r.reason,
            at: r.at,
        })
        .collect();
    Ok(ChatReportPage {
        reports,
        next_cursor,
    })
}

/// `<microseconds since 1970>.<game>.<seq>`: where a page of reports ended.
fn cursor_of(at: DateTime<Utc>, game: Uuid, seq: i64) -> String {
    format!("{}.{game}.{seq}", at.timestamp_micros())
}

fn read_cursor(text: &str) -> Result<(DateTime<Utc>, Uuid, i64), ServiceError> {
    let bad = || {
        ServiceError::new(
            Code::InvalidCursor,
            "the cursor is not one this server gave",
        )
    };
    let mut parts = text.splitn(3, '.');
    let (at, game, seq) = (parts.next(), parts.next(), parts.next());
    let at = at.and_then(|a| a.parse::<i64>().ok()).ok_or_else(bad)?;
    let at = DateTime::from_timestamp_micros(at).ok_or_else(bad)?;
    let game = game.and_then(|g| Uuid::parse_str(g).ok()).ok_or_else(bad)?;
    let seq = seq.and_then(|s| s.parse::<i64>().ok()).ok_or_else(bad)?;
    Ok((at, game, seq))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_trimmed_and_bounded() {
        assert_eq!(checked_text("  gg \n").ok().as_deref(), Some("gg"));
        assert!(checked_text("   ").is_err());
        assert!(checked_text(&"x".repeat(MAX_CHARS)).is_ok());
        assert!(checked_text(&"x".repeat(MAX_CHARS + 1)).is_err());
        assert!(checked_text("a\u{7}b").is_err());
        assert_eq!(checked_text("a\nb").ok().as_deref(), Some("a\nb"));
    }

    #[test]
    fn report_cursors_read_back() {
        let (at, game) = (Utc::now(), Uuid::new_v4());
        let (read_at, read_game, seq) = read_cursor(&cursor_of(at, game, 7)).expect("a cursor");
        assert_eq!(read_at.timestamp_micros(), at.timestamp_micros());
        assert_eq!((read_game, seq), (game, 7));
        assert!(read_cursor("nonsense").is_err());
        assert!(read_cursor("1.not-a-uuid.2").is_err());
    }
}
