-- One row per signed-in device. A refresh token is stored only as its SHA-256 (hex), and the
-- row holds the current one only: a token of the session that is not the current one has
-- been spent, and presenting it ends the session (RFC 9700 §4.14.2). An access token names
-- its session, and stops working once the row is gone or expired.
CREATE TABLE sessions (
    id TEXT NOT NULL PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    refresh_hash TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    -- Signed in or last refreshed.
    last_used_at TIMESTAMP NOT NULL,
    -- Moves forward at each refresh: a session ends only when it goes unused this long.
    expires_at TIMESTAMP NOT NULL,
    user_agent TEXT,
    -- The client's network, coarsened (an IPv4 /24, an IPv6 /48), never its full address.
    client_address TEXT
);
CREATE INDEX sessions_account_idx ON sessions (account_id);
CREATE INDEX sessions_expires_idx ON sessions (expires_at);
