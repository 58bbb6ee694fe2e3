-- Ratings and leaderboards (service/application/ratings.py, docs/ratings.md): a projection of the
-- finished rated games' records, never a second truth.  `yamen ratings rebuild` folds the records
-- again, in the recorded application order, and must reproduce these tables exactly.
--
-- player_ratings and rating_changes are keyed by player: on Citus they are reference tables (or
-- distributed by player_id); rated_games is keyed by game_id, distributed with the game.

-- Asked for at create (`"rated": true`, or a seek's game): the game is rated when it finishes if
-- every seat is then held by a distinct player or a bot (service.application.ratings.eligibility).
ALTER TABLE games ADD COLUMN IF NOT EXISTS rated boolean NOT NULL DEFAULT false;
-- Why a game asked to be rated is refused already at create ('creator_took_seats'); NULL otherwise.
ALTER TABLE games ADD COLUMN IF NOT EXISTS unrated_reason text;
-- The sweep's look at the rated games finished lately (service.infra.ratings_store.unsettled).
CREATE INDEX IF NOT EXISTS games_rated_finished ON games (updated_at) WHERE rated AND status = 'finished';

-- One row per player and title: the model's belief (mu, sigma) and the displayed rating derived
-- from it (`rating`, written by the service with the same arithmetic as the history).
CREATE TABLE IF NOT EXISTS player_ratings (
    player_id   text             NOT NULL REFERENCES players (player_id),
    kind        text             NOT NULL,
    mu          double precision NOT NULL,
    sigma       double precision NOT NULL,
    games       integer          NOT NULL,          -- rated games played in this title
    updated_at  timestamptz      NOT NULL,          -- when the last of them was applied
    rating      double precision NOT NULL,          -- the displayed rating: 1000 + 40 * (mu - 3 sigma)
    PRIMARY KEY (player_id, kind)
);
-- The leaderboard: established players (10 rated games or more: PROVISIONAL_GAMES in
-- service/application/ratings.py) by rating, best first, ties by player_id.  The top N is an index
-- scan of N entries; a player's rank counts the entries ahead of it (an index-only scan).
CREATE INDEX IF NOT EXISTS player_ratings_board
    ON player_ratings (kind, rating DESC, player_id) WHERE games >= 10;

-- The application order and the idempotence marker: a game's row is inserted in the transaction
-- that applies it (under the row locks of its players' ratings), so an at-least-once job applies
-- each game once; `position` orders the rated ones as they were applied, which a rebuild replays.
CREATE SEQUENCE IF NOT EXISTS rating_order;
CREATE TABLE IF NOT EXISTS rated_games (
    game_id     text        NOT NULL REFERENCES games (game_id),
    kind        text        NOT NULL,
    rated       boolean     NOT NULL,               -- false: asked to be rated, ended unrated
    reason      text,                               -- why unrated (player_holds_several_seats, ...)
    position    bigint      UNIQUE,                 -- the application order of rated games (NULL: unrated)
    applied_at  timestamptz NOT NULL,
    PRIMARY KEY (game_id)
);

-- Every seat's change in a rated game (bots' seats included, with no player: they never change).
CREATE TABLE IF NOT EXISTS rating_changes (
    game_id        text             NOT NULL REFERENCES rated_games (game_id),
    seat           integer          NOT NULL,
    player_id      text             REFERENCES players (player_id),   -- NULL: a bot's seat
    bot            text,                                              -- the bot level (an anchor)
    kind           text             NOT NULL,
    position       bigint           NOT NULL,
    rank           integer          NOT NULL,       -- the seat's place in the outcome (ties share)
    mu_before      double precision NOT NULL,
    sigma_before   double precision NOT NULL,
    mu_after       double precision NOT NULL,
    sigma_after    double precision NOT NULL,
    rating_before  double precision NOT NULL,
    rating_after   double precision NOT NULL,
    games_after    integer          NOT NULL,       -- the player's rated games in the title after it
    applied_at     timestamptz      NOT NULL,
    PRIMARY KEY (game_id, seat)
);
-- A player's history, newest first (its keyset cursor: position).
CREATE INDEX IF NOT EXISTS rating_changes_of_player
    ON rating_changes (player_id, position DESC) WHERE player_id IS NOT NULL;
