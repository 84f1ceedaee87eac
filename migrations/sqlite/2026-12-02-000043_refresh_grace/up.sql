-- The SQLite twin of migrations/postgres (see there).
ALTER TABLE sessions ADD COLUMN previous_hash TEXT;
ALTER TABLE sessions ADD COLUMN rotated_at TIMESTAMP;
