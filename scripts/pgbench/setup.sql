-- Rows for the pgbench shapes of one game action (scripts/perf-compare.sh): :games games
-- (ids 00000000-0000-4000-8000-<n>, n = 1..:games; pgbench client c plays game c + 1), each
-- with two seats of two accounts (00000000-0000-4000-9000-<2n> and <2n+1>), on the schema of
-- the server's migrations (run `racko migrate` first). psql variables: games, the number of
-- games; state, a game state as the server stores it (~3 KB). Every game starts at version 0;
-- the shapes that keep the version on the client (minimal, one-statement) need it reset to 0
-- before each run (perf-compare.sh does), last_seq keeps growing so events never collide.
BEGIN;
INSERT INTO accounts (id, username, username_lower, password_hash, role, guest, created_at,
                      token_generation)
SELECT '00000000-0000-4000-9000-' || lpad((2 * n + s)::text, 12, '0'),
       'bench-' || (2 * n + s), 'bench-' || (2 * n + s), NULL, 'player', TRUE,
       now() AT TIME ZONE 'UTC', 0
FROM generate_series(1, :games) AS n, generate_series(0, 1) AS s;

INSERT INTO games (id, created_by, invite_code, options, rules_version, state, status,
                   test_mode, stacked, version, last_seq, created_at, updated_at, due_at,
                   listed_at)
SELECT '00000000-0000-4000-8000-' || lpad(n::text, 12, '0'),
       '00000000-0000-4000-9000-' || lpad((2 * n)::text, 12, '0'),
       'BENCH' || n, '{"players":2,"target":1000000}', 1, :'state', 'active', FALSE, '[]',
       0, 0, now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC', NULL, now() AT TIME ZONE 'UTC'
FROM generate_series(1, :games) AS n;

INSERT INTO game_seats (game_id, seat, account_id, username, awaiting, deadline, reminded)
SELECT '00000000-0000-4000-8000-' || lpad(n::text, 12, '0'), s,
       '00000000-0000-4000-9000-' || lpad((2 * n + s)::text, 12, '0'),
       'bench-' || (2 * n + s), s = 0, NULL, FALSE
FROM generate_series(1, :games) AS n, generate_series(0, 1) AS s;
COMMIT;
ANALYZE;
