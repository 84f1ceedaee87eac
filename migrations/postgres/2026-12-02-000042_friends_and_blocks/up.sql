-- Friends: one row per pair of accounts, the smaller id first, so that two people asking each
-- other at once meet on one row. `requested_by` asked; the row is a friendship once
-- `accepted_at` is set, a request until then. Declining or removing deletes the row.
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
-- Blocks: `blocker` keeps `blocked` away (no request, invitation, shared table or watching as
-- a friend). Either may be looked up: what I block, and who blocks me.
CREATE TABLE blocks (
    blocker_id TEXT NOT NULL REFERENCES accounts (id),
    blocked_id TEXT NOT NULL REFERENCES accounts (id),
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (blocker_id, blocked_id),
    CHECK (blocker_id <> blocked_id)
);
CREATE INDEX blocks_blocked_idx ON blocks (blocked_id);
