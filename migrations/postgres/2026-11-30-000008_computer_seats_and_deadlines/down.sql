DELETE FROM accounts WHERE username_lower LIKE 'computer-%' AND password_hash IS NULL;
DROP INDEX game_seats_account_id_deadline_idx;
ALTER TABLE game_seats DROP COLUMN reminded;
ALTER TABLE game_seats DROP COLUMN deadline;
DROP INDEX games_due_at_idx;
ALTER TABLE games DROP COLUMN due_at;
