-- "Sign out everywhere": a token carries the generation it was issued in; raising the
-- account's generation makes every earlier token invalid.
ALTER TABLE accounts ADD COLUMN token_generation BIGINT NOT NULL DEFAULT 0;
