-- Seeks (service/application/seeks.py, docs/matching.md): a player asks for a game of a title, and
-- the matcher forms games from compatible seeks.  A seek is a row, never process memory: matchers on
-- every worker and replica take them under row locks (the players' rows, FOR NO KEY UPDATE SKIP
-- LOCKED, then their open seeks FOR UPDATE) and create the game in the transaction that marks the
-- seeks matched.
--
-- Seeks are keyed by seek_id and belong to a pool (the player's app, or the guests); the matched
-- game's id is kept on the row.  On Citus: a local (coordinator) table beside the job queue, like
-- work in flight; it is not game data.

CREATE TABLE IF NOT EXISTS seeks (
    seek_id       text        NOT NULL,                 -- 's_' + 20 lowercase hex
    player_id     text        NOT NULL REFERENCES players (player_id),
    app_id        text        REFERENCES apps (app_id), -- the player's app; NULL: a guest
    pool          text        NOT NULL,                 -- who may be matched together: the app's id, or 'guests'
    kind          text        NOT NULL,                 -- the title
    counts        integer[]   NOT NULL,                 -- acceptable player counts (sorted, >= 2)
    constraints   jsonb       NOT NULL DEFAULT '{}',    -- option key -> acceptable values (canonical JSON)
    rated         boolean     NOT NULL DEFAULT false,
    rating        double precision NOT NULL,            -- the player's rating of the title when it sought (ordinal)
    bots_after    integer,                              -- seconds after which bots fill the game (NULL: never)
    bot_level     text,                                 -- the level of those bots
    created_at    timestamptz NOT NULL,
    expires_at    timestamptz NOT NULL,
    status        text        NOT NULL DEFAULT 'open'
                  CHECK (status IN ('open', 'matched', 'cancelled', 'expired')),
    closed_at     timestamptz,                          -- when it left 'open'
    closed_reason text,                                 -- cancelled: 'by_player' or 'matched_elsewhere'
    game_id       text        REFERENCES games (game_id), -- when matched
    seat          integer,                              -- the seat it holds there
    PRIMARY KEY (seek_id)
);

-- At most one open seek per player and title (a second is refused: 409 seek_exists).
CREATE UNIQUE INDEX IF NOT EXISTS seeks_one_open ON seeks (player_id, kind) WHERE status = 'open';
-- The matcher: a pool's open seeks of a title, oldest first.
CREATE INDEX IF NOT EXISTS seeks_open_pool ON seeks (pool, kind, created_at, seek_id) WHERE status = 'open';
-- The sweep: seeks past their time.
CREATE INDEX IF NOT EXISTS seeks_open_expiry ON seeks (expires_at) WHERE status = 'open';
-- GET /v1/me/seeks, newest first (keyset cursor created_at, seek_id).
CREATE INDEX IF NOT EXISTS seeks_of_player ON seeks (player_id, created_at DESC, seek_id DESC);
-- The seeks a game was formed from (its webhook's seek.matched).
CREATE INDEX IF NOT EXISTS seeks_of_game ON seeks (game_id) WHERE game_id IS NOT NULL;
