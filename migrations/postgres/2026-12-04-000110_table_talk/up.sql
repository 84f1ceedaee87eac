-- Table talk: each game's chat, numbered per game, kept apart from the rules log so that the
-- log and its replay stay exactly the rules' record. `removed` marks a message whose author
-- deleted their account: its text is gone, the entry stays (shown as from a deleted player).
CREATE TABLE chat_messages (
    game_id TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seq BIGINT NOT NULL,
    author_id TEXT NOT NULL REFERENCES accounts (id),
    body TEXT NOT NULL,
    removed BOOLEAN NOT NULL DEFAULT FALSE,
    created_at TIMESTAMP NOT NULL,
    CONSTRAINT chat_messages_pkey PRIMARY KEY (game_id, seq)
);
-- The per-account rate limit counts an author's recent messages; deletion finds them.
CREATE INDEX chat_messages_author_idx ON chat_messages (author_id, created_at);

-- A player's report of a message, once per reporter, for the admins to read.
CREATE TABLE chat_reports (
    game_id TEXT NOT NULL,
    seq BIGINT NOT NULL,
    reporter_id TEXT NOT NULL REFERENCES accounts (id),
    reason TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    CONSTRAINT chat_reports_pkey PRIMARY KEY (game_id, seq, reporter_id),
    CONSTRAINT chat_reports_message_fkey FOREIGN KEY (game_id, seq)
        REFERENCES chat_messages (game_id, seq) ON DELETE CASCADE
);
-- The admins' list, oldest first.
CREATE INDEX chat_reports_created_idx ON chat_reports (created_at, game_id, seq);
CREATE INDEX chat_reports_reporter_idx ON chat_reports (reporter_id);
