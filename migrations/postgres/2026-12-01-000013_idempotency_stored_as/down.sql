ALTER TABLE idempotency_keys
    ADD CONSTRAINT idempotency_keys_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id);
ALTER TABLE idempotency_keys DROP COLUMN stored_as;
