-- The SQLite twin of migrations/postgres: the same tables and columns (see there). NOT NULL is
-- spelled out on primary keys because SQLite would otherwise allow NULL in them.

CREATE TABLE settings (
    "key" TEXT NOT NULL PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE accounts (
    id TEXT NOT NULL PRIMARY KEY,
    username TEXT NOT NULL,
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
