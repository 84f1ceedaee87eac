DROP TRIGGER game_seats_refuse_deleted_update ON game_seats;
DROP TRIGGER game_seats_refuse_deleted_insert ON game_seats;
DROP FUNCTION refuse_deleted_seat();
ALTER TABLE accounts DROP COLUMN deleted_at;
