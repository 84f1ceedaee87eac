ALTER TABLE games RESET (fillfactor);
ALTER TABLE game_seats RESET (fillfactor);
DROP INDEX game_seats_account_id_idx;
CREATE INDEX game_seats_account_id_awaiting_idx ON game_seats (account_id, awaiting, deadline);
