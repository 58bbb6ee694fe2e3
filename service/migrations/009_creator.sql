-- Who created a game (service.application.seats, "Filling seats with bots"): only its creator may
-- fill its open seats with bots.  'player:<player_id>' (a player's credential or assertion, or an
-- app's key creating for a player), 'app:<app_id>' (an app's key), 'seats:<n>,<n>…' (nobody known:
-- whoever holds one of the seats the create request took), 'nobody' (an anonymous create that took
-- no seat: its bots are set at create; the matcher's games).  NULL: a game created before this
-- column, whose open seats anybody may still fill, as then.
ALTER TABLE games ADD COLUMN IF NOT EXISTS creator text;
