-- Templates (resend-compat 7.6). A template's name and alias are its own (they take effect at
-- once); its content (from, subject, reply_to, html, text, variables) lives in versions, which are
-- never changed once written: every edit of the content writes a new version, publishing points
-- published_version_id at the newest one, and sends render the published version only.
CREATE TABLE templates (
  id                    uuid PRIMARY KEY,
  team_id               uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  name                  text NOT NULL,
  alias                 text,
  latest_version_id     uuid NOT NULL,  -- the working copy: what GET shows and what publish publishes
  published_version_id  uuid,           -- what sends use; NULL until the first publish
  published_at          timestamptz,
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX templates_team_created ON templates (team_id, created_at DESC, id DESC);
-- An alias names one template of the team (sends and every route accept it in place of the id).
CREATE UNIQUE INDEX templates_team_alias ON templates (team_id, alias) WHERE alias IS NOT NULL;

CREATE TABLE template_versions (
  id            uuid PRIMARY KEY,
  team_id       uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  template_id   uuid NOT NULL REFERENCES templates (id) ON DELETE CASCADE,
  number        int NOT NULL,   -- 1, 2, ... per template
  from_addr     text,
  subject       text,
  reply_to      text[],
  html          text NOT NULL,
  text_body     text,
  -- [{id, key, type: string|number, fallback_value, created_at, updated_at}]
  variables     jsonb NOT NULL DEFAULT '[]',
  published_at  timestamptz,    -- when this version was (last) published
  created_at    timestamptz NOT NULL DEFAULT now(),
  UNIQUE (template_id, number)
);
CREATE INDEX template_versions_template_created ON template_versions (template_id, created_at DESC, id DESC);
