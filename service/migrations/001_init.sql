-- Every table's primary key starts with game_id so the schema can be distributed by game
-- (e.g. Citus) without change.

CREATE TABLE IF NOT EXISTS games (
    game_id          text        NOT NULL,
    kind             text        NOT NULL,
    rules_version    text        NOT NULL,
    options          json        NOT NULL,
    players          integer     NOT NULL,
    seed             text        NOT NULL,          -- secret until the game ends
    seed_commitment  text        NOT NULL,          -- sha256(seed), public from the start
    status           text        NOT NULL,          -- open | active | finished
    version          bigint      NOT NULL,          -- seq of the last event
    last_hash        text        NOT NULL,          -- hash of that event (the chain's head)
    imported         boolean     NOT NULL DEFAULT false,
    created_at       timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL,
    PRIMARY KEY (game_id)
);

-- Listing games by kind/status, newest first, with a keyset cursor.
CREATE INDEX IF NOT EXISTS games_listing ON games (kind, status, created_at DESC, game_id DESC);
CREATE INDEX IF NOT EXISTS games_listing_all ON games (created_at DESC, game_id DESC);

CREATE TABLE IF NOT EXISTS seats (
    game_id     text        NOT NULL REFERENCES games (game_id),
    seat        integer     NOT NULL,
    token_hash  text,                               -- sha256 of the bearer token; NULL while open
    claimed_at  timestamptz,
    PRIMARY KEY (game_id, seat)
);

CREATE TABLE IF NOT EXISTS events (
    game_id          text        NOT NULL REFERENCES games (game_id),
    seq              bigint      NOT NULL,          -- 1, 2, 3 ... per game; the key decides races
    type             text        NOT NULL,
    payload          json        NOT NULL,          -- json (not jsonb) keeps the hashed bytes exact
    visible_to       integer[],                     -- NULL: public; else the seats that may see it
    seat             integer,                       -- the seat whose command caused it; NULL: setup
    command          json,                          -- that command, as received
    idempotency_key  text,
    recorded_at      timestamptz NOT NULL,
    prev_hash        text        NOT NULL,
    hash             text        NOT NULL,          -- sha256(prev_hash + canonical row)
    PRIMARY KEY (game_id, seq)
);

CREATE TABLE IF NOT EXISTS idempotency (
    game_id       text        NOT NULL REFERENCES games (game_id),
    key           text        NOT NULL,
    seat          integer     NOT NULL,
    request_hash  text        NOT NULL,
    status_code   integer     NOT NULL,
    response      bytea       NOT NULL,
    created_at    timestamptz NOT NULL,
    PRIMARY KEY (game_id, key)
);

CREATE TABLE IF NOT EXISTS schema_migrations (
    version     text        NOT NULL PRIMARY KEY,
    applied_at  timestamptz NOT NULL DEFAULT now()
);
