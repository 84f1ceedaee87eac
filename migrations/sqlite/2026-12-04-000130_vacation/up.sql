-- The SQLite twin of migrations/postgres (see there).
CREATE TABLE vacations (
    id TEXT NOT NULL PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    starts_at TIMESTAMP NOT NULL,
    ends_at TIMESTAMP NOT NULL,
    ended_at TIMESTAMP
);
CREATE INDEX vacations_account_idx ON vacations (account_id, starts_at);
ALTER TABLE game_seats ADD COLUMN away_until TIMESTAMP;
