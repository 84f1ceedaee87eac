-- The seek pool: an account asks for a game with these options and is paired with the
-- oldest compatible seekers. `pool` is the key that must be equal (options and the rated
-- flag); `rating` is the seeker's rating when it asked, compared with the others' ranges.
-- A seek is `open` until it is `matched` (with its game) or `cancelled`; an open seek past
-- `expires_at` has expired and never pairs. Not a per-game table: a seek exists before its
-- game, which it names only once matched.
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
-- Pairing reads a pool's open seeks oldest first.
CREATE INDEX seeks_open_pool_idx ON seeks (pool, created_at, id) WHERE status = 'open';
-- An account's own seeks, newest first, and its open ones counted against the bound.
CREATE INDEX seeks_account_idx ON seeks (account_id, created_at);
-- Housekeeping deletes seeks ended long enough ago.
CREATE INDEX seeks_ended_idx ON seeks (ended_at) WHERE ended_at IS NOT NULL;
