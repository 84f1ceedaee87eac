-- A move in an active game rewrote its games row with a new `updated_at`, and since the lists'
-- index held `updated_at`, that row could never be a HOT update: every move wrote an entry
-- into each of the games' indexes (the key, the invite code, the lists), B-tree work inside
-- the one write statement that every game's action waits on.
--
-- The public lists now order by `listed_at`: the time of the game's latest change, except
-- that moves within an active game leave it where the game started. So the open lobby and the
-- finished games keep their order (their latest change first), the active games list the most
-- recently started first, and a move changes no indexed column of the games row. A player's
-- own games are found through their seats and still sorted by `updated_at`, the latest move
-- first.
ALTER TABLE games ADD COLUMN listed_at TIMESTAMP;
UPDATE games SET listed_at = updated_at;
ALTER TABLE games ALTER COLUMN listed_at SET NOT NULL;
-- This release sets it on every write. A process of the previous release, still serving
-- during a rolling upgrade, inserts games without it: they are listed from their creation.
ALTER TABLE games ALTER COLUMN listed_at SET DEFAULT (now() AT TIME ZONE 'UTC');
DROP INDEX games_status_updated_at_id_idx;
CREATE INDEX games_status_listed_at_id_idx ON games (status, listed_at, id);
