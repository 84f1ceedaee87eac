-- Issue 14: an action rewrites its seats when the turn passes (awaiting, deadline), and each
-- such update wrote a new entry into all three seat indexes because `awaiting` and
-- `deadline` were indexed: about four B-tree insertions, some 430 WAL bytes, per action.
-- With the inbox index on the account alone, a seat update changes no indexed column and
-- is a HOT update (the new row version on the same page, no index entry). The inbox
-- (src/store/list.rs: filter=my_turn, sort=deadline) now reads the account's seats through
-- this index and keeps the awaited ones: as many rows as the player has games.
DROP INDEX game_seats_account_id_awaiting_idx;
CREATE INDEX game_seats_account_id_idx ON game_seats (account_id);

-- Room on each page for the next versions of its rows: a HOT update needs it, and a game's
-- update (never HOT: `updated_at` orders the lists) that stays on its page is logged without
-- the bytes it shares with the old version (id, creator, invite code, options).
ALTER TABLE game_seats SET (fillfactor = 80);
ALTER TABLE games SET (fillfactor = 50);
