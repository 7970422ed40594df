-- Emails: the accepted message (raw MIME stored once, purged by retention), its events (the
-- outbox for webhooks), the suppression list, and idempotency keys for the send endpoints.

CREATE TABLE emails (
  id            uuid PRIMARY KEY,
  team_id       uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  domain_id     uuid REFERENCES domains (id) ON DELETE SET NULL,
  api_key_id    uuid,
  source        text NOT NULL DEFAULT 'api',          -- api | smtp
  message_id    text NOT NULL,                        -- with angle brackets
  from_header   text NOT NULL,                        -- as given at send time
  to_addrs      text[] NOT NULL,
  cc_addrs      text[] NOT NULL DEFAULT '{}',
  bcc_addrs     text[] NOT NULL DEFAULT '{}',
  reply_to      text[] NOT NULL DEFAULT '{}',
  subject       text NOT NULL,
  html          text,
  text_body     text,
  headers       jsonb,                                -- custom headers [{name, value}]
  tags          jsonb NOT NULL DEFAULT '[]'::jsonb,   -- [{name, value}]
  scheduled_at  timestamptz,
  last_event    text NOT NULL,
  delayed_once  boolean NOT NULL DEFAULT false,       -- email.delivery_delayed is emitted once per email
  raw           bytea,                                -- the composed MIME; NULL once purged
  raw_purged_at timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX emails_team_created ON emails (team_id, created_at DESC, id DESC);
CREATE INDEX emails_raw_retention ON emails (created_at) WHERE raw IS NOT NULL;

CREATE TABLE email_events (
  id          uuid PRIMARY KEY,
  email_id    uuid NOT NULL REFERENCES emails (id) ON DELETE CASCADE,
  team_id     uuid NOT NULL,
  type        text NOT NULL,                -- email.sent, email.delivered, ... (webhook names)
  recipient   text,
  data        jsonb NOT NULL,               -- the webhook `data` object for this event
  detail      jsonb,                        -- what happened, for people: SMTP reply, MX host, TLS, attempt
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX email_events_email ON email_events (email_id, created_at, id);
CREATE INDEX email_events_team_created ON email_events (team_id, created_at);

-- Delivery jobs are found by email for cancel and reschedule.
CREATE INDEX jobs_email_deliver ON jobs ((payload->>'email_id')) WHERE kind = 'email.deliver';

CREATE TABLE suppressions (
  id          uuid PRIMARY KEY,
  team_id     uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  email       text NOT NULL,                -- lowercased address
  origin      text NOT NULL CHECK (origin IN ('bounce', 'complaint', 'manual')),
  source_id   uuid,                         -- the email that caused it
  reason      text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (team_id, email)
);
CREATE INDEX suppressions_team_created ON suppressions (team_id, created_at DESC, id DESC);

CREATE TABLE idempotency_keys (
  team_id          uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  method           text NOT NULL,
  path             text NOT NULL,
  key              text NOT NULL,
  request_hash     text NOT NULL,
  state            text NOT NULL CHECK (state IN ('in_flight', 'done')),
  response_status  int,
  response_body    jsonb,
  created_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (team_id, method, path, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
