ALTER TABLE idempotency_keys DROP COLUMN stored_as;
