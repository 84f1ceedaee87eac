-- Deleting an account begins by revoking its tokens and setting deleted_at, in one commit;
-- its games are then resigned or left and its name erased. From that commit on, nothing may
-- seat the account again: a join or a new game that authenticated just before it is refused
-- here, inside its own transaction. FOR SHARE waits for a deletion in progress (whose UPDATE
-- holds the row) and then reads the row as committed, and a deletion waits for a seat in
-- progress, so a seat is either refused or committed before the deletion lists the account's
-- games.
ALTER TABLE accounts ADD COLUMN deleted_at TIMESTAMP;

CREATE FUNCTION refuse_deleted_seat() RETURNS trigger AS $$
DECLARE
    deleted TIMESTAMP;
BEGIN
    -- The row is locked whatever it holds: a filter on deleted_at would be judged on the
    -- snapshot and skip a row whose deletion is being committed.
    SELECT deleted_at INTO deleted FROM accounts WHERE id = NEW.account_id FOR SHARE;
    IF deleted IS NOT NULL THEN
        RAISE EXCEPTION 'racko: the account is deleted';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER game_seats_refuse_deleted_insert
    BEFORE INSERT ON game_seats
    FOR EACH ROW EXECUTE FUNCTION refuse_deleted_seat();

-- An action rewrites seats in place with the same account: the condition, not the function,
-- lets those pass.
CREATE TRIGGER game_seats_refuse_deleted_update
    BEFORE UPDATE OF account_id ON game_seats
    FOR EACH ROW WHEN (OLD.account_id IS DISTINCT FROM NEW.account_id)
    EXECUTE FUNCTION refuse_deleted_seat();
