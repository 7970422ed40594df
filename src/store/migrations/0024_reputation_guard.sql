-- The reputation guard: per sending domain, counters of delivered, bounced, hard-bounced and
-- complained recipients in 10-minute buckets, and the guard's state (ok | warning | paused).
--
-- The counters are kept by a statement-level trigger on email_events (as the webhook wake-up of
-- 0005 is), so every path that records a delivery result, an asynchronous bounce or a complaint
-- counts it, in the same transaction, without a second write in each module. A statement costs
-- one aggregate over its own new rows (the transition table), one emails-index probe per counted
-- event and one upsert per (domain, bucket), taken in (domain, bucket) order so that concurrent
-- statements cannot deadlock. Rates over an hour or 7 days read at most 6 or 1,008 rows of one
-- domain, never the events. A statement that records a hard bounce or a complaint also queues one
-- `reputation.check` job per domain (deduplicated while pending) so the guard looks at once.

CREATE TABLE domain_reputation_counts (
  domain_id    uuid NOT NULL REFERENCES domains (id) ON DELETE CASCADE,
  bucket       timestamptz NOT NULL,              -- start of a 10-minute bucket
  team_id      uuid NOT NULL,
  delivered    integer NOT NULL DEFAULT 0,
  bounced      integer NOT NULL DEFAULT 0,        -- every email.bounced (the denominator counts them)
  hard_bounced integer NOT NULL DEFAULT 0,        -- bounce.type Permanent
  complained   integer NOT NULL DEFAULT 0,
  PRIMARY KEY (domain_id, bucket)
);
CREATE INDEX domain_reputation_counts_bucket ON domain_reputation_counts (bucket);

CREATE TABLE domain_reputation (
  domain_id   uuid PRIMARY KEY REFERENCES domains (id) ON DELETE CASCADE,
  team_id     uuid NOT NULL,
  state       text NOT NULL DEFAULT 'ok' CHECK (state IN ('ok', 'warning', 'paused')),
  reason      text,                                -- why warning or paused, for people
  since       timestamptz NOT NULL DEFAULT now(),  -- when the current state began
  resumed_at  timestamptz,                         -- a person lifted the pause: rates count from here
  resumed_by  text,
  baseline    jsonb,                               -- counts of the resume bucket at resume time
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX domain_reputation_team ON domain_reputation (team_id) WHERE state <> 'ok';

CREATE FUNCTION reputation_count_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH g AS (
    SELECT e.domain_id, date_bin('10 minutes', n.created_at, TIMESTAMPTZ '2000-01-01 00:00:00+00') AS bucket,
           count(*) FILTER (WHERE n.type = 'email.delivered') AS delivered,
           count(*) FILTER (WHERE n.type = 'email.bounced') AS bounced,
           count(*) FILTER (WHERE n.type = 'email.bounced' AND n.data->'bounce'->>'type' = 'Permanent') AS hard_bounced,
           count(*) FILTER (WHERE n.type = 'email.complained') AS complained
    FROM new_events n JOIN emails e ON e.id = n.email_id
    WHERE n.type IN ('email.delivered', 'email.bounced', 'email.complained') AND e.domain_id IS NOT NULL
    GROUP BY 1, 2),
  -- the domain's team (system mail is held by the system team but sent from an operator's domain)
  c AS (SELECT g.*, d.team_id FROM g JOIN domains d ON d.id = g.domain_id),
  up AS ( -- a data-modifying CTE runs whether or not it is read
    INSERT INTO domain_reputation_counts AS t (domain_id, bucket, team_id, delivered, bounced, hard_bounced, complained)
    SELECT domain_id, bucket, team_id, delivered, bounced, hard_bounced, complained FROM c ORDER BY domain_id, bucket
    ON CONFLICT (domain_id, bucket) DO UPDATE SET delivered = t.delivered + EXCLUDED.delivered, bounced = t.bounced + EXCLUDED.bounced,
      hard_bounced = t.hard_bounced + EXCLUDED.hard_bounced, complained = t.complained + EXCLUDED.complained
    )
  INSERT INTO jobs (kind, key, payload)
  SELECT 'reputation.check', c.domain_id::text, jsonb_build_object('domain_id', c.domain_id, 'team_id', c.team_id)
  FROM c WHERE c.hard_bounced + c.complained > 0
  ON CONFLICT (kind, key) WHERE key IS NOT NULL AND state = 'pending' DO NOTHING;
  IF FOUND THEN
    PERFORM pg_notify('mailroom_jobs', 'reputation.check');
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER email_events_reputation_counts AFTER INSERT ON email_events
  REFERENCING NEW TABLE AS new_events
  FOR EACH STATEMENT EXECUTE FUNCTION reputation_count_events();
