-- Issue 14: every action rewrote more index entries than its queries need (write
-- amplification: 18 B-tree insertions per action, 44 % of its WAL). Each index below is
-- justified by the query named beside it.

-- The lists (src/store/list.rs) always filter games by status (or by player, through the
-- seats), newest activity first with (updated_at, id) as the keyset: one index serves them;
-- the (updated_at, id) index without the status served no query.
DROP INDEX games_updated_at_id_idx;
DROP INDEX games_status_updated_at_idx;
CREATE INDEX games_status_updated_at_id_idx ON games (status, updated_at, id);

-- The inbox (filter=my_turn, and sort=deadline) reads an account's awaited seats with their
-- deadlines: one index instead of two, each rewritten whenever a turn passed.
DROP INDEX game_seats_account_id_deadline_idx;
DROP INDEX game_seats_account_id_awaiting_idx;
CREATE INDEX game_seats_account_id_awaiting_idx ON game_seats (account_id, awaiting, deadline);

-- Audit by actor (src/store/audit.rs) asks for one actor, never for "no actor": the events
-- the server writes on its own (deals, timeouts) need no entry.
DROP INDEX game_events_actor_created_at_game_seq_idx;
CREATE INDEX game_events_actor_created_at_game_seq_idx
    ON game_events (actor, created_at, game_id, seq) WHERE actor IS NOT NULL;

-- The event log's foreign keys cost each event two nested look-ups, each writing a row lock
-- to the WAL. Events are only ever written by the game's one write statement, from the game
-- row it has just updated and from authenticated accounts, and neither games nor accounts
-- are ever deleted (leaving for good erases an account's name, not its row): the keys
-- guarded nothing a query relies on. (SQLite checks its keys in the process, at no such
-- cost, and would have to rebuild the table to drop them: it keeps them.)
ALTER TABLE game_events DROP CONSTRAINT game_events_game_id_fkey;
ALTER TABLE game_events DROP CONSTRAINT game_events_actor_fkey;
