-- Foundation: teams (tenants), API keys, sending domains, API request logs.
-- Every tenant-owned row carries team_id; store functions always filter on it.

CREATE TABLE teams (
  id          uuid PRIMARY KEY,
  name        text NOT NULL,
  is_default  boolean NOT NULL DEFAULT false,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX teams_one_default ON teams (is_default) WHERE is_default;

CREATE TABLE domains (
  id                  uuid PRIMARY KEY,
  team_id             uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  name                text NOT NULL,
  region              text NOT NULL,
  status              text NOT NULL DEFAULT 'not_started',
  custom_return_path  text NOT NULL DEFAULT 'send',
  open_tracking       boolean NOT NULL DEFAULT false,
  click_tracking      boolean NOT NULL DEFAULT false,
  tls                 text NOT NULL DEFAULT 'opportunistic',
  sending             boolean NOT NULL DEFAULT true,
  receiving           boolean NOT NULL DEFAULT false,
  tracking_subdomain  text,
  dkim_selector       text NOT NULL,
  dkim_algorithm      text NOT NULL DEFAULT 'rsa',
  dkim_public_key     text NOT NULL,
  dkim_private_key    text NOT NULL,          -- sealed with MAILROOM_SECRET_KEY (lib/crypto.ts)
  record_status       jsonb NOT NULL DEFAULT '{}'::jsonb,
  verify_started_at   timestamptz,
  verified_at         timestamptz,
  last_checked_at     timestamptz,
  next_check_at       timestamptz,
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now()
);
-- A domain belongs to one team in the whole installation (DKIM keys and return paths are per domain).
CREATE UNIQUE INDEX domains_name_unique ON domains (lower(name));
CREATE INDEX domains_team_created ON domains (team_id, created_at DESC, id DESC);
CREATE INDEX domains_next_check ON domains (next_check_at) WHERE next_check_at IS NOT NULL;

CREATE TABLE api_keys (
  id            uuid PRIMARY KEY,
  team_id       uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  name          text NOT NULL,
  token_hash    text NOT NULL UNIQUE,          -- sha256 hex of the token; the token is shown once
  token_hint    text NOT NULL,                 -- first characters, for people to tell keys apart
  permission    text NOT NULL CHECK (permission IN ('full_access', 'sending_access')),
  domain_id     uuid REFERENCES domains (id) ON DELETE CASCADE,
  created_at    timestamptz NOT NULL DEFAULT now(),
  last_used_at  timestamptz
);
CREATE INDEX api_keys_team_created ON api_keys (team_id, created_at DESC, id DESC);

CREATE TABLE request_logs (
  id             uuid PRIMARY KEY,
  team_id        uuid REFERENCES teams (id) ON DELETE CASCADE,  -- null when no valid key was given
  api_key_id     uuid,
  method         text NOT NULL,
  endpoint       text NOT NULL,
  path           text NOT NULL,
  status         int NOT NULL,
  error_name     text,
  user_agent     text,
  ip             text,
  request_body   jsonb,
  response_body  jsonb,
  duration_ms    real NOT NULL,
  created_at     timestamptz NOT NULL
);
CREATE INDEX request_logs_team_created ON request_logs (team_id, created_at DESC, id DESC);
CREATE INDEX request_logs_created ON request_logs (created_at);
