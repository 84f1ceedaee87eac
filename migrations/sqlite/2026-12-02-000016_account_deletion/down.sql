DROP TRIGGER game_seats_refuse_deleted_update;
DROP TRIGGER game_seats_refuse_deleted_insert;
ALTER TABLE accounts DROP COLUMN deleted_at;
