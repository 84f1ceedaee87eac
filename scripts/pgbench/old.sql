-- One game action as the server writes it before issue 14 (the statements the issue counted
-- with pg_stat_statements and log_statement=all), approximately: a health check on each of two
-- connection checkouts, the account read in its own transaction, then one transaction that
-- locks the game, reads it (version and last_seq into r_version, r_last_seq) and its seats,
-- writes the compare-and-set, rewrites both seats and inserts two events one row at a time.
-- Unlike the server, every statement here is a prepared statement (pgbench -M prepared), so
-- this is a ceiling for today's shape. Client c plays game c + 1 (setup.sql). pgbench
-- variables (-D): state (~3 KB game state), payload (~150 B event payload).
\set g :client_id + 1
\set a 2 * :g
SELECT 1;
SELECT 1;
SELECT id, username, username_lower, password_hash, role, guest, created_at, token_generation
  FROM accounts WHERE id = '00000000-0000-4000-9000-' || lpad(CAST(:a AS text), 12, '0');
BEGIN;
SELECT id FROM games
  WHERE id = '00000000-0000-4000-8000-' || lpad(CAST(:g AS text), 12, '0') FOR UPDATE;
SELECT id, created_by, invite_code, options, rules_version, state, status, test_mode, stacked,
       version, last_seq, created_at, updated_at, due_at, rematch_id
  FROM games WHERE id = '00000000-0000-4000-8000-' || lpad(CAST(:g AS text), 12, '0') \gset r_
SELECT game_id, seat, account_id, username, awaiting, deadline, reminded FROM game_seats
  WHERE game_id = '00000000-0000-4000-8000-' || lpad(CAST(:g AS text), 12, '0') ORDER BY seat;
UPDATE games SET state = :state, status = 'active', version = :r_version + 1,
       last_seq = :r_last_seq + 2, updated_at = now() AT TIME ZONE 'UTC', due_at = NULL
  WHERE id = '00000000-0000-4000-8000-' || lpad(CAST(:g AS text), 12, '0')
    AND version = :r_version;
DELETE FROM game_seats
  WHERE game_id = '00000000-0000-4000-8000-' || lpad(CAST(:g AS text), 12, '0');
INSERT INTO game_seats (game_id, seat, account_id, username, awaiting, deadline, reminded)
  VALUES ('00000000-0000-4000-8000-' || lpad(CAST(:g AS text), 12, '0'), 0,
          '00000000-0000-4000-9000-' || lpad(CAST(:a AS text), 12, '0'), 'bench', TRUE, NULL,
          FALSE);
INSERT INTO game_seats (game_id, seat, account_id, username, awaiting, deadline, reminded)
  VALUES ('00000000-0000-4000-8000-' || lpad(CAST(:g AS text), 12, '0'), 1,
          '00000000-0000-4000-9000-' || lpad(CAST(:a + 1 AS text), 12, '0'), 'bench', FALSE,
          NULL, FALSE);
INSERT INTO game_events (game_id, seq, round, kind, actor, payload, created_at)
  VALUES ('00000000-0000-4000-8000-' || lpad(CAST(:g AS text), 12, '0'), :r_last_seq + 1, 1,
          'drew', '00000000-0000-4000-9000-' || lpad(CAST(:a AS text), 12, '0'), :payload,
          now() AT TIME ZONE 'UTC');
INSERT INTO game_events (game_id, seq, round, kind, actor, payload, created_at)
  VALUES ('00000000-0000-4000-8000-' || lpad(CAST(:g AS text), 12, '0'), :r_last_seq + 2, 1,
          'drawn_placed', '00000000-0000-4000-9000-' || lpad(CAST(:a AS text), 12, '0'),
          :payload, now() AT TIME ZONE 'UTC');
COMMIT;
