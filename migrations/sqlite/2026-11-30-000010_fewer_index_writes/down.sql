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
