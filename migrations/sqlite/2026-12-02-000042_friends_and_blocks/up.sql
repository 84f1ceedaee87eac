-- The SQLite twin of migrations/postgres (see there).
CREATE TABLE friendships (
    low_id TEXT NOT NULL REFERENCES accounts (id),
    high_id TEXT NOT NULL REFERENCES accounts (id),
    requested_by TEXT NOT NULL REFERENCES accounts (id),
    created_at TIMESTAMP NOT NULL,
    accepted_at TIMESTAMP,
    PRIMARY KEY (low_id, high_id),
    CHECK (low_id < high_id),
    CHECK (requested_by = low_id OR requested_by = high_id)
);
CREATE INDEX friendships_high_idx ON friendships (high_id);
CREATE TABLE blocks (
    blocker_id TEXT NOT NULL REFERENCES accounts (id),
    blocked_id TEXT NOT NULL REFERENCES accounts (id),
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (blocker_id, blocked_id),
    CHECK (blocker_id <> blocked_id)
);
CREATE INDEX blocks_blocked_idx ON blocks (blocked_id);
