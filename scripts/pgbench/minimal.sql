-- One game action in the minimal transaction: BEGIN, the compare-and-set UPDATE of the game
-- (the version the client last saw, kept in :v; the game's new version and last_seq come
-- back), ONE multi-row INSERT of the action's two events, COMMIT. Client c plays game c + 1
-- (setup.sql); run with -D v=0 after resetting the games' version to 0. pgbench variables
-- (-D): state (~3 KB game state), payload (~150 B event payload), v.
\set g :client_id + 1
\set a 2 * :g
BEGIN;
UPDATE games SET state = :state, version = version + 1, last_seq = last_seq + 2,
       updated_at = now() AT TIME ZONE 'UTC', due_at = NULL
  WHERE id = '00000000-0000-4000-8000-' || lpad(CAST(:g AS text), 12, '0') AND version = :v
  RETURNING version AS v, last_seq AS s \gset
INSERT INTO game_events (game_id, seq, round, kind, actor, payload, created_at)
  VALUES ('00000000-0000-4000-8000-' || lpad(CAST(:g AS text), 12, '0'), :s - 1, 1, 'drew',
          '00000000-0000-4000-9000-' || lpad(CAST(:a AS text), 12, '0'), :payload,
          now() AT TIME ZONE 'UTC'),
         ('00000000-0000-4000-8000-' || lpad(CAST(:g AS text), 12, '0'), :s, 1,
          'drawn_placed', '00000000-0000-4000-9000-' || lpad(CAST(:a AS text), 12, '0'),
          :payload, now() AT TIME ZONE 'UTC');
COMMIT;
