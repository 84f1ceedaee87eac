-- Deleting an account begins by revoking its tokens and setting deleted_at, in one commit;
-- its games are then resigned or left and its name erased. From that commit on, nothing may
-- seat the account again (SQLite runs one write at a time, so the check sees every commit
-- before it).
ALTER TABLE accounts ADD COLUMN deleted_at TIMESTAMP;

CREATE TRIGGER game_seats_refuse_deleted_insert
    BEFORE INSERT ON game_seats
    WHEN EXISTS (SELECT 1 FROM accounts WHERE id = NEW.account_id AND deleted_at IS NOT NULL)
BEGIN
    SELECT RAISE(ABORT, 'racko: the account is deleted');
END;

CREATE TRIGGER game_seats_refuse_deleted_update
    BEFORE UPDATE OF account_id ON game_seats
    WHEN NEW.account_id <> OLD.account_id
     AND EXISTS (SELECT 1 FROM accounts WHERE id = NEW.account_id AND deleted_at IS NOT NULL)
BEGIN
    SELECT RAISE(ABORT, 'racko: the account is deleted');
END;
