-- Segments (Resend's ex-audiences; /audiences is an alias on the same rows): named lists of a
-- team's contacts. Membership is its own table, so a contact is in any number of segments.
CREATE TABLE segments (
  id          uuid PRIMARY KEY,
  team_id     uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  name        text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX segments_team_created ON segments (team_id, created_at DESC, id DESC);

CREATE TABLE contact_segments (
  contact_id  uuid NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
  segment_id  uuid NOT NULL REFERENCES segments (id) ON DELETE CASCADE,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (segment_id, contact_id)
);
CREATE INDEX contact_segments_contact ON contact_segments (contact_id);
