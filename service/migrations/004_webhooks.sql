-- Webhooks (service/application/webhooks.py): what an app's server is told about its games.
--
-- An app's endpoints and their signing secrets are *reference tables* (a few rows per app, read
-- with every delivery; on Citus: SELECT create_reference_table('webhook_endpoints'), then
-- webhook_secrets).  The pump's cursor, the deliveries and their attempts belong to one game each:
-- their keys start with game_id, so they are distributed with the game.

CREATE TABLE IF NOT EXISTS webhook_endpoints (
    endpoint_id      text        NOT NULL,              -- 'whep_' + 24 lowercase hex
    app_id           text        NOT NULL,
    url              text        NOT NULL,              -- http(s); checked against SSRF at subscription and at each delivery
    event_types      text[]      NOT NULL,              -- the notifications it wants (game.turn, ...)
    description      text        NOT NULL DEFAULT '',
    enabled          boolean     NOT NULL DEFAULT true, -- false: deliveries wait (the backlog resumes when enabled)
    disabled_reason  text,                              -- why the service disabled it (NULL: the app did, or enabled)
    disabled_at      timestamptz,
    created_at       timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL,
    PRIMARY KEY (endpoint_id)
);
CREATE INDEX IF NOT EXISTS webhook_endpoints_of_app ON webhook_endpoints (app_id, created_at, endpoint_id);

-- Secrets sign deliveries and must be read in clear to do so (a receiver verifies with the same
-- secret).  A rotation adds a generation and gives the previous ones an expiry: until then each
-- delivery carries one signature per live secret (the webhook-signature header's list).
CREATE TABLE IF NOT EXISTS webhook_secrets (
    endpoint_id  text        NOT NULL REFERENCES webhook_endpoints (endpoint_id) ON DELETE CASCADE,
    generation   integer     NOT NULL,                  -- 1, 2, 3 ... per endpoint
    secret       text        NOT NULL,                  -- 'whsec_' + base64 of 32 random bytes
    created_at   timestamptz NOT NULL,
    expires_at   timestamptz,                           -- NULL: the current secret
    PRIMARY KEY (endpoint_id, generation)
);

-- The pump's cursor per app game: how far the game's record (its events, status, seats and
-- rematch) has been turned into notifications.  Advanced in the same transaction that inserts
-- those notifications' deliveries, so a pump that dies loses nothing and repeats nothing.
CREATE TABLE IF NOT EXISTS webhook_progress (
    game_id       text        NOT NULL REFERENCES games (game_id),
    seq           bigint      NOT NULL,                 -- the last event derived from
    status_seen   text        NOT NULL,                 -- the game's status then
    seats_seen    text        NOT NULL,                 -- who played each seat then: '' open, 'p' a person, 'b' a bot (comma-separated)
    rematch_seen  boolean     NOT NULL DEFAULT false,   -- game.rematch_offered derived
    notified      bigint      NOT NULL DEFAULT 0,       -- notifications derived so far (the last one's position)
    finished_at   timestamptz,                          -- when the pump saw the game finished
    updated_at    timestamptz NOT NULL,
    PRIMARY KEY (game_id)
);
-- The sweep looks for a rematch of the games finished lately (docs/integrators.md says how long).
CREATE INDEX IF NOT EXISTS webhook_progress_rematch ON webhook_progress (finished_at)
    WHERE NOT rematch_seen AND finished_at IS NOT NULL;

-- One notification to one endpoint.  Its body is fixed when it is derived (every attempt sends the
-- same bytes, with the same webhook-id); the signature and webhook-timestamp are made per attempt.
CREATE TABLE IF NOT EXISTS webhook_deliveries (
    game_id          text        NOT NULL,
    endpoint_id      text        NOT NULL REFERENCES webhook_endpoints (endpoint_id) ON DELETE CASCADE,
    position         bigint      NOT NULL,              -- the notification's place in its game: the order of delivery
    message_id       text        NOT NULL,              -- webhook-id: 'msg_<position>_<game_id>'
    event_type       text        NOT NULL,
    payload          text        NOT NULL,              -- the JSON body, as signed
    status           text        NOT NULL               -- pending | succeeded | failed (given up)
                     CHECK (status IN ('pending', 'succeeded', 'failed')),
    tries            integer     NOT NULL DEFAULT 0,    -- attempts in the current schedule (a redelivery starts a new one)
    attempts         integer     NOT NULL DEFAULT 0,    -- attempts ever
    next_attempt_at  timestamptz NOT NULL,
    created_at       timestamptz NOT NULL,
    finished_at      timestamptz,                       -- when it succeeded or was given up
    PRIMARY KEY (game_id, endpoint_id, position)
);
-- The delivery log of an endpoint, newest first (its keyset cursor: created_at, game_id, position).
CREATE INDEX IF NOT EXISTS webhook_deliveries_log
    ON webhook_deliveries (endpoint_id, created_at DESC, game_id DESC, position DESC);
-- What is due (the sweep, and an endpoint enabled again).
CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries (endpoint_id, next_attempt_at)
    WHERE status = 'pending';

CREATE TABLE IF NOT EXISTS webhook_attempts (
    game_id           text        NOT NULL,
    endpoint_id       text        NOT NULL,
    position          bigint      NOT NULL,
    attempt           integer     NOT NULL,             -- 1, 2, 3 ... per delivery
    attempted_at      timestamptz NOT NULL,
    status_code       integer,                          -- NULL: no answer (refused, timed out, unreachable)
    error             text,                             -- NULL: a 2xx
    duration_ms       integer     NOT NULL,
    response_excerpt  text        NOT NULL DEFAULT '',  -- the answer's first bytes
    PRIMARY KEY (game_id, endpoint_id, position, attempt),
    FOREIGN KEY (game_id, endpoint_id, position)
        REFERENCES webhook_deliveries (game_id, endpoint_id, position) ON DELETE CASCADE
);

-- The sweep's look at the app games changed lately (service.infra.webhook_store.games_behind).
CREATE INDEX IF NOT EXISTS games_of_app_changed ON games (updated_at) WHERE app_id IS NOT NULL;
