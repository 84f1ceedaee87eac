ALTER TABLE game_seats DROP COLUMN away_until;
DROP TABLE vacations;
