-- Issue 14: what an idempotency record's body holds. 'answer': the answer as it was sent
-- (a new game, a lobby change). 'change': for an action or a resignation, only what the
-- change set on the game and its log cannot give back (version, status, seats, times, the
-- change's seqs); a retry rebuilds the answer from the log (src/service/idempotency.rs).
-- The answer, ~2.6 KB of JSON, was most of an action's record and of its WAL.
ALTER TABLE idempotency_keys ADD COLUMN stored_as TEXT NOT NULL DEFAULT 'answer';
