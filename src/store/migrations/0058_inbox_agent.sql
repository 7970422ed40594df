-- The inbox agent (issue 28): per inbox, the operator's instructions, a tone and the actions the
-- agent may take on each new inbound email. No row: the agent is off (no actions).
CREATE TABLE inbox_agents (
  inbox_id      uuid PRIMARY KEY REFERENCES inboxes (id) ON DELETE CASCADE,
  team_id       uuid NOT NULL,
  instructions  text CHECK (length(instructions) <= 4000),
  tone          text,
  actions       text[] NOT NULL DEFAULT '{}',
  updated_at    timestamptz NOT NULL DEFAULT now()
);
