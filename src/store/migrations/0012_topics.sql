-- Topics: what a team writes to its contacts about. A contact's subscription to a topic is its own
-- row when it chose; otherwise the topic's default_subscription decides (Resend's rule: opt_in
-- topics reach everyone who has not opted out, opt_out topics only those who opted in).
CREATE TABLE topics (
  id                    uuid PRIMARY KEY,
  team_id               uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  name                  text NOT NULL,
  description           text,
  default_subscription  text NOT NULL CHECK (default_subscription IN ('opt_in', 'opt_out')),  -- fixed at creation
  visibility            text NOT NULL DEFAULT 'private' CHECK (visibility IN ('public', 'private')),
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX topics_team_created ON topics (team_id, created_at DESC, id DESC);

CREATE TABLE contact_topics (
  contact_id    uuid NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
  topic_id      uuid NOT NULL REFERENCES topics (id) ON DELETE CASCADE,
  subscription  text NOT NULL CHECK (subscription IN ('opt_in', 'opt_out')),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (contact_id, topic_id)
);
CREATE INDEX contact_topics_topic ON contact_topics (topic_id);

-- The topic an email was sent for: its recipients who left the topic are held at delivery.
ALTER TABLE emails ADD COLUMN topic_id uuid;
