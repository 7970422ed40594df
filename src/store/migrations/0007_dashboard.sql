-- Dashboard: people (users, team memberships, invites), their sessions, MFA, OAuth links, password
-- resets and login throttling; plus the indexes the dashboard's email filters and metrics need.

CREATE TABLE users (
  id              uuid PRIMARY KEY,
  email           text NOT NULL,
  name            text NOT NULL DEFAULT '',
  password_hash   text,                       -- scrypt$N$r$p$salt$hash; NULL for OAuth-only users
  totp_secret     text,                       -- sealed base32 secret (lib/crypto.ts); set during enrolment
  totp_enabled    boolean NOT NULL DEFAULT false,
  totp_last_step  bigint NOT NULL DEFAULT 0,  -- last accepted time step: a code is accepted once
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_unique ON users (lower(email));

ALTER TABLE teams ADD COLUMN require_mfa boolean NOT NULL DEFAULT false;

CREATE TABLE team_members (
  team_id     uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role        text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (team_id, user_id)
);
CREATE INDEX team_members_user ON team_members (user_id);

CREATE TABLE team_invites (
  id          uuid PRIMARY KEY,
  team_id     uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  token_hash  text NOT NULL UNIQUE,           -- sha256 hex; the link is shown once
  role        text NOT NULL CHECK (role IN ('admin', 'member')),
  email       text,                           -- optional: only this address may accept
  created_by  uuid REFERENCES users (id) ON DELETE SET NULL,
  expires_at  timestamptz NOT NULL,
  accepted_at timestamptz,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX team_invites_team ON team_invites (team_id, created_at DESC);

CREATE TABLE sessions (
  id           uuid PRIMARY KEY,
  token_hash   text NOT NULL UNIQUE,          -- sha256 hex of the cookie value; the token is never stored
  user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  team_id      uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,  -- the team the dashboard shows
  mfa_pending  boolean NOT NULL DEFAULT false, -- password accepted, second factor still due
  ip           text,
  user_agent   text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id);
CREATE INDEX sessions_expires ON sessions (expires_at);

CREATE TABLE recovery_codes (
  user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  code_hash  text NOT NULL,                   -- sha256 hex of the normalised code
  used_at    timestamptz,
  PRIMARY KEY (user_id, code_hash)
);

CREATE TABLE oauth_accounts (
  provider     text NOT NULL,                 -- github | google
  subject      text NOT NULL,                 -- the provider's user id
  user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  email        text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (provider, subject)
);
CREATE INDEX oauth_accounts_user ON oauth_accounts (user_id);

CREATE TABLE password_resets (
  token_hash  text PRIMARY KEY,
  user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz
);
CREATE INDEX password_resets_user ON password_resets (user_id);

-- Failed sign-in attempts per key ("acct-ip:<email>|<ip>", "ip:<ip>", "mfa:<user>"), in the
-- database so that every api process sees the same count.
CREATE TABLE login_throttle (
  key           text PRIMARY KEY,
  failures      int NOT NULL,
  window_start  timestamptz NOT NULL,
  locked_until  timestamptz
);

-- Email list filters (GET /emails?status=&domain_id=&api_key_id=&tag=&q=): each is an index in
-- the list's own order, so a page is an index range scan whatever the table size.
CREATE INDEX emails_team_status_created ON emails (team_id, last_event, created_at DESC, id DESC);
CREATE INDEX emails_team_domain_created ON emails (team_id, domain_id, created_at DESC, id DESC);
CREATE INDEX emails_team_key_created ON emails (team_id, api_key_id, created_at DESC, id DESC);
CREATE FUNCTION mailroom_lower_addrs(text[]) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS 'SELECT coalesce(array_agg(lower(a)), ''{}'') FROM unnest($1) AS a';
-- One GIN index answers tag, recipient and subject-word searches (one index to maintain on send).
CREATE INDEX emails_search ON emails USING gin (
  tags jsonb_path_ops, (mailroom_lower_addrs(to_addrs)), (to_tsvector('simple'::regconfig, subject)));

-- Metrics: counts per event type over time, answered from the index alone.
CREATE INDEX email_events_team_type_created ON email_events (team_id, type, created_at);

-- Metrics rollup: event counts per team, UTC hour, domain and type for closed hours (worker job,
-- store/email-metrics.ts). GET /emails/metrics reads whole hours here and only the edges of the
-- range (and the hours not rolled up yet) from email_events. domain_id is the zero UUID for none.
CREATE TABLE email_metrics_hourly (
  team_id      uuid NOT NULL,
  hour         timestamptz NOT NULL,
  domain_id    uuid NOT NULL,
  type         text NOT NULL,
  n            int NOT NULL,
  uniq         int NOT NULL,     -- distinct emails within the hour
  permanent    int NOT NULL,
  transient    int NOT NULL,
  undetermined int NOT NULL,
  PRIMARY KEY (team_id, hour, type, domain_id)
);
CREATE TABLE email_metrics_rollup (
  id     boolean PRIMARY KEY DEFAULT true CHECK (id),
  until  timestamptz NOT NULL    -- hours before this are in email_metrics_hourly
);
CREATE INDEX email_events_created ON email_events (created_at);  -- the rollup reads an hour range of all teams
