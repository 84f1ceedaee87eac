-- Audit queries (src/store/audit.rs) page through events across games in (created_at, game_id,
-- seq) order, filtered by actor or kind or time. Each index below holds the filter column, then
-- exactly that order, so a page is one index range read in order and stops at the limit. The
-- two-column indexes of the init migration are prefixes of the new ones, so they go.
-- Filtering by game uses the primary key (game_id, seq): one game's events, a few thousand.
DROP INDEX IF EXISTS game_events_actor_created_at_idx;
DROP INDEX IF EXISTS game_events_kind_created_at_idx;
CREATE INDEX game_events_actor_created_at_game_seq_idx
    ON game_events (actor, created_at, game_id, seq);
CREATE INDEX game_events_kind_created_at_game_seq_idx
    ON game_events (kind, created_at, game_id, seq);
CREATE INDEX game_events_created_at_game_seq_idx
    ON game_events (created_at, game_id, seq);
