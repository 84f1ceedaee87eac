-- A cancelled game (its creator left before it started) gets a status of its own instead of
-- `finished` with a rules state that is not over. Such games are the ones whose log holds a
-- `game_cancelled` entry.
UPDATE games SET status = 'cancelled'
WHERE status = 'finished'
  AND id IN (SELECT game_id FROM game_events WHERE kind = 'game_cancelled');
