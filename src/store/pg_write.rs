//! PostgreSQL: a game's change written in ONE statement. The compare-and-set on the
//! version, the events, the seats that changed, the account feed items with their gapless
//! per-account seq, their webhook and push outbox rows and the idempotency record are the
//! parts of one `WITH … ` statement. Run outside an explicit transaction (the usual case), it
//! commits on its own, all or nothing: one round trip where the transactional form took about
//! a dozen. Run inside the transaction that holds the game's row lock (a writer that lost the
//! compare-and-set, the sweeper), it is that transaction's write. So on PostgreSQL every
//! change of a game is written by this statement; SQLite's transaction (`games::apply_change`,
//! `feed::append`) is the other form, and `tests/api/write_paths.rs` compares the two row by
//! row. (The wake-ups go out after it, see `wake`.)
//!
//! Every part is driven by the row the `UPDATE games` returns: when the compare-and-set finds
//! another version, nothing else is written (and no row locks beyond the game's are taken).
//! Locks are taken in one order (the game's row, then the accounts' feed heads in account
//! order), so two writers cannot deadlock each other.

use std::sync::OnceLock;

use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Bool, Integer, Nullable, SmallInt, Text, Timestamp};

mod prepared;

use super::delivery_bodies::Bodies;
use super::rows::{enum_text, state_json, to_json, EventRow, IdempotencyRow, SeatRow};
use super::topic::{Topic, Wake};
use super::{GameChange, GameRecord, StoreError};
use prepared::Prepared;

/// The statement's parts, each a `WITH` item, and which change needs which: PostgreSQL sets up
/// every part of a statement for each run, so a part the change has nothing for is left out
/// rather than run on empty arrays (a draw writes the game and its events only). Parameters
/// keep their numbers in every variant; unused ones are bound all the same.
const GAME_AND_EVENTS: &str = r#"
WITH g AS (
    UPDATE games
       SET state = $3, status = $4, version = $5, last_seq = $6, updated_at = $7, due_at = $8
     WHERE id = $1 AND version = $2
 RETURNING id
), new_events AS (
    INSERT INTO game_events (game_id, seq, round, kind, actor, payload, created_at)
    SELECT g.id, e.seq, e.round, e.kind, e.actor, e.payload, $7
      FROM g, unnest($9::bigint[], $10::int[], $11::text[], $12::text[], $13::text[])
                AS e(seq, round, kind, actor, payload)
)"#;

/// Seats the change no longer has (a player left the lobby).
const GONE_SEATS: &str = r#", gone_seats AS (
    DELETE FROM game_seats s USING g
     WHERE s.game_id = g.id AND NOT (s.seat = ANY($14::smallint[]))
)"#;

/// Seats that differ from what is stored, updated in place.
const CHANGED_SEATS: &str = r#", changed_seats AS (
    UPDATE game_seats s
       SET account_id = x.account_id, username = x.username, awaiting = x.awaiting,
           deadline = x.deadline, reminded = x.reminded, away_until = x.away_until
      FROM g, unnest($15::smallint[], $16::text[], $17::text[], $18::bool[],
                     $19::timestamp[], $20::bool[], $40::timestamp[])
                AS x(seat, account_id, username, awaiting, deadline, reminded, away_until)
     WHERE s.game_id = g.id AND s.seat = x.seat
)"#;

/// Seats taken (a player joined).
const NEW_SEATS: &str = r#", new_seats AS (
    INSERT INTO game_seats
           (game_id, seat, account_id, username, awaiting, deadline, reminded, away_until)
    SELECT g.id, x.seat, x.account_id, x.username, x.awaiting, x.deadline, x.reminded,
           x.away_until
      FROM g, unnest($30::smallint[], $31::text[], $32::text[], $33::bool[],
                     $34::timestamp[], $35::bool[], $41::timestamp[])
                AS x(seat, account_id, username, awaiting, deadline, reminded, away_until)
)"#;

/// Feed items, numbered from their accounts' heads, and their webhook outbox rows.
const FEED: &str = r#", heads AS (
    INSERT INTO account_feed_heads (account_id, last_seq)
    SELECT f.account_id, count(*)
      FROM g, unnest($21::text[]) AS f(account_id)
     GROUP BY f.account_id
     ORDER BY f.account_id
        ON CONFLICT (account_id) DO UPDATE
       SET last_seq = account_feed_heads.last_seq + EXCLUDED.last_seq
 RETURNING account_id, last_seq
), items AS (
    SELECT f.account_id, f.kind, f.payload, f.body_before, f.body_after, f.push_before,
           f.push_after,
           h.last_seq - count(*) OVER (PARTITION BY f.account_id)
               + row_number() OVER (PARTITION BY f.account_id ORDER BY f.n) AS seq
      FROM unnest($21::text[], $22::text[], $23::text[], $24::text[], $37::text[],
                  $38::text[], $39::text[])
                WITH ORDINALITY AS f(account_id, kind, payload, body_before, body_after,
                                     push_before, push_after, n)
      JOIN heads h ON h.account_id = f.account_id
), feed AS (
    INSERT INTO account_feed (account_id, seq, kind, game_id, game_version, payload, created_at)
    SELECT i.account_id, i.seq, i.kind, $1, $5, i.payload, $7 FROM items i
), outbox AS (
    INSERT INTO webhook_outbox
           (id, endpoint_id, feed_seq, kind, body, status, attempts, next_at, created_at)
    SELECT 'msg_' || replace(gen_random_uuid()::text, '-', ''), w.id, i.seq, i.kind,
           i.body_before || i.seq || i.body_after, 'pending', 0, $7, $7
      FROM items i
      JOIN webhook_endpoints w ON w.account_id = i.account_id AND w.enabled
     WHERE w.kinds = '[]' OR w.kinds::jsonb ? i.kind
)"#;

/// The answer to an `Idempotency-Key`.
const IDEMPOTENCY: &str = r#", idempotency AS (
    INSERT INTO idempotency_keys
           (account_id, key, request_hash, status, body, created_at, stored_as)
    SELECT k.account_id, k.key, k.request_hash, k.status, k.body, $7, k.stored_as
      FROM g, unnest($25::text[], $26::text[], $27::text[], $28::int[], $29::text[],
                     $36::text[])
                AS k(account_id, key, request_hash, status, body, stored_as)
)"#;

/// What the statement returns: whether the game was written, and each feed head as it is now.
const OUTCOME_WITH_FEED: &str = r#"
SELECT (SELECT count(*) FROM g) AS written, h.account_id, h.last_seq
  FROM (SELECT 1) AS one LEFT JOIN heads h ON true
"#;
const OUTCOME: &str = r#"
SELECT (SELECT count(*) FROM g) AS written, NULL::text AS account_id, NULL::bigint AS last_seq
"#;

/// Which optional parts a change needs.
#[derive(Clone, Copy)]
struct Parts {
    gone_seats: bool,
    changed_seats: bool,
    new_seats: bool,
    feed: bool,
    idempotency: bool,
}

impl Parts {
    fn index(self) -> usize {
        [
            self.gone_seats,
            self.changed_seats,
            self.new_seats,
            self.feed,
            self.idempotency,
        ]
        .iter()
        .enumerate()
        .map(|(bit, &on)| usize::from(on) << bit)
        .sum()
    }

    fn from_index(i: usize) -> Parts {
        Parts {
            gone_seats: i & 1 != 0,
            changed_seats: i & 2 != 0,
            new_seats: i & 4 != 0,
            feed: i & 8 != 0,
            idempotency: i & 16 != 0,
        }
    }

    /// The statement of these parts; each of the 32 texts is made once.
    fn statement(self) -> &'static str {
        static TEXTS: OnceLock<Vec<String>> = OnceLock::new();
        let texts = TEXTS.get_or_init(|| (0..32).map(|i| Parts::from_index(i).text()).collect());
        &texts[self.index()]
    }

    fn text(self) -> String {
        let mut text = String::from(GAME_AND_EVENTS);
        for (on, part) in [
            (self.gone_seats, GONE_SEATS),
            (self.changed_seats, CHANGED_SEATS),
            (self.new_seats, NEW_SEATS),
            (self.feed, FEED),
            (self.feed, super::devices::PG_ENQUEUE),
            (self.idempotency, IDEMPOTENCY),
        ] {
            if on {
                text.push_str(part);
            }
        }
        text.push_str(if self.feed {
            OUTCOME_WITH_FEED
        } else {
            OUTCOME
        });
        text
    }
}

#[derive(QueryableByName)]
struct Outcome {
    #[diesel(sql_type = BigInt)]
    written: i64,
    #[diesel(sql_type = Nullable<Text>)]
    account_id: Option<String>,
    #[diesel(sql_type = Nullable<BigInt>)]
    last_seq: Option<i64>,
}

/// Writes `change` over `current` (see the module docs). `Ok(None)` when the compare-and-set
/// found another version (nothing was written); else the wake-ups of the accounts whose feed
/// grew (the game's own is the caller's). The record written is `change.next()`.
pub(super) fn write_change(
    pg: &mut PgConnection,
    current: &GameRecord,
    change: &GameChange,
) -> Result<Option<Vec<Wake>>, StoreError> {
    let next = change.next();
    let at = next.updated_at.naive_utc();
    let id = current.id.to_string();

    let events = (current.last_seq + 1..)
        .zip(&change.events)
        .map(|(seq, event)| EventRow::new(current.id, seq, event, at))
        .collect::<Result<Vec<_>, _>>()?;
    let kept: Vec<i16> = next.seats.iter().map(|s| i16::from(s.seat)).collect();
    // Only the seats that differ from what is stored are written: in place where the seat
    // exists, else as a new row.
    let (seats, new_seats): (Vec<SeatRow>, Vec<SeatRow>) = next
        .seats
        .iter()
        .filter(|s| !current.seats.contains(s))
        .map(|s| SeatRow::new(current.id, s))
        .partition(|row| current.seats.iter().any(|s| i16::from(s.seat) == row.seat));
    let feed_payloads = change
        .feed
        .iter()
        .map(|item| to_json("feed item", &item.payload))
        .collect::<Result<Vec<_>, _>>()?;
    let keys = change
        .idempotency
        .iter()
        .map(IdempotencyRow::new)
        .collect::<Result<Vec<_>, _>>()?;
    // The bodies are built as the transactional path builds them; the seq goes between.
    let bodies = change
        .feed
        .iter()
        .map(|item| {
            let game = (Some(current.id), Some(next.version));
            Bodies::new(&item.kind, game, next.updated_at, &item.payload)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let text = |part: fn(&Bodies) -> &str| bodies.iter().map(part).collect::<Vec<_>>();

    let parts = Parts {
        gone_seats: current
            .seats
            .iter()
            .any(|s| !kept.contains(&i16::from(s.seat))),
        changed_seats: !seats.is_empty(),
        new_seats: !new_seats.is_empty(),
        feed: !change.feed.is_empty(),
        idempotency: !keys.is_empty(),
    };
    let outcomes: Vec<Outcome> = Prepared(
        diesel::sql_query(parts.statement())
            .bind::<Text, _>(&id)
            .bind::<BigInt, _>(current.version)
            .bind::<Text, _>(state_json(&next.state)?)
            .bind::<Text, _>(enum_text(&next.status)?)
            .bind::<BigInt, _>(next.version)
            .bind::<BigInt, _>(next.last_seq)
            .bind::<Timestamp, _>(at)
            .bind::<Nullable<Timestamp>, _>(next.due_at.map(|d| d.naive_utc()))
            .bind::<Array<BigInt>, _>(events.iter().map(|e| e.seq).collect::<Vec<_>>())
            .bind::<Array<Integer>, _>(events.iter().map(|e| e.round).collect::<Vec<_>>())
            .bind::<Array<Text>, _>(events.iter().map(|e| e.kind.as_str()).collect::<Vec<_>>())
            .bind::<Array<Nullable<Text>>, _>(
                events
                    .iter()
                    .map(|e| e.actor.as_deref())
                    .collect::<Vec<_>>(),
            )
            .bind::<Array<Text>, _>(
                events
                    .iter()
                    .map(|e| e.payload.as_str())
                    .collect::<Vec<_>>(),
            )
            .bind::<Array<SmallInt>, _>(kept)
            .bind::<Array<SmallInt>, _>(seats.iter().map(|s| s.seat).collect::<Vec<_>>())
            .bind::<Array<Text>, _>(
                seats
                    .iter()
                    .map(|s| s.account_id.as_str())
                    .collect::<Vec<_>>(),
            )
            .bind::<Array<Text>, _>(
                seats
                    .iter()
                    .map(|s| s.username.as_str())
                    .collect::<Vec<_>>(),
            )
            .bind::<Array<Bool>, _>(seats.iter().map(|s| s.awaiting).collect::<Vec<_>>())
            .bind::<Array<Nullable<Timestamp>>, _>(
                seats.iter().map(|s| s.deadline).collect::<Vec<_>>(),
            )
            .bind::<Array<Bool>, _>(seats.iter().map(|s| s.reminded).collect::<Vec<_>>())
            .bind::<Array<Text>, _>(
                change
                    .feed
                    .iter()
                    .map(|f| f.account_id.to_string())
                    .collect::<Vec<_>>(),
            )
            .bind::<Array<Text>, _>(
                change
                    .feed
                    .iter()
                    .map(|f| f.kind.as_str())
                    .collect::<Vec<_>>(),
            )
            .bind::<Array<Text>, _>(feed_payloads)
            .bind::<Array<Text>, _>(text(|b| b.webhook.before.as_str()))
            .bind::<Array<Text>, _>(
                keys.iter()
                    .map(|k| k.account_id.as_str())
                    .collect::<Vec<_>>(),
            )
            .bind::<Array<Text>, _>(keys.iter().map(|k| k.key.as_str()).collect::<Vec<_>>())
            .bind::<Array<Text>, _>(
                keys.iter()
                    .map(|k| k.request_hash.as_str())
                    .collect::<Vec<_>>(),
            )
            .bind::<Array<Integer>, _>(keys.iter().map(|k| k.status).collect::<Vec<_>>())
            .bind::<Array<Text>, _>(keys.iter().map(|k| k.body.as_str()).collect::<Vec<_>>())
            .bind::<Array<SmallInt>, _>(new_seats.iter().map(|s| s.seat).collect::<Vec<_>>())
            .bind::<Array<Text>, _>(
                new_seats
                    .iter()
                    .map(|s| s.account_id.as_str())
                    .collect::<Vec<_>>(),
            )
            .bind::<Array<Text>, _>(
                new_seats
                    .iter()
                    .map(|s| s.username.as_str())
                    .collect::<Vec<_>>(),
            )
            .bind::<Array<Bool>, _>(new_seats.iter().map(|s| s.awaiting).collect::<Vec<_>>())
            .bind::<Array<Nullable<Timestamp>>, _>(
                new_seats.iter().map(|s| s.deadline).collect::<Vec<_>>(),
            )
            .bind::<Array<Bool>, _>(new_seats.iter().map(|s| s.reminded).collect::<Vec<_>>())
            .bind::<Array<Text>, _>(
                keys.iter()
                    .map(|k| k.stored_as.as_str())
                    .collect::<Vec<_>>(),
            )
            .bind::<Array<Text>, _>(text(|b| b.webhook.after.as_str()))
            .bind::<Array<Text>, _>(text(|b| b.push.before.as_str()))
            .bind::<Array<Text>, _>(text(|b| b.push.after.as_str()))
            .bind::<Array<Nullable<Timestamp>>, _>(
                seats.iter().map(|s| s.away_until).collect::<Vec<_>>(),
            )
            .bind::<Array<Nullable<Timestamp>>, _>(
                new_seats.iter().map(|s| s.away_until).collect::<Vec<_>>(),
            ),
    )
    .load(pg)?;

    if outcomes.first().is_none_or(|o| o.written == 0) {
        return Ok(None);
    }
    let mut wakes = Vec::new();
    for outcome in outcomes {
        if let (Some(account), Some(seq)) = (outcome.account_id, outcome.last_seq) {
            wakes.push(Wake {
                topic: Topic::Account(super::rows::uuid("feed account", &account)?),
                seq,
            });
        }
    }
    Ok(Some(wakes))
}

#[cfg(test)]
mod tests;
