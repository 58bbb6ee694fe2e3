-- A seat played by the computer: its bot level (domain.kernel.bots), NULL for a person.
-- A bot seat is claimed like any other (its token hash is of a token nobody was shown).
ALTER TABLE seats ADD COLUMN IF NOT EXISTS bot text;
CREATE INDEX IF NOT EXISTS seats_bots ON seats (game_id) WHERE bot IS NOT NULL;
