DROP TABLE rating_log;
DROP TABLE ratings;
DROP TABLE game_results;
ALTER TABLE games DROP COLUMN rated;
