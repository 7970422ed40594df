-- Contacts you can find (issue 30): search by part of an address or name, bulk operations on a
-- selection or on everything a search matches, and the broadcast list's per-broadcast rates.

-- 1. Search: the address and the names as one lowercased text. A trigram index answers a
-- substring ("ada", "example.org") without reading every contact of the team; pg_trgm is created
-- by 0029 where it is available (without it the search still works, reading the team's contacts).
CREATE FUNCTION mailroom_contact_text(text, text, text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS 'SELECT lower($1 || '' '' || coalesce($2, '''') || '' '' || coalesce($3, ''''))';
DO $$
BEGIN
  BEGIN
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
    EXECUTE 'CREATE INDEX contacts_search_trgm ON contacts USING gin (mailroom_contact_text(email, first_name, last_name) gin_trgm_ops)';
  EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE 'no trigram index for contact search (%): searches read the team''s contacts', SQLERRM;
  END;
END $$;

-- 2. Bulk operations: one row per request; a large one is a contacts.bulk job that walks the
-- matching contacts by (created_at, id) in short transactions, each saving `cursor` and `done`
-- with its batch (a re-run resumes where the last commit left it).
CREATE TABLE contact_bulk_operations (
  id          uuid PRIMARY KEY,
  team_id     uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  action      text NOT NULL,
  params      jsonb NOT NULL,            -- the action's arguments (segment_id, topic_id, subscription)
  selection   jsonb NOT NULL,            -- {"contacts": [ids]} or {"match": {search, filter, segment_id}}
  status      text NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed')),
  matched     integer NOT NULL DEFAULT 0, -- counted when requested
  processed   integer NOT NULL DEFAULT 0, -- contacts walked so far
  changed     integer NOT NULL DEFAULT 0, -- contacts the action changed (events recorded)
  cursor      jsonb,                      -- {created_at, id} of the last contact walked
  error       text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz
);
CREATE INDEX contact_bulk_operations_team_created ON contact_bulk_operations (team_id, created_at DESC, id DESC);

-- 3. The broadcast list compares opened, clicked and unsubscribed rates: running counters of the
-- emails (distinct: an email's second click is not counted) kept by the same statement trigger.
ALTER TABLE broadcast_rate_counts
  ADD COLUMN opened integer NOT NULL DEFAULT 0,
  ADD COLUMN clicked integer NOT NULL DEFAULT 0,
  ADD COLUMN unsubscribed integer NOT NULL DEFAULT 0;

CREATE OR REPLACE FUNCTION email_events_count_rates() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH n AS MATERIALIZED (
    SELECT e.domain_id, e.broadcast_id, date_bin('10 minutes', n.created_at, TIMESTAMPTZ '2000-01-01 00:00:00+00') AS bucket, n.type,
           (n.type = 'email.bounced' AND n.data->'bounce'->>'type' = 'Permanent') AS hard
    FROM new_events n JOIN emails e ON e.id = n.email_id
    WHERE n.type IN ('email.delivered', 'email.bounced', 'email.complained')),
  -- engagement of broadcast emails: an email counts once per type (its first such event)
  eng AS MATERIALIZED (
    SELECT DISTINCT e.broadcast_id, n.email_id, n.type
    FROM new_events n JOIN emails e ON e.id = n.email_id
    WHERE n.type IN ('email.opened', 'email.clicked', 'email.unsubscribed') AND e.broadcast_id IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM email_events o WHERE o.email_id = n.email_id AND o.type = n.type
                      AND NOT EXISTS (SELECT 1 FROM new_events x WHERE x.id = o.id))),
  -- one INSERT for both kinds: two data-modifying CTEs must not update the same row
  b AS ( -- a data-modifying CTE runs whether or not it is read
    INSERT INTO broadcast_rate_counts AS t (broadcast_id, delivered, bounced, hard_bounced, complained, opened, clicked, unsubscribed)
    SELECT broadcast_id, count(*) FILTER (WHERE type = 'email.delivered'), count(*) FILTER (WHERE type = 'email.bounced'),
           count(*) FILTER (WHERE hard), count(*) FILTER (WHERE type = 'email.complained'),
           count(*) FILTER (WHERE type = 'email.opened'), count(*) FILTER (WHERE type = 'email.clicked'),
           count(*) FILTER (WHERE type = 'email.unsubscribed')
    FROM (SELECT broadcast_id, type, hard FROM n WHERE broadcast_id IS NOT NULL
          UNION ALL SELECT broadcast_id, type, false FROM eng) x
    GROUP BY broadcast_id ORDER BY broadcast_id
    ON CONFLICT (broadcast_id) DO UPDATE SET delivered = t.delivered + EXCLUDED.delivered, bounced = t.bounced + EXCLUDED.bounced,
      hard_bounced = t.hard_bounced + EXCLUDED.hard_bounced, complained = t.complained + EXCLUDED.complained,
      opened = t.opened + EXCLUDED.opened, clicked = t.clicked + EXCLUDED.clicked, unsubscribed = t.unsubscribed + EXCLUDED.unsubscribed),
  g AS (
    SELECT domain_id, bucket, count(*) FILTER (WHERE type = 'email.delivered') AS delivered, count(*) FILTER (WHERE type = 'email.bounced') AS bounced,
           count(*) FILTER (WHERE hard) AS hard_bounced, count(*) FILTER (WHERE type = 'email.complained') AS complained
    FROM n WHERE domain_id IS NOT NULL GROUP BY 1, 2),
  -- the domain's team (system mail is held by the system team but sent from an operator's domain)
  c AS (SELECT g.*, d.team_id FROM g JOIN domains d ON d.id = g.domain_id),
  up AS (
    INSERT INTO domain_reputation_counts AS t (domain_id, bucket, team_id, delivered, bounced, hard_bounced, complained)
    SELECT domain_id, bucket, team_id, delivered, bounced, hard_bounced, complained FROM c ORDER BY domain_id, bucket
    ON CONFLICT (domain_id, bucket) DO UPDATE SET delivered = t.delivered + EXCLUDED.delivered, bounced = t.bounced + EXCLUDED.bounced,
      hard_bounced = t.hard_bounced + EXCLUDED.hard_bounced, complained = t.complained + EXCLUDED.complained)
  INSERT INTO jobs (kind, key, payload)
  SELECT 'reputation.check', c.domain_id::text, jsonb_build_object('domain_id', c.domain_id, 'team_id', c.team_id)
  FROM c WHERE c.hard_bounced + c.complained > 0
  ON CONFLICT (kind, key) WHERE key IS NOT NULL AND state = 'pending' DO NOTHING;
  IF FOUND THEN
    PERFORM pg_notify('mailroom_jobs', 'reputation.check');
  END IF;
  RETURN NULL;
END $$;

-- Broadcasts sent before this migration: their engagement counted once from their events.
INSERT INTO broadcast_rate_counts AS t (broadcast_id, opened, clicked, unsubscribed)
SELECT e.broadcast_id, count(DISTINCT ev.email_id) FILTER (WHERE ev.type = 'email.opened'),
       count(DISTINCT ev.email_id) FILTER (WHERE ev.type = 'email.clicked'), count(DISTINCT ev.email_id) FILTER (WHERE ev.type = 'email.unsubscribed')
FROM email_events ev JOIN emails e ON e.id = ev.email_id
WHERE e.broadcast_id IS NOT NULL AND ev.type IN ('email.opened', 'email.clicked', 'email.unsubscribed')
GROUP BY e.broadcast_id
ON CONFLICT (broadcast_id) DO UPDATE SET opened = EXCLUDED.opened, clicked = EXCLUDED.clicked, unsubscribed = EXCLUDED.unsubscribed;
