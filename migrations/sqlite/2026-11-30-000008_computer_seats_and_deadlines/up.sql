-- Issues 11 and 12: the server acts for seats on its own (computer players, resigned seats,
-- seats whose turn time ran out). `due_at` is the earliest moment it must look at a game
-- again; every process's sweeper finds due games through the partial index, never by a scan.
ALTER TABLE games ADD COLUMN due_at TIMESTAMP;
CREATE INDEX games_due_at_idx ON games (due_at) WHERE due_at IS NOT NULL;

-- R10.1: an awaited seat's deadline, for the view and the inbox sorted by urgency.
ALTER TABLE game_seats ADD COLUMN deadline TIMESTAMP;
CREATE INDEX game_seats_account_id_deadline_idx ON game_seats (account_id, deadline)
    WHERE deadline IS NOT NULL;
-- Issue 11.4: the "your deadline is near" reminder went out for the current deadline.
ALTER TABLE game_seats ADD COLUMN reminded BOOLEAN NOT NULL DEFAULT FALSE;

-- The computer players (issue 12): one account per level and seat, so that a table may hold
-- several of one level and the log names the computer as the actor. No password, no token:
-- nobody signs in as them. Ids are fixed (see src/service/computer.rs).
INSERT INTO accounts (id, username, username_lower, password_hash, role, guest, created_at, token_generation)
VALUES
    ('00000000-0000-0000-0000-00000000c000', 'computer-random-0', 'computer-random-0', NULL, 'player', FALSE, CURRENT_TIMESTAMP, 0),
    ('00000000-0000-0000-0000-00000000c001', 'computer-random-1', 'computer-random-1', NULL, 'player', FALSE, CURRENT_TIMESTAMP, 0),
    ('00000000-0000-0000-0000-00000000c002', 'computer-random-2', 'computer-random-2', NULL, 'player', FALSE, CURRENT_TIMESTAMP, 0),
    ('00000000-0000-0000-0000-00000000c003', 'computer-random-3', 'computer-random-3', NULL, 'player', FALSE, CURRENT_TIMESTAMP, 0),
    ('00000000-0000-0000-0000-00000000c010', 'computer-basic-0', 'computer-basic-0', NULL, 'player', FALSE, CURRENT_TIMESTAMP, 0),
    ('00000000-0000-0000-0000-00000000c011', 'computer-basic-1', 'computer-basic-1', NULL, 'player', FALSE, CURRENT_TIMESTAMP, 0),
    ('00000000-0000-0000-0000-00000000c012', 'computer-basic-2', 'computer-basic-2', NULL, 'player', FALSE, CURRENT_TIMESTAMP, 0),
    ('00000000-0000-0000-0000-00000000c013', 'computer-basic-3', 'computer-basic-3', NULL, 'player', FALSE, CURRENT_TIMESTAMP, 0),
    ('00000000-0000-0000-0000-00000000c020', 'computer-strong-0', 'computer-strong-0', NULL, 'player', FALSE, CURRENT_TIMESTAMP, 0),
    ('00000000-0000-0000-0000-00000000c021', 'computer-strong-1', 'computer-strong-1', NULL, 'player', FALSE, CURRENT_TIMESTAMP, 0),
    ('00000000-0000-0000-0000-00000000c022', 'computer-strong-2', 'computer-strong-2', NULL, 'player', FALSE, CURRENT_TIMESTAMP, 0),
    ('00000000-0000-0000-0000-00000000c023', 'computer-strong-3', 'computer-strong-3', NULL, 'player', FALSE, CURRENT_TIMESTAMP, 0);
