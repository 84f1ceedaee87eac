-- Issue 14: what an idempotency record's body holds. 'answer': the answer as it was sent
-- (a new game, a lobby change). 'change': for an action or a resignation, only what the
-- change set on the game and its log cannot give back (version, status, seats, times, the
-- change's seqs); a retry rebuilds the answer from the log (src/service/idempotency.rs).
-- The answer, ~2.6 KB of JSON, was most of an action's record and of its WAL.
ALTER TABLE idempotency_keys ADD COLUMN stored_as TEXT NOT NULL DEFAULT 'answer';

-- A key record's key to accounts cost each keyed request a nested look-up of the account row
-- (`SELECT 1 … FOR KEY SHARE`) and a row-lock record in the WAL. Records are written only
-- for a signed-in account, in the statement of its change, and accounts are never deleted.
-- SQLite keeps the key (see migration 12).
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_account_id_fkey;
