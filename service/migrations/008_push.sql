-- Web Push (service/application/push.py, docs/frontends.md "Push and install"): a browser's push
-- subscriptions, and what the "your turn" / "game finished" pump has sent of each game.
--
-- A subscription belongs to a player (a player credential subscribed it: it follows the player to
-- every seat it holds) or to one seat of one game (a bare seat token subscribed it).  Its keys are
-- the browser's public ECDH key and auth secret (RFC 8291): not secrets of ours, but only useful to
-- whoever may push to the endpoint.  On Citus: a reference table keyed by subscription_id, like
-- players (not game data); the cursor and the outbox are keyed by the game.
CREATE TABLE IF NOT EXISTS push_subscriptions (
    subscription_id  text        NOT NULL,              -- 'psub_' + 24 lowercase hex
    player_id        text        REFERENCES players (player_id) ON DELETE CASCADE,
    game_id          text,                              -- (no foreign key: a reference table may not point into game data)
    seat             integer,
    endpoint         text        NOT NULL,              -- the push service's URL for this browser
    p256dh           text        NOT NULL,              -- the browser's P-256 public key (base64url)
    auth             text        NOT NULL,              -- its 16-byte auth secret (base64url)
    created_at       timestamptz NOT NULL,
    last_success_at  timestamptz,
    failures         integer     NOT NULL DEFAULT 0,    -- failed sends in a row (a success resets it)
    PRIMARY KEY (subscription_id),
    CHECK ((player_id IS NOT NULL AND game_id IS NULL AND seat IS NULL)
        OR (player_id IS NULL AND game_id IS NOT NULL AND seat IS NOT NULL))
);
-- One row per browser per owner: subscribing again replaces the keys.
CREATE UNIQUE INDEX IF NOT EXISTS push_subscriptions_of_player
    ON push_subscriptions (player_id, endpoint) WHERE player_id IS NOT NULL;
CREATE UNIQUE INDEX IF NOT EXISTS push_subscriptions_of_seat
    ON push_subscriptions (game_id, seat, endpoint) WHERE game_id IS NOT NULL;

-- The pump's cursor per game: how far its record has been turned into notifications.  Advanced in
-- the transaction that queues those notifications (push_outbox), so nothing is derived twice.
CREATE TABLE IF NOT EXISTS push_progress (
    game_id      text        NOT NULL REFERENCES games (game_id),
    seq          bigint      NOT NULL,                  -- the game's version then
    status_seen  text        NOT NULL,
    to_act_seen  integer[]   NOT NULL DEFAULT '{}',     -- who was to act then
    notified     bigint      NOT NULL DEFAULT 0,        -- the last notification's position
    updated_at   timestamptz NOT NULL,
    PRIMARY KEY (game_id)
);

-- Notifications to send: one row per (notification, subscription), deleted once the push service
-- accepted it, given up, or its subscription gone (404/410 from the push service deletes it).
CREATE TABLE IF NOT EXISTS push_outbox (
    game_id          text        NOT NULL,
    subscription_id  text        NOT NULL REFERENCES push_subscriptions (subscription_id) ON DELETE CASCADE,
    position         bigint      NOT NULL,
    kind             text        NOT NULL,              -- turn | finished
    payload          text        NOT NULL,              -- the JSON shown by the service worker
    tries            integer     NOT NULL DEFAULT 0,
    next_attempt_at  timestamptz NOT NULL,
    created_at       timestamptz NOT NULL,
    PRIMARY KEY (game_id, subscription_id, position)
);
CREATE INDEX IF NOT EXISTS push_outbox_due ON push_outbox (next_attempt_at);
