DROP INDEX game_events_actor_created_at_game_seq_idx;
CREATE INDEX game_events_actor_created_at_game_seq_idx
    ON game_events (actor, created_at, game_id, seq);

DROP INDEX game_seats_account_id_awaiting_idx;
CREATE INDEX game_seats_account_id_awaiting_idx ON game_seats (account_id, awaiting);
CREATE INDEX game_seats_account_id_deadline_idx ON game_seats (account_id, deadline)
    WHERE deadline IS NOT NULL;

DROP INDEX games_status_updated_at_id_idx;
CREATE INDEX games_status_updated_at_idx ON games (status, updated_at);
CREATE INDEX games_updated_at_id_idx ON games (updated_at, id);

ALTER TABLE game_events ADD CONSTRAINT game_events_game_id_fkey
    FOREIGN KEY (game_id) REFERENCES games (id) ON DELETE CASCADE;
ALTER TABLE game_events ADD CONSTRAINT game_events_actor_fkey
    FOREIGN KEY (actor) REFERENCES accounts (id);
