-- As on PostgreSQL (see its migration of the same name, where this lets a move be a HOT
-- update): the public lists order by `listed_at`, which moves within an active game leave
-- as it was. SQLite adds a NOT NULL column only with a default; every row then takes its
-- `updated_at`.
ALTER TABLE games ADD COLUMN listed_at TIMESTAMP NOT NULL DEFAULT '1970-01-01 00:00:00';
UPDATE games SET listed_at = updated_at;
DROP INDEX games_status_updated_at_id_idx;
CREATE INDEX games_status_listed_at_id_idx ON games (status, listed_at, id);
