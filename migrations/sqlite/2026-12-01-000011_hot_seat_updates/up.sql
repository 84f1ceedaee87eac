-- As on PostgreSQL (see its migration 11, where this makes a seat update a HOT update): the
-- inbox index on the account alone. SQLite rewrites an index entry only when its columns
-- change, so here too a passing turn no longer touches the index.
DROP INDEX game_seats_account_id_awaiting_idx;
CREATE INDEX game_seats_account_id_idx ON game_seats (account_id);
