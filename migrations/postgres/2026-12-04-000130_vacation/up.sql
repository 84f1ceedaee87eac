-- R10.5: a person's vacations. One at a time: `ends_at` is the planned end, `ended_at` set
-- when the person came back early (the unused days return to the year's allowance). A
-- vacation counts against the calendar year (UTC) it starts in. Not a game table: the
-- games a vacation touches carry it on their seats (`game_seats.away_until`).
CREATE TABLE vacations (
    id TEXT NOT NULL PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    starts_at TIMESTAMP NOT NULL,
    ends_at TIMESTAMP NOT NULL,
    ended_at TIMESTAMP
);
-- An account's vacations by start: the current one and the year's for the allowance.
CREATE INDEX vacations_account_idx ON vacations (account_id, starts_at);

-- R10.5: the seat's deadline already counts its player's absence until this time; while it
-- is ahead, a new deadline runs from it and no reminder goes out.
ALTER TABLE game_seats ADD COLUMN away_until TIMESTAMP;
