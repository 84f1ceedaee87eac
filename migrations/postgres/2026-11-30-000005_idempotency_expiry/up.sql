-- Idempotency-Key answers expire (RACKO_IDEMPOTENCY_TTL_SECS); the sweep finds the oldest by
-- this index instead of scanning the table.
CREATE INDEX idempotency_keys_created_at_idx ON idempotency_keys (created_at);
