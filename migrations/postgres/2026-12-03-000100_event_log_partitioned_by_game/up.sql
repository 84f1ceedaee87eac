-- The event log is the one table that grows with every action and never shrinks. Partitioned
-- by a hash of game_id, each game's log lives in one partition: a game's reads and its writes
-- touch one partition's indexes, and a partition can be vacuumed, moved or (on a distributed
-- PostgreSQL) placed apart. Sixteen partitions: enough to keep each one's indexes small for
-- years of games, few enough that the cross-game audit queries (one ordered index scan per
-- partition, merged) stay cheap. The rows move in this one transaction, so a database migrated
-- while stopped keeps every event.
ALTER TABLE game_events RENAME TO game_events_before_partitioning;
ALTER TABLE game_events_before_partitioning
    RENAME CONSTRAINT game_events_pkey TO game_events_before_partitioning_pkey;
ALTER INDEX game_events_actor_created_at_game_seq_idx
    RENAME TO game_events_before_partitioning_actor_idx;
ALTER INDEX game_events_kind_created_at_game_seq_idx
    RENAME TO game_events_before_partitioning_kind_idx;
ALTER INDEX game_events_created_at_game_seq_idx
    RENAME TO game_events_before_partitioning_created_at_idx;

CREATE TABLE game_events (
    game_id TEXT NOT NULL,
    seq BIGINT NOT NULL,
    round INTEGER NOT NULL,
    kind TEXT NOT NULL,
    actor TEXT,
    payload TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    CONSTRAINT game_events_pkey PRIMARY KEY (game_id, seq)
) PARTITION BY HASH (game_id);
CREATE TABLE game_events_p00 PARTITION OF game_events FOR VALUES WITH (MODULUS 16, REMAINDER 0);
CREATE TABLE game_events_p01 PARTITION OF game_events FOR VALUES WITH (MODULUS 16, REMAINDER 1);
CREATE TABLE game_events_p02 PARTITION OF game_events FOR VALUES WITH (MODULUS 16, REMAINDER 2);
CREATE TABLE game_events_p03 PARTITION OF game_events FOR VALUES WITH (MODULUS 16, REMAINDER 3);
CREATE TABLE game_events_p04 PARTITION OF game_events FOR VALUES WITH (MODULUS 16, REMAINDER 4);
CREATE TABLE game_events_p05 PARTITION OF game_events FOR VALUES WITH (MODULUS 16, REMAINDER 5);
CREATE TABLE game_events_p06 PARTITION OF game_events FOR VALUES WITH (MODULUS 16, REMAINDER 6);
CREATE TABLE game_events_p07 PARTITION OF game_events FOR VALUES WITH (MODULUS 16, REMAINDER 7);
CREATE TABLE game_events_p08 PARTITION OF game_events FOR VALUES WITH (MODULUS 16, REMAINDER 8);
CREATE TABLE game_events_p09 PARTITION OF game_events FOR VALUES WITH (MODULUS 16, REMAINDER 9);
CREATE TABLE game_events_p10 PARTITION OF game_events FOR VALUES WITH (MODULUS 16, REMAINDER 10);
CREATE TABLE game_events_p11 PARTITION OF game_events FOR VALUES WITH (MODULUS 16, REMAINDER 11);
CREATE TABLE game_events_p12 PARTITION OF game_events FOR VALUES WITH (MODULUS 16, REMAINDER 12);
CREATE TABLE game_events_p13 PARTITION OF game_events FOR VALUES WITH (MODULUS 16, REMAINDER 13);
CREATE TABLE game_events_p14 PARTITION OF game_events FOR VALUES WITH (MODULUS 16, REMAINDER 14);
CREATE TABLE game_events_p15 PARTITION OF game_events FOR VALUES WITH (MODULUS 16, REMAINDER 15);

INSERT INTO game_events (game_id, seq, round, kind, actor, payload, created_at)
SELECT game_id, seq, round, kind, actor, payload, created_at FROM game_events_before_partitioning;
DROP TABLE game_events_before_partitioning;

-- The audit queries' indexes, as before, now one per partition.
CREATE INDEX game_events_actor_created_at_game_seq_idx
    ON game_events (actor, created_at, game_id, seq) WHERE actor IS NOT NULL;
CREATE INDEX game_events_kind_created_at_game_seq_idx
    ON game_events (kind, created_at, game_id, seq);
CREATE INDEX game_events_created_at_game_seq_idx
    ON game_events (created_at, game_id, seq);
ANALYZE game_events;
