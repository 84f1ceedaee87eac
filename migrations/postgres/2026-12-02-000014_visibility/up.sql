-- Who may see and join a game, and who may watch it. Games stored before keep the behaviour
-- they had: public (listed, joinable by anyone) and watchable by anyone. New games take the
-- service's defaults (see `service::access`).
ALTER TABLE games ADD COLUMN visibility TEXT NOT NULL DEFAULT 'public';
ALTER TABLE games ADD COLUMN spectators TEXT NOT NULL DEFAULT 'anyone';
-- The accounts invited to the table, as JSON: [{"account_id": …, "username": …}, …].
ALTER TABLE games ADD COLUMN invited TEXT NOT NULL DEFAULT '[]';
