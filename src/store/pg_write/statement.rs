//! The one statement's text: its parts, each a `WITH` item, and which changes need which.
//!
//! Every parameter is an array with a row per game (the games' part) or per row written, each
//! row naming its game, so one statement writes the changes of several games
//! (`pg_batch`). Every part is driven by the games the `UPDATE games` returned: a game whose
//! compare-and-set found another version writes nothing else. PostgreSQL sets up every part of
//! a statement for each run, so a part the changes have nothing for is left out rather than
//! run on empty arrays (a draw writes the game and its events only). Parameters keep their
//! numbers in every variant; unused ones are bound all the same. A statement of one game
//! finds its row by the key alone ([`ONE_GAME`]), with the same parameters.

use std::sync::OnceLock;

/// The games' compare-and-sets, a row of each array per game.
pub(super) const GAMES: &str = r#"
WITH given AS (
    SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::bigint[],
                         $6::bigint[], $7::timestamp[], $8::timestamp[])
                AS x(id, version, state, status, next_version, last_seq, at, due_at)
), g AS (
    UPDATE games
       SET state = x.state, status = x.status, version = x.next_version,
           last_seq = x.last_seq, updated_at = x.at, due_at = x.due_at,
           -- The public lists' order: a move within an active game leaves it, so that the
           -- update changes no indexed column and is HOT (no index entry written).
           listed_at = CASE WHEN games.status = 'active' AND x.status = 'active'
                            THEN games.listed_at ELSE x.at END
      FROM given x
     WHERE games.id = x.id AND games.version = x.version AND games.id = ANY($1::text[])
 RETURNING games.id, x.next_version AS version, x.at
)"#;

/// [`GAMES`] for arrays of one game: the same columns set to the same values, its row found
/// by the key alone. Most statements carry one game (every action of a quiet server), and the
/// join with the unnested arrays cost PostgreSQL about 30 µs of such a statement.
pub(super) const ONE_GAME: &str = r#"
WITH g AS (
    UPDATE games
       SET state = ($3::text[])[1], status = ($4::text[])[1], version = ($5::bigint[])[1],
           last_seq = ($6::bigint[])[1], updated_at = ($7::timestamp[])[1],
           due_at = ($8::timestamp[])[1],
           listed_at = CASE WHEN games.status = 'active' AND ($4::text[])[1] = 'active'
                            THEN games.listed_at ELSE ($7::timestamp[])[1] END
     WHERE games.id = ($1::text[])[1] AND games.version = ($2::bigint[])[1]
 RETURNING games.id, games.version, games.updated_at AS at
)"#;

/// The events of the games written.
pub(super) const EVENTS: &str = r#", new_events AS (
    INSERT INTO game_events (game_id, seq, round, kind, actor, payload, created_at)
    SELECT g.id, e.seq, e.round, e.kind, e.actor, e.payload, g.at
      FROM unnest($9::text[], $10::bigint[], $11::int[], $12::text[], $13::text[], $14::text[])
                AS e(game_id, seq, round, kind, actor, payload)
      JOIN g ON g.id = e.game_id
)"#;

/// Seats a change no longer has (a player left the lobby).
pub(super) const GONE_SEATS: &str = r#", gone_seats AS (
    DELETE FROM game_seats s
     USING g, unnest($15::text[], $16::smallint[]) AS k(game_id, seat)
     WHERE g.id = k.game_id AND s.game_id = k.game_id AND s.seat = k.seat
)"#;

/// Seats that differ from what is stored, updated in place.
pub(super) const CHANGED_SEATS: &str = r#", changed_seats AS (
    UPDATE game_seats s
       SET account_id = x.account_id, username = x.username, awaiting = x.awaiting,
           deadline = x.deadline, reminded = x.reminded, away_until = x.away_until
      FROM g, unnest($17::text[], $18::smallint[], $19::text[], $20::text[], $21::bool[],
                     $22::timestamp[], $23::bool[], $24::timestamp[])
                AS x(game_id, seat, account_id, username, awaiting, deadline, reminded,
                     away_until)
     WHERE g.id = x.game_id AND s.game_id = x.game_id AND s.seat = x.seat
)"#;

/// Seats taken (a player joined).
pub(super) const NEW_SEATS: &str = r#", new_seats AS (
    INSERT INTO game_seats
           (game_id, seat, account_id, username, awaiting, deadline, reminded, away_until)
    SELECT g.id, x.seat, x.account_id, x.username, x.awaiting, x.deadline, x.reminded,
           x.away_until
      FROM unnest($25::text[], $26::smallint[], $27::text[], $28::text[], $29::bool[],
                  $30::timestamp[], $31::bool[], $32::timestamp[])
                AS x(game_id, seat, account_id, username, awaiting, deadline, reminded,
                     away_until)
      JOIN g ON g.id = x.game_id
)"#;

/// Feed items, numbered from their accounts' heads in the order given, and their webhook
/// outbox rows. The heads are locked in account order, after the games.
pub(super) const FEED: &str = r#", feed_given AS (
    SELECT f.* FROM unnest($33::text[], $34::text[], $35::text[], $36::text[], $37::text[],
                           $38::text[], $39::text[], $40::text[])
                WITH ORDINALITY AS f(game_id, account_id, kind, payload, body_before,
                                     body_after, push_before, push_after, n)
      JOIN g ON g.id = f.game_id
), heads AS (
    INSERT INTO account_feed_heads (account_id, last_seq)
    SELECT f.account_id, count(*)
      FROM feed_given f
     GROUP BY f.account_id
     ORDER BY f.account_id
        ON CONFLICT (account_id) DO UPDATE
       SET last_seq = account_feed_heads.last_seq + EXCLUDED.last_seq
 RETURNING account_id, last_seq
), items AS (
    SELECT f.game_id, g.version AS game_version, g.at, f.account_id, f.kind, f.payload,
           f.body_before, f.body_after, f.push_before, f.push_after,
           h.last_seq - count(*) OVER (PARTITION BY f.account_id)
               + row_number() OVER (PARTITION BY f.account_id ORDER BY f.n) AS seq
      FROM feed_given f
      JOIN g ON g.id = f.game_id
      JOIN heads h ON h.account_id = f.account_id
), feed AS (
    INSERT INTO account_feed (account_id, seq, kind, game_id, game_version, payload, created_at)
    SELECT i.account_id, i.seq, i.kind, i.game_id, i.game_version, i.payload, i.at FROM items i
), outbox AS (
    INSERT INTO webhook_outbox
           (id, endpoint_id, feed_seq, kind, body, status, attempts, next_at, created_at)
    SELECT 'msg_' || replace(gen_random_uuid()::text, '-', ''), w.id, i.seq, i.kind,
           i.body_before || i.seq || i.body_after, 'pending', 0, i.at, i.at
      FROM items i
      JOIN webhook_endpoints w ON w.account_id = i.account_id AND w.enabled
     WHERE w.kinds = '[]' OR w.kinds::jsonb ? i.kind
)"#;

/// The answers to `Idempotency-Key`s.
pub(super) const IDEMPOTENCY: &str = r#", idempotency AS (
    INSERT INTO idempotency_keys
           (account_id, key, request_hash, status, body, created_at, stored_as)
    SELECT k.account_id, k.key, k.request_hash, k.status, k.body, g.at, k.stored_as
      FROM unnest($41::text[], $42::text[], $43::text[], $44::text[], $45::int[], $46::text[],
                  $47::text[])
                AS k(game_id, account_id, key, request_hash, status, body, stored_as)
      JOIN g ON g.id = k.game_id
)"#;

/// What the statement returns: a row per game written, and a row per game and account whose
/// feed grew, with the seq of that game's last item for the account.
const OUTCOME_WITH_FEED: &str = r#"
SELECT g.id AS game_id, NULL::text AS account_id, NULL::bigint AS last_seq FROM g
UNION ALL
SELECT i.game_id, i.account_id, max(i.seq) FROM items i GROUP BY i.game_id, i.account_id
"#;
const OUTCOME: &str = r#"
SELECT g.id AS game_id, NULL::text AS account_id, NULL::bigint AS last_seq FROM g
"#;

/// Which optional parts the changes need.
#[derive(Clone, Copy, Default)]
pub(super) struct Parts {
    pub gone_seats: bool,
    pub changed_seats: bool,
    pub new_seats: bool,
    pub feed: bool,
    pub idempotency: bool,
}

impl Parts {
    pub fn index(self) -> usize {
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

    pub fn from_index(i: usize) -> Parts {
        Parts {
            gone_seats: i & 1 != 0,
            changed_seats: i & 2 != 0,
            new_seats: i & 4 != 0,
            feed: i & 8 != 0,
            idempotency: i & 16 != 0,
        }
    }

    /// The parts either needs.
    pub fn and(self, other: Parts) -> Parts {
        Parts::from_index(self.index() | other.index())
    }

    /// The statement of these parts for `games` games; each of the 64 texts (32 for one
    /// game, 32 for more) is made once.
    pub fn statement(self, games: usize) -> &'static str {
        static TEXTS: OnceLock<Vec<String>> = OnceLock::new();
        let texts = TEXTS.get_or_init(|| {
            let of = |games| (0..32).map(move |i| Parts::from_index(i).text(games));
            of(1).chain(of(2)).collect()
        });
        let form = if games == 1 { 0 } else { 32 };
        &texts[form + self.index()]
    }

    fn text(self, games: usize) -> String {
        let mut text = String::from(if games == 1 { ONE_GAME } else { GAMES });
        text.push_str(EVENTS);
        for (on, part) in [
            (self.gone_seats, GONE_SEATS),
            (self.changed_seats, CHANGED_SEATS),
            (self.new_seats, NEW_SEATS),
            (self.feed, FEED),
            (self.feed, super::super::devices::PG_ENQUEUE),
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
