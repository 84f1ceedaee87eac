-- The refresh token spent by the session's last rotation, and when: presented again within a
-- short grace window (its answer was lost on the way) it is answered with a fresh pair rather
-- than taken for reuse. Older tokens, or this one after the window, still end the session.
ALTER TABLE sessions ADD COLUMN previous_hash TEXT;
ALTER TABLE sessions ADD COLUMN rotated_at TIMESTAMP;
