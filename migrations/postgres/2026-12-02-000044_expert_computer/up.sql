-- The expert level's computer players: one account per seat, ids as src/service/computer.rs
-- makes them (level index 3).
INSERT INTO accounts (id, username, username_lower, password_hash, role, guest, created_at, token_generation)
VALUES
    ('00000000-0000-0000-0000-00000000c030', 'computer-expert-0', 'computer-expert-0', NULL, 'player', FALSE, CURRENT_TIMESTAMP, 0),
    ('00000000-0000-0000-0000-00000000c031', 'computer-expert-1', 'computer-expert-1', NULL, 'player', FALSE, CURRENT_TIMESTAMP, 0),
    ('00000000-0000-0000-0000-00000000c032', 'computer-expert-2', 'computer-expert-2', NULL, 'player', FALSE, CURRENT_TIMESTAMP, 0),
    ('00000000-0000-0000-0000-00000000c033', 'computer-expert-3', 'computer-expert-3', NULL, 'player', FALSE, CURRENT_TIMESTAMP, 0);
