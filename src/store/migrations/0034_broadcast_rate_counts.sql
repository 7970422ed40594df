-- A broadcast's delivery results as running counters (issue 14: the automatic pause), kept by the
-- statement-level trigger that already counts them per sending domain (0024), from the same join.
-- The pause check read them with a count over the broadcast's emails and events, which grows with
-- the broadcast (~0.3 s at 100,000 recipients; ~70 us of PostgreSQL per delivered copy even when
-- read at most a tenth of the time); now it reads one row. Events are counted, as for domains: a
-- recipient who complains twice counts twice. Broadcasts in flight are counted from their events.
CREATE TABLE broadcast_rate_counts (
  broadcast_id uuid PRIMARY KEY REFERENCES broadcasts (id) ON DELETE CASCADE,
  delivered    integer NOT NULL DEFAULT 0,
  bounced      integer NOT NULL DEFAULT 0,
  hard_bounced integer NOT NULL DEFAULT 0,
  complained   integer NOT NULL DEFAULT 0
);

CREATE FUNCTION email_events_count_rates() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH n AS MATERIALIZED (
    SELECT e.domain_id, e.broadcast_id, date_bin('10 minutes', n.created_at, TIMESTAMPTZ '2000-01-01 00:00:00+00') AS bucket, n.type,
           (n.type = 'email.bounced' AND n.data->'bounce'->>'type' = 'Permanent') AS hard
    FROM new_events n JOIN emails e ON e.id = n.email_id
    WHERE n.type IN ('email.delivered', 'email.bounced', 'email.complained')),
  b AS ( -- a data-modifying CTE runs whether or not it is read
    INSERT INTO broadcast_rate_counts AS t (broadcast_id, delivered, bounced, hard_bounced, complained)
    SELECT broadcast_id, count(*) FILTER (WHERE type = 'email.delivered'), count(*) FILTER (WHERE type = 'email.bounced'),
           count(*) FILTER (WHERE hard), count(*) FILTER (WHERE type = 'email.complained')
    FROM n WHERE broadcast_id IS NOT NULL GROUP BY broadcast_id ORDER BY broadcast_id
    ON CONFLICT (broadcast_id) DO UPDATE SET delivered = t.delivered + EXCLUDED.delivered, bounced = t.bounced + EXCLUDED.bounced,
      hard_bounced = t.hard_bounced + EXCLUDED.hard_bounced, complained = t.complained + EXCLUDED.complained),
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

DROP TRIGGER email_events_reputation_counts ON email_events;
DROP FUNCTION reputation_count_events();
CREATE TRIGGER email_events_count_rates AFTER INSERT ON email_events
  REFERENCING NEW TABLE AS new_events
  FOR EACH STATEMENT EXECUTE FUNCTION email_events_count_rates();

INSERT INTO broadcast_rate_counts (broadcast_id, delivered, bounced, hard_bounced, complained)
SELECT e.broadcast_id, count(*) FILTER (WHERE ev.type = 'email.delivered'), count(*) FILTER (WHERE ev.type = 'email.bounced'),
       count(*) FILTER (WHERE ev.type = 'email.bounced' AND ev.data->'bounce'->>'type' = 'Permanent'), count(*) FILTER (WHERE ev.type = 'email.complained')
FROM email_events ev JOIN emails e ON e.id = ev.email_id
WHERE e.broadcast_id IS NOT NULL AND ev.type IN ('email.delivered', 'email.bounced', 'email.complained')
GROUP BY e.broadcast_id;
