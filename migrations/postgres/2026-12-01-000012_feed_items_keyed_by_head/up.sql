-- Issue 14: each feed item's key to accounts cost a nested look-up of the account row
-- (`SELECT 1 … FOR KEY SHARE`) and a row-lock record in the WAL, about 0.7 of each per
-- action. The key guarded nothing the head row does not: a feed item is only ever written
-- together with its account's head row (src/store/feed.rs, src/store/pg_write.rs), in the
-- same statement or transaction, and the head row keeps its own key to accounts, which are
-- never deleted (leaving for good erases an account's name, not its row). SQLite checks its
-- keys in the process at no such cost, and would have to rebuild the table to drop one: it
-- keeps it.
ALTER TABLE account_feed DROP CONSTRAINT account_feed_account_id_fkey;
