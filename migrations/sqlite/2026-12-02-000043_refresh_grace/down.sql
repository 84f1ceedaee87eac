ALTER TABLE sessions DROP COLUMN rotated_at;
ALTER TABLE sessions DROP COLUMN previous_hash;
