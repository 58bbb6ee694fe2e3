-- Apps (integrators), their API keys and assertion signing keys; players vouched for by an app,
-- and their credentials; which app owns a game and who may see it; which player holds a seat.
--
-- The account tables are *reference tables*: small, read by key on every request, never
-- distributed by game (on Citus: SELECT create_reference_table('apps'), then app_keys,
-- app_signing_keys, app_days, players, player_credentials).  Everything about a game stays keyed
-- by game_id.  Secrets are stored as the SHA-256 of the whole credential, never in clear; the one
-- exception is an HS256 signing secret, which verifying an assertion needs as it was issued.

CREATE TABLE IF NOT EXISTS apps (
    app_id               text        NOT NULL,          -- 'app_' + 16 lowercase hex
    name                 text        NOT NULL,
    created_at           timestamptz NOT NULL,
    requests_per_minute  integer     NOT NULL,          -- the app's own bucket, for its key and its players
    games_per_day        integer     NOT NULL,          -- games created (and rematches) per UTC day
    concurrent_games     integer     NOT NULL,          -- games not finished (open or active) at once
    default_visibility   text        NOT NULL DEFAULT 'public'
                         CHECK (default_visibility IN ('public', 'app', 'private')),
    disabled_at          timestamptz,                   -- set: every key of the app is refused
    PRIMARY KEY (app_id)
);

CREATE TABLE IF NOT EXISTS app_keys (
    key_id       text        NOT NULL,                  -- 12 lowercase hex: public, names the key
    app_id       text        NOT NULL REFERENCES apps (app_id),
    secret_hash  text        NOT NULL,                  -- sha256 of the whole key 'ymk_<key_id>.<secret>'
    created_at   timestamptz NOT NULL,
    expires_at   timestamptz,                           -- set by a rotation: the end of the overlap
    revoked_at   timestamptz,
    PRIMARY KEY (key_id)
);
CREATE INDEX IF NOT EXISTS app_keys_of_app ON app_keys (app_id, created_at);

CREATE TABLE IF NOT EXISTS app_signing_keys (
    app_id      text        NOT NULL REFERENCES apps (app_id),
    kid         text        NOT NULL,                   -- the JWT header's kid
    alg         text        NOT NULL CHECK (alg IN ('HS256', 'EdDSA')),
    key         text        NOT NULL,                   -- HS256: the shared secret; EdDSA: the app's public key (PEM)
    created_at  timestamptz NOT NULL,
    revoked_at  timestamptz,
    PRIMARY KEY (app_id, kid)
);

-- Games an app created per UTC day, counted at create (and rematch) by one upsert that refuses
-- past the app's limit: a row per app and day instead of counting the day's games each time.
CREATE TABLE IF NOT EXISTS app_days (
    app_id  text     NOT NULL REFERENCES apps (app_id),
    day     date     NOT NULL,
    games   integer  NOT NULL,
    PRIMARY KEY (app_id, day)
);

CREATE TABLE IF NOT EXISTS players (
    player_id     text        NOT NULL,                 -- 'p_' + lowercase hex
    app_id        text        REFERENCES apps (app_id), -- NULL: a guest of the reference client
    external_id   text,                                 -- the app's own id for its user
    display_name  text,
    created_at    timestamptz NOT NULL,
    PRIMARY KEY (player_id),
    UNIQUE (app_id, external_id)
);

CREATE TABLE IF NOT EXISTS player_credentials (
    credential_id  text        NOT NULL,                -- public, names the credential
    player_id      text        NOT NULL REFERENCES players (player_id),
    secret_hash    text        NOT NULL,                -- sha256 of the whole 'ymp_<credential_id>.<secret>'
    created_at     timestamptz NOT NULL,
    expires_at     timestamptz,
    revoked_at     timestamptz,
    PRIMARY KEY (credential_id)
);
CREATE INDEX IF NOT EXISTS player_credentials_of_player ON player_credentials (player_id);

-- Who owns a game (the app whose key or player created it; NULL: anonymous, a guest, an import)
-- and who may list and watch it: public (anyone), app (the owning app's key and players),
-- private (the owning app's key and the game's own seats).
ALTER TABLE games ADD COLUMN IF NOT EXISTS app_id text REFERENCES apps (app_id);
ALTER TABLE games ADD COLUMN IF NOT EXISTS visibility text NOT NULL DEFAULT 'public'
    CHECK (visibility IN ('public', 'app', 'private'));
-- Listing what an anonymous caller may see, and an app's games (its limits count them).
CREATE INDEX IF NOT EXISTS games_public_listing ON games (created_at DESC, game_id DESC)
    WHERE visibility = 'public';
CREATE INDEX IF NOT EXISTS games_of_app ON games (app_id, created_at DESC, game_id DESC)
    WHERE app_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS games_of_app_unfinished ON games (app_id)
    WHERE app_id IS NOT NULL AND status <> 'finished';

-- The player a seat is bound to (a claim or a create by a player), NULL for a bare seat token.
ALTER TABLE seats ADD COLUMN IF NOT EXISTS player_id text REFERENCES players (player_id);
CREATE INDEX IF NOT EXISTS seats_of_player ON seats (player_id, game_id) WHERE player_id IS NOT NULL;

-- Who is to act in the game's latest state (its seats; empty when nobody is, NULL before this
-- column), written with every append and at create: a player's "games where I am to act"
-- (GET /v1/me/games?to_act=true) is one indexed read, without folding a game.
ALTER TABLE games ADD COLUMN IF NOT EXISTS to_act integer[];
