-- One game action as ONE statement (one round trip, its own transaction): the compare-and-set
-- UPDATE of the game and the INSERT of the action's two events in one CTE, the events
-- numbered from the updated last_seq. Client c plays game c + 1 (setup.sql); run with -D v=0
-- after resetting the games' version to 0. pgbench variables (-D): state (~3 KB game state),
-- payload (~150 B event payload), v.
\set g :client_id + 1
\set a 2 * :g
WITH game AS (
  UPDATE games SET state = :state, version = version + 1, last_seq = last_seq + 2,
         updated_at = now() AT TIME ZONE 'UTC', due_at = NULL
    WHERE id = '00000000-0000-4000-8000-' || lpad(CAST(:g AS text), 12, '0') AND version = :v
    RETURNING id, version, last_seq, updated_at
), events AS (
  INSERT INTO game_events (game_id, seq, round, kind, actor, payload, created_at)
  SELECT game.id, game.last_seq - 2 + e.n, 1, e.kind,
         '00000000-0000-4000-9000-' || lpad(CAST(:a AS text), 12, '0'), :payload,
         game.updated_at
    FROM game, (VALUES (1, 'drew'), (2, 'drawn_placed')) AS e (n, kind)
)
SELECT version AS v FROM game \gset
