DROP INDEX IF EXISTS game_events_created_at_game_seq_idx;
DROP INDEX IF EXISTS game_events_kind_created_at_game_seq_idx;
DROP INDEX IF EXISTS game_events_actor_created_at_game_seq_idx;
CREATE INDEX game_events_kind_created_at_idx ON game_events (kind, created_at);
CREATE INDEX game_events_actor_created_at_idx ON game_events (actor, created_at);
