-- Issue 10: the account feed (your turn, a game started, someone joined or left, a game
-- finished), written in the same transaction as the game change that causes it. Each account
-- has its own gapless sequence (the stream's `id:`, resumable with Last-Event-ID); its head
-- row is updated under a row lock, so concurrent games append to one account in turn.
CREATE TABLE account_feed_heads (
    account_id TEXT NOT NULL PRIMARY KEY REFERENCES accounts (id),
    last_seq BIGINT NOT NULL
);

CREATE TABLE account_feed (
    account_id TEXT NOT NULL REFERENCES accounts (id),
    seq BIGINT NOT NULL,
    kind TEXT NOT NULL,
    -- The game it is about (none for an item about the account, e.g. a disabled webhook).
    game_id TEXT,
    game_version BIGINT,
    payload TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (account_id, seq)
);

-- Webhook endpoints of an account. The signing secret is kept to sign with (Standard
-- Webhooks: HMAC-SHA256); it is shown to the account once, on create and rotate.
CREATE TABLE webhook_endpoints (
    id TEXT NOT NULL PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    url TEXT NOT NULL,
    -- JSON array of feed kinds; empty: every kind.
    kinds TEXT NOT NULL,
    secret TEXT NOT NULL,
    enabled BOOLEAN NOT NULL,
    created_at TIMESTAMP NOT NULL
);
CREATE INDEX webhook_endpoints_account_idx ON webhook_endpoints (account_id);

-- The transactional outbox: one row per endpoint and feed item, written in the transaction of
-- the change, delivered (and retried) by any server process; also the delivery log.
CREATE TABLE webhook_outbox (
    id TEXT NOT NULL PRIMARY KEY,
    endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    feed_seq BIGINT NOT NULL,
    kind TEXT NOT NULL,
    body TEXT NOT NULL,
    -- pending, delivered or failed
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    next_at TIMESTAMP NOT NULL,
    -- A process delivering it holds it until then; after that another may take it over.
    claimed_until TIMESTAMP,
    last_status INTEGER,
    last_error TEXT,
    created_at TIMESTAMP NOT NULL,
    finished_at TIMESTAMP
);
CREATE INDEX webhook_outbox_due_idx ON webhook_outbox (status, next_at);
CREATE INDEX webhook_outbox_endpoint_idx ON webhook_outbox (endpoint_id, created_at);
