-- Back to one table, every event kept.
ALTER TABLE game_events RENAME TO game_events_partitioned;
ALTER TABLE game_events_partitioned RENAME CONSTRAINT game_events_pkey TO game_events_partitioned_pkey;
ALTER INDEX game_events_actor_created_at_game_seq_idx RENAME TO game_events_partitioned_actor_idx;
ALTER INDEX game_events_kind_created_at_game_seq_idx RENAME TO game_events_partitioned_kind_idx;
ALTER INDEX game_events_created_at_game_seq_idx RENAME TO game_events_partitioned_created_at_idx;
CREATE TABLE game_events (
    game_id TEXT NOT NULL,
    seq BIGINT NOT NULL,
    round INTEGER NOT NULL,
    kind TEXT NOT NULL,
    actor TEXT,
    payload TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    CONSTRAINT game_events_pkey PRIMARY KEY (game_id, seq)
);
INSERT INTO game_events SELECT game_id, seq, round, kind, actor, payload, created_at
FROM game_events_partitioned;
DROP TABLE game_events_partitioned;
CREATE INDEX game_events_actor_created_at_game_seq_idx
    ON game_events (actor, created_at, game_id, seq) WHERE actor IS NOT NULL;
CREATE INDEX game_events_kind_created_at_game_seq_idx ON game_events (kind, created_at, game_id, seq);
CREATE INDEX game_events_created_at_game_seq_idx ON game_events (created_at, game_id, seq);
