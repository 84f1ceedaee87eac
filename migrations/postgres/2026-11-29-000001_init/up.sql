-- The PostgreSQL twin of migrations/sqlite: the same tables and columns, so that one diesel
-- schema (src/store/schema.rs) serves both. Ids are TEXT (uuid strings), JSON is TEXT and
-- times are TIMESTAMP (UTC), because those are the types diesel's MultiConnection shares.
-- Unique constraints are named: the store maps a violation to an error code by the name.

CREATE TABLE settings (
    "key" TEXT NOT NULL PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE accounts (
    id TEXT NOT NULL PRIMARY KEY,
    username TEXT NOT NULL,
    -- Lower-cased in Rust, so case-insensitivity is the same on both backends.
    username_lower TEXT NOT NULL CONSTRAINT accounts_username_lower_key UNIQUE,
    password_hash TEXT,
    role TEXT NOT NULL,
    guest BOOLEAN NOT NULL,
    created_at TIMESTAMP NOT NULL
);

CREATE TABLE games (
    id TEXT NOT NULL PRIMARY KEY,
    created_by TEXT NOT NULL REFERENCES accounts (id),
    invite_code TEXT NOT NULL CONSTRAINT games_invite_code_key UNIQUE,
    options TEXT NOT NULL,
    rules_version INTEGER NOT NULL,
    state TEXT NOT NULL,
    status TEXT NOT NULL,
    test_mode BOOLEAN NOT NULL,
    stacked TEXT NOT NULL,
    version BIGINT NOT NULL,
    last_seq BIGINT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
);
CREATE INDEX games_status_updated_at_idx ON games (status, updated_at);
CREATE INDEX games_updated_at_id_idx ON games (updated_at, id);

CREATE TABLE game_seats (
    game_id TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat SMALLINT NOT NULL,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    username TEXT NOT NULL,
    awaiting BOOLEAN NOT NULL,
    CONSTRAINT game_seats_pkey PRIMARY KEY (game_id, seat),
    CONSTRAINT game_seats_game_id_account_id_key UNIQUE (game_id, account_id)
);
CREATE INDEX game_seats_account_id_awaiting_idx ON game_seats (account_id, awaiting);

CREATE TABLE game_events (
    game_id TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seq BIGINT NOT NULL,
    round INTEGER NOT NULL,
    kind TEXT NOT NULL,
    actor TEXT REFERENCES accounts (id),
    payload TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    CONSTRAINT game_events_pkey PRIMARY KEY (game_id, seq)
);
CREATE INDEX game_events_kind_created_at_idx ON game_events (kind, created_at);
CREATE INDEX game_events_actor_created_at_idx ON game_events (actor, created_at);

CREATE TABLE idempotency_keys (
    account_id TEXT NOT NULL REFERENCES accounts (id),
    "key" TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    status INTEGER NOT NULL,
    body TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    CONSTRAINT idempotency_keys_pkey PRIMARY KEY (account_id, "key")
);
