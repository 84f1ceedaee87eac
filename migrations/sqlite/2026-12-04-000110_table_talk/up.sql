-- The SQLite twin of migrations/postgres (see there).
CREATE TABLE chat_messages (
    game_id TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seq BIGINT NOT NULL,
    author_id TEXT NOT NULL REFERENCES accounts (id),
    body TEXT NOT NULL,
    removed BOOLEAN NOT NULL DEFAULT FALSE,
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE INDEX chat_messages_author_idx ON chat_messages (author_id, created_at);

CREATE TABLE chat_reports (
    game_id TEXT NOT NULL,
    seq BIGINT NOT NULL,
    reporter_id TEXT NOT NULL REFERENCES accounts (id),
    reason TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (game_id, seq, reporter_id),
    FOREIGN KEY (game_id, seq) REFERENCES chat_messages (game_id, seq) ON DELETE CASCADE
);
CREATE INDEX chat_reports_created_idx ON chat_reports (created_at, game_id, seq);
CREATE INDEX chat_reports_reporter_idx ON chat_reports (reporter_id);
