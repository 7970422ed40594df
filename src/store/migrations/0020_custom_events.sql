-- Custom events: what happens in the team's own product (user.created, plan.upgraded...), sent with
-- POST /events/send. Not to be confused with an email's lifecycle events (email_events).
-- custom_event_definitions are the optional named schemas (POST /events); custom_events the history.
CREATE TABLE custom_event_definitions (
  id          uuid PRIMARY KEY,
  team_id     uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  name        text NOT NULL,          -- never starts with the reserved `resend:` prefix
  schema      jsonb,                  -- {field: "string"|"number"|"boolean"|"date"} or NULL
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz,            -- NULL until the first PATCH (Resend's shape)
  UNIQUE (team_id, name)
);
CREATE INDEX custom_event_definitions_team_created ON custom_event_definitions (team_id, created_at DESC, id DESC);

-- One row per accepted event. `email` is always recorded (the contact's address at the time, or
-- the address it was sent for); `contact_id` is set when the contact existed then. A contact's
-- history is its own rows plus the rows sent for its address before it existed.
CREATE TABLE custom_events (
  id          uuid PRIMARY KEY,
  team_id     uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  name        text NOT NULL,
  contact_id  uuid REFERENCES contacts (id) ON DELETE SET NULL,
  email       text NOT NULL,
  payload     jsonb NOT NULL DEFAULT '{}',
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX custom_events_team_created ON custom_events (team_id, created_at DESC, id DESC);
CREATE INDEX custom_events_contact ON custom_events (contact_id, created_at DESC, id DESC) WHERE contact_id IS NOT NULL;
CREATE INDEX custom_events_team_email ON custom_events (team_id, email, created_at DESC, id DESC);
CREATE INDEX custom_events_team_name ON custom_events (team_id, name, created_at DESC, id DESC);
