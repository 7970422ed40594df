-- Automations (resend-compat 8.3): a graph of steps run per contact when a custom event triggers it.
-- automation_runs is one contact's journey through one automation; automation_run_steps holds each
-- step's state. Every step change commits with the job for the next step (store/automations.ts).
CREATE TABLE automations (
  id          uuid PRIMARY KEY,
  team_id     uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  name        text NOT NULL,
  status      text NOT NULL DEFAULT 'disabled' CHECK (status IN ('enabled', 'disabled')),
  trigger_event text NOT NULL,           -- the trigger step's event_name, for the lookup on each event
  steps       jsonb NOT NULL,            -- [{key, type, config}] as validated (automations/graph.ts)
  connections jsonb NOT NULL,            -- [{from, to, type}]
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz
);
CREATE INDEX automations_team_created ON automations (team_id, created_at DESC, id DESC);
CREATE INDEX automations_trigger ON automations (team_id, trigger_event) WHERE status = 'enabled';

CREATE TABLE automation_runs (
  id            uuid PRIMARY KEY,
  automation_id uuid NOT NULL REFERENCES automations (id) ON DELETE CASCADE,
  team_id       uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  contact_id    uuid REFERENCES contacts (id) ON DELETE SET NULL,
  email         text NOT NULL,
  event         jsonb NOT NULL,          -- the trigger event's payload, for {var: "event.x"} and conditions
  status        text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'completed', 'failed', 'cancelled')),
  started_at    timestamptz NOT NULL DEFAULT now(),
  completed_at  timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX automation_runs_list ON automation_runs (automation_id, created_at DESC, id DESC);
-- Re-entry: a contact has at most one running run of an automation.
CREATE UNIQUE INDEX automation_runs_one_running ON automation_runs (automation_id, email) WHERE status = 'running';
-- An event's look for the runs of its contact that wait for it.
CREATE INDEX automation_runs_team_email ON automation_runs (team_id, email) WHERE status = 'running';

CREATE TABLE automation_run_steps (
  run_id       uuid NOT NULL REFERENCES automation_runs (id) ON DELETE CASCADE,
  key          text NOT NULL,
  type         text NOT NULL,
  status       text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'waiting', 'completed', 'failed', 'skipped')),
  wait_event   text,                     -- wait_for_event: the event name that resumes it
  output       jsonb,
  error        jsonb,
  started_at   timestamptz,
  completed_at timestamptz,
  created_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (run_id, key)
);
CREATE INDEX automation_run_steps_waiting ON automation_run_steps (wait_event) WHERE status = 'waiting' AND wait_event IS NOT NULL;
