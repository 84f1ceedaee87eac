DROP INDEX games_status_listed_at_id_idx;
CREATE INDEX games_status_updated_at_id_idx ON games (status, updated_at, id);
ALTER TABLE games DROP COLUMN listed_at;
