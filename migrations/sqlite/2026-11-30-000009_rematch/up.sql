-- Issue 11.5: the rematch of a finished game. Set once, by the request that creates the new
-- game, in the same transaction and only while still NULL (a compare-and-set), so that every
-- later request for a rematch finds the same new game.
ALTER TABLE games ADD COLUMN rematch_id TEXT;
