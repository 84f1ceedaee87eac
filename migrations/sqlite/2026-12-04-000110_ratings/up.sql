-- Ratings. A game is rated or casual, fixed at creation (casual for every game stored before).
ALTER TABLE games ADD COLUMN rated BOOLEAN NOT NULL DEFAULT false;
-- Each seat's result of a finished game, written in the transaction that ends it (rated or
-- casual): the stats read these. `pool` is the rating pool (variant family and players).
CREATE TABLE game_results (
    account_id TEXT NOT NULL,
    game_id TEXT NOT NULL,
    pool TEXT NOT NULL,
    rated BOOLEAN NOT NULL,
    rank INTEGER NOT NULL,
    won BOOLEAN NOT NULL,
    points BIGINT NOT NULL,
    rounds INTEGER NOT NULL,
    ended_at TIMESTAMP NOT NULL,
    PRIMARY KEY (account_id, game_id)
);
-- An account's current Weng-Lin rating in one pool: mu and sigma, the rating shown and the
-- rated games it counts.
CREATE TABLE ratings (
    account_id TEXT NOT NULL REFERENCES accounts (id),
    pool TEXT NOT NULL,
    mu DOUBLE NOT NULL,
    sigma DOUBLE NOT NULL,
    rating INTEGER NOT NULL,
    games INTEGER NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    PRIMARY KEY (account_id, pool)
);
-- The leaderboard reads a pool by rating.
CREATE INDEX ratings_board_idx ON ratings (pool, rating, account_id);
-- Every change of a rating, with the game that caused it: ratings can be audited, and
-- recomputed from the exported games.
CREATE TABLE rating_log (
    account_id TEXT NOT NULL,
    game_id TEXT NOT NULL,
    pool TEXT NOT NULL,
    rank INTEGER NOT NULL,
    mu_before DOUBLE NOT NULL,
    sigma_before DOUBLE NOT NULL,
    mu_after DOUBLE NOT NULL,
    sigma_after DOUBLE NOT NULL,
    rating_before INTEGER NOT NULL,
    rating_after INTEGER NOT NULL,
    at TIMESTAMP NOT NULL,
    PRIMARY KEY (account_id, game_id)
);
CREATE INDEX rating_log_account_idx ON rating_log (account_id, at);
