//! Table talk's rows: each game's chat, numbered per game from 1, and the reports of its
//! messages. Stored apart from the event log, so the log stays the rules' record alone.
//!
//! A message's seq is the game's highest plus one, taken under a lock on the game's chat (an
//! advisory lock on PostgreSQL, the file's write lock on SQLite), so two writers never take
//! the same seq. The per-account rate limit is counted in the same transaction under a lock on
//! the author, so it holds across processes and across games.

use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::Text;
use uuid::Uuid;

use super::conn::AnyConnection;
use super::rows::{utc, uuid};
use super::schema::{accounts, chat_messages, chat_reports};
use super::{Committed, News, Store, StoreError, Topic, Wake};

/// A message to store.
#[derive(Clone, Debug)]
pub struct NewChatMessage {
    pub game_id: Uuid,
    pub author_id: Uuid,
    pub body: String,
    pub at: DateTime<Utc>,
}

/// How many messages an author may write in a window of time (over all games).
#[derive(Clone, Copy, Debug)]
pub struct ChatRate {
    pub messages: i64,
    pub window: chrono::Duration,
}

/// A stored message with its author's username (a pseudonym once the author left for good).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChatMessage {
    pub game_id: Uuid,
    pub seq: i64,
    pub author_id: Uuid,
    pub author: String,
    /// Empty when removed.
    pub body: String,
    /// The author deleted their account: the text went with it.
    pub removed: bool,
    pub at: DateTime<Utc>,
}

/// What came of a message sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChatPosted {
    Posted(ChatMessage),
    /// The author wrote as many messages as the rate allows; the oldest of them in the
    /// window, from which the next one is allowed once the window has passed.
    Limited {
        oldest: DateTime<Utc>,
    },
}

/// What came of a report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChatReported {
    New,
    /// The reporter had reported this message already: nothing changed.
    Again,
    /// The game has no message with that seq.
    NoSuchMessage,
}

/// A report, for the admins.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChatReport {
    pub game_id: Uuid,
    pub seq: i64,
    pub reporter: String,
    pub reason: String,
    pub at: DateTime<Utc>,
}

type MessageRow = (String, i64, String, String, String, bool, NaiveDateTime);

fn message(row: MessageRow) -> Result<ChatMessage, StoreError> {
    let (game, seq, author_id, author, body, removed, at) = row;
    Ok(ChatMessage {
        game_id: uuid("chat game", &game)?,
        seq,
        author_id: uuid("chat author", &author_id)?,
        author,
        body,
        removed,
        at: utc(at),
    })
}

/// PostgreSQL: takes the transaction's advisory lock on `key` (`chat:<game>`, one writer of a
/// game's seqs at a time; `author:<account>`, one count of an author's rate at a time). Every
/// writer takes the author's before the game's, so two cannot wait on each other.
fn lock(conn: &mut AnyConnection, key: &str) -> Result<(), StoreError> {
    if let AnyConnection::Pg(pg) = conn {
        diesel::sql_query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))")
            .bind::<Text, _>(key)
            .execute(pg)?;
    }
    Ok(())
}

impl Store {
    /// Appends `message` to its game's chat unless its author is over `rate`, in one
    /// transaction. The wake-up is the game's chat topic with the new seq.
    pub fn post_chat(
        &self,
        message: &NewChatMessage,
        rate: ChatRate,
    ) -> Result<Committed<ChatPosted>, StoreError> {
        let posted = self.write(|conn| {
            let (game, author) = (message.game_id.to_string(), message.author_id.to_string());
            // Two messages of one author at once (to two games) count each other.
            lock(conn, &format!("author:{author}"))?;
            let since = (message.at - rate.window).naive_utc();
            let recent: Vec<NaiveDateTime> = chat_messages::table
                .filter(chat_messages::author_id.eq(&author))
                .filter(chat_messages::created_at.gt(since))
                .select(chat_messages::created_at)
                .order(chat_messages::created_at.desc())
                .limit(rate.messages)
                .load(conn)?;
            if recent.len() as i64 >= rate.messages {
                let oldest = recent.last().copied().unwrap_or(since);
                return Ok::<_, StoreError>(ChatPosted::Limited {
                    oldest: utc(oldest),
                });
            }
            lock(conn, &format!("chat:{game}"))?;
            let last: Option<i64> = chat_messages::table
                .filter(chat_messages::game_id.eq(&game))
                .select(diesel::dsl::max(chat_messages::seq))
                .first(conn)?;
            let seq = last.unwrap_or(0) + 1;
            diesel::insert_into(chat_messages::table)
                .values((
                    chat_messages::game_id.eq(&game),
                    chat_messages::seq.eq(seq),
                    chat_messages::author_id.eq(&author),
                    chat_messages::body.eq(&message.body),
                    chat_messages::removed.eq(false),
                    chat_messages::created_at.eq(message.at.naive_utc()),
                ))
                .execute(conn)?;
            let author_name: String = accounts::table
                .find(&author)
                .select(accounts::username)
                .first(conn)?;
            Ok(ChatPosted::Posted(ChatMessage {
                game_id: message.game_id,
                seq,
                author_id: message.author_id,
                author: author_name,
                body: message.body.clone(),
                removed: false,
                at: utc(message.at.naive_utc()),
            }))
        })?;
        let news = match &posted {
            ChatPosted::Posted(m) => News {
                wakes: vec![Wake {
                    topic: Topic::Chat(m.game_id),
                    seq: m.seq,
                }],
                ..News::default()
            },
            ChatPosted::Limited { .. } => News::default(),
        };
        Ok(self.committed(posted, news))
    }

    /// Messages of `game`'s chat with seq > `after`, ascending, at most `limit`.
    pub fn chat(&self, game: Uuid, after: i64, limit: i64) -> Result<Vec<ChatMessage>, StoreError> {
        self.read(|conn| {
            let rows: Vec<MessageRow> = chat_messages::table
                .inner_join(accounts::table)
                .filter(chat_messages::game_id.eq(game.to_string()))
                .filter(chat_messages::seq.gt(after))
                .order(chat_messages::seq)
                .limit(limit)
                .select((
                    chat_messages::game_id,
                    chat_messages::seq,
                    chat_messages::author_id,
                    accounts::username,
                    chat_messages::body,
                    chat_messages::removed,
                    chat_messages::created_at,
                ))
                .load(conn)?;
            rows.into_iter().map(message).collect()
        })
    }

    /// Records `reporter`'s report of message `seq` of `game`'s chat, once per reporter.
    pub fn report_chat(
        &self,
        (game, seq): (Uuid, i64),
        reporter: Uuid,
        reason: &str,
        at: DateTime<Utc>,
    ) -> Result<ChatReported, StoreError> {
        self.write(|conn| {
            let (game, reporter) = (game.to_string(), reporter.to_string());
            let exists: i64 = chat_messages::table
                .filter(chat_messages::game_id.eq(&game))
                .filter(chat_messages::seq.eq(seq))
                .count()
                .get_result(conn)?;
            if exists == 0 {
                return Ok(ChatReported::NoSuchMessage);
            }
            let known: i64 = chat_reports::table
                .filter(chat_reports::game_id.eq(&game))
                .filter(chat_reports::seq.eq(seq))
                .filter(chat_reports::reporter_id.eq(&reporter))
                .count()
                .get_result(conn)?;
            if known > 0 {
                return Ok(ChatReported::Again);
            }
            diesel::insert_into(chat_reports::table)
                .values((
                    chat_reports::game_id.eq(&game),
                    chat_reports::seq.eq(seq),
                    chat_reports::reporter_id.eq(&reporter),
                    chat_reports::reason.eq(reason),
                    chat_reports::created_at.eq(at.naive_utc()),
                ))
                .execute(conn)?;
            Ok(ChatReported::New)
        })
    }

    /// Reports, oldest first, after the one at (`at`, game, seq) when given; at most `limit`.
    pub fn chat_reports(
        &self,
        after: Option<(DateTime<Utc>, Uuid, i64)>,
        limit: i64,
    ) -> Result<Vec<ChatReport>, StoreError> {
        self.read(|conn| {
            let mut query = chat_reports::table
                .inner_join(accounts::table.on(accounts::id.eq(chat_reports::reporter_id)))
                .select((
                    chat_reports::game_id,
                    chat_reports::seq,
                    accounts::username,
                    chat_reports::reason,
                    chat_reports::created_at,
                ))
                .order((
                    chat_reports::created_at,
                    chat_reports::game_id,
                    chat_reports::seq,
                    chat_reports::reporter_id,
                ))
                .limit(limit)
                .into_boxed();
            if let Some((at, game, seq)) = after {
                let (at, game) = (at.naive_utc(), game.to_string());
                query = query.filter(
                    chat_reports::created_at
                        .gt(at)
                        .or(chat_reports::created_at.eq(at).and(
                            chat_reports::game_id
                                .gt(game.clone())
                                .or(chat_reports::game_id
                                    .eq(game)
                                    .and(chat_reports::seq.gt(seq))),
                        )),
                );
            }
            let rows: Vec<(String, i64, String, String, NaiveDateTime)> = query.load(conn)?;
            rows.into_iter()
                .map(|(game, seq, reporter, reason, at)| {
                    Ok(ChatReport {
                        game_id: uuid("report game", &game)?,
                        seq,
                        reporter,
                        reason,
                        at: utc(at),
                    })
                })
                .collect()
        })
    }
}

/// Account deletion: the account's messages lose their text (the entries stay, shown as from
/// the deleted player's pseudonym), and its reports go.
pub(super) fn erase_author(conn: &mut AnyConnection, account: &str) -> Result<(), StoreError> {
    diesel::update(chat_messages::table.filter(chat_messages::author_id.eq(account)))
        .set((chat_messages::body.eq(""), chat_messages::removed.eq(true)))
        .execute(conn)?;
    diesel::delete(chat_reports::table.filter(chat_reports::reporter_id.eq(account)))
        .execute(conn)?;
    Ok(())
}
