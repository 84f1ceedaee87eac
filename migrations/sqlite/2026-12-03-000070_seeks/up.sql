-- The SQLite twin of migrations/postgres (see there).
CREATE TABLE seeks (
    id TEXT NOT NULL PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    pool TEXT NOT NULL,
    options TEXT NOT NULL,
    rated BOOLEAN NOT NULL,
    rating INTEGER NOT NULL,
    min_rating INTEGER,
    max_rating INTEGER,
    status TEXT NOT NULL,
    game_id TEXT,
    created_at TIMESTAMP NOT NULL,
    expires_at TIMESTAMP NOT NULL,
    ended_at TIMESTAMP,
    CHECK (status IN ('open', 'matched', 'cancelled')),
    CHECK ((status = 'matched') = (game_id IS NOT NULL))
);
CREATE INDEX seeks_open_pool_idx ON seeks (pool, created_at, id) WHERE status = 'open';
CREATE INDEX seeks_account_idx ON seeks (account_id, created_at);
CREATE INDEX seeks_ended_idx ON seeks (ended_at) WHERE ended_at IS NOT NULL;
