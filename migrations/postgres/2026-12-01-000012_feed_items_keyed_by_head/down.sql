ALTER TABLE account_feed
    ADD CONSTRAINT account_feed_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id);
