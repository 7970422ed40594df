-- Contacts (resend-compat 7.1) and the team's custom contact properties (7.4).
--
-- contact.created|updated|deleted events are rows of email_events (the one webhook outbox, read
-- by (txid, seq)): email_id holds the contact id (0008 dropped the FK to emails), recipient is
-- NULL. Email timelines look events up by an id found in `emails`, and metrics count email.* types
-- (the hourly rollup joins `emails`), so these rows appear in neither.

CREATE TABLE contact_properties (
  id              uuid PRIMARY KEY,
  team_id         uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  key             text NOT NULL,                -- [A-Za-z0-9_]{1,50}, case-sensitive
  type            text NOT NULL CHECK (type IN ('string', 'number')),
  fallback_value  jsonb,                        -- a JSON string or number of `type`, or NULL
  created_at      timestamptz NOT NULL DEFAULT now(),
  UNIQUE (team_id, key)
);
CREATE INDEX contact_properties_team_created ON contact_properties (team_id, created_at DESC, id DESC);

CREATE TABLE contacts (
  id            uuid PRIMARY KEY,
  team_id       uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  email         text NOT NULL,                  -- lowercased: one contact per address and team
  first_name    text,
  last_name     text,
  unsubscribed  boolean NOT NULL DEFAULT false,   -- global opt-out from broadcasts
  properties    jsonb NOT NULL DEFAULT '{}',      -- key -> value, keys of contact_properties
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  UNIQUE (team_id, email)
);
CREATE INDEX contacts_team_created ON contacts (team_id, created_at DESC, id DESC);
