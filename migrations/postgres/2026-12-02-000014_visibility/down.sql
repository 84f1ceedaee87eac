ALTER TABLE games DROP COLUMN invited;
ALTER TABLE games DROP COLUMN spectators;
ALTER TABLE games DROP COLUMN visibility;
