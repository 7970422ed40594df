-- The delivery results' counter trigger (0067, 0068) keeps one generic plan per session (0071). Its
-- join of the transition table to emails was planned for as many rows as the first results
-- statement of the session brought: a hash join reading all of emails when that was large (or the
-- table small), and that plan was then used for every later statement of the session, a few
-- events each, as the table grew: 6.4 ms of PostgreSQL per broadcast copy in a benchmark run where
-- it took 0.05 ms in others (issue 27; pg_stat_statements with track = all). With sequential scans,
-- hash and merge joins off for this function only, the plan is the same whatever the first call:
-- each new event's email by primary key, each domain by primary key. And the engagement part's
-- `e.broadcast_id IS NOT NULL` becomes num_nonnulls(e.broadcast_id) = 1 (same rows): with
-- sequential scans off, the predicate let the partial index emails_broadcast_recipient (empty by
-- statistics taken before a broadcast) stand in for emails, walking every copy of the broadcast
-- (test/store/delivery-plans.test.ts). Otherwise 0068's function unchanged.

CREATE OR REPLACE FUNCTION email_events_count_rates() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  s smallint := pg_backend_pid() % 64;
BEGIN
  -- Accepted emails' events (email.sent, email.scheduled: every accept statement, one per group of
  -- API sends, a batch or a broadcast page) count nothing here: return before the statement below
  -- is planned (~1-2 ms a statement, measured with pg_stat_statements, issue 27).
  IF NOT EXISTS (SELECT 1 FROM new_events WHERE type IN ('email.delivered', 'email.bounced', 'email.complained',
                                                          'email.opened', 'email.clicked', 'email.unsubscribed')) THEN
    RETURN NULL;
  END IF;
  -- An email's first open, click or unsubscribe is counted once: two sessions recording the first
  -- click of one email at once each saw no earlier click (neither committed) and both counted it
  -- (as they did with one counter row: the second waited on the row, not before its check). A lock
  -- per email and type, held to the commit, makes the second statement's check (a new snapshot)
  -- see the first's event. Delivery results never take it.
  IF EXISTS (SELECT 1 FROM new_events WHERE type IN ('email.opened', 'email.clicked', 'email.unsubscribed')) THEN
    PERFORM pg_advisory_xact_lock(k) FROM (
      SELECT DISTINCT hashtextextended(n.type || n.email_id::text, 67) AS k FROM new_events n
      WHERE n.type IN ('email.opened', 'email.clicked', 'email.unsubscribed')) x ORDER BY k;
  END IF;
  WITH n AS MATERIALIZED (
    SELECT e.domain_id, e.broadcast_id, date_bin('10 minutes', n.created_at, TIMESTAMPTZ '2000-01-01 00:00:00+00') AS bucket, n.type,
           (n.type = 'email.bounced' AND n.data->'bounce'->>'type' = 'Permanent') AS hard
    FROM new_events n JOIN emails e ON e.id = n.email_id
    WHERE n.type IN ('email.delivered', 'email.bounced', 'email.complained')),
  -- engagement of broadcast emails: an email counts once per type (its first such event)
  eng AS MATERIALIZED (
    SELECT DISTINCT e.broadcast_id, n.email_id, n.type
    FROM new_events n JOIN emails e ON e.id = n.email_id
    WHERE n.type IN ('email.opened', 'email.clicked', 'email.unsubscribed') AND num_nonnulls(e.broadcast_id) = 1
      AND NOT EXISTS (SELECT 1 FROM email_events o WHERE o.email_id = n.email_id AND o.type = n.type
                      AND NOT EXISTS (SELECT 1 FROM new_events x WHERE x.id = o.id))),
  -- one INSERT for both kinds: two data-modifying CTEs must not update the same row
  b AS ( -- a data-modifying CTE runs whether or not it is read
    INSERT INTO broadcast_rate_count_slots AS t (broadcast_id, slot, delivered, bounced, hard_bounced, complained, opened, clicked, unsubscribed)
    SELECT broadcast_id, s, count(*) FILTER (WHERE type = 'email.delivered'), count(*) FILTER (WHERE type = 'email.bounced'),
           count(*) FILTER (WHERE hard), count(*) FILTER (WHERE type = 'email.complained'),
           count(*) FILTER (WHERE type = 'email.opened'), count(*) FILTER (WHERE type = 'email.clicked'),
           count(*) FILTER (WHERE type = 'email.unsubscribed')
    FROM (SELECT broadcast_id, type, hard FROM n WHERE broadcast_id IS NOT NULL
          UNION ALL SELECT broadcast_id, type, false FROM eng) x
    GROUP BY broadcast_id ORDER BY broadcast_id
    ON CONFLICT (broadcast_id, slot) DO UPDATE SET delivered = t.delivered + EXCLUDED.delivered, bounced = t.bounced + EXCLUDED.bounced,
      hard_bounced = t.hard_bounced + EXCLUDED.hard_bounced, complained = t.complained + EXCLUDED.complained,
      opened = t.opened + EXCLUDED.opened, clicked = t.clicked + EXCLUDED.clicked, unsubscribed = t.unsubscribed + EXCLUDED.unsubscribed),
  g AS (
    SELECT domain_id, bucket, count(*) FILTER (WHERE type = 'email.delivered') AS delivered, count(*) FILTER (WHERE type = 'email.bounced') AS bounced,
           count(*) FILTER (WHERE hard) AS hard_bounced, count(*) FILTER (WHERE type = 'email.complained') AS complained
    FROM n WHERE domain_id IS NOT NULL GROUP BY 1, 2),
  -- the domain's team (system mail is held by the system team but sent from an operator's domain)
  c AS (SELECT g.*, d.team_id FROM g JOIN domains d ON d.id = g.domain_id),
  up AS (
    INSERT INTO domain_reputation_count_slots AS t (domain_id, bucket, slot, team_id, delivered, bounced, hard_bounced, complained)
    SELECT domain_id, bucket, s, team_id, delivered, bounced, hard_bounced, complained FROM c ORDER BY domain_id, bucket
    ON CONFLICT (domain_id, bucket, slot) DO UPDATE SET delivered = t.delivered + EXCLUDED.delivered, bounced = t.bounced + EXCLUDED.bounced,
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

-- After the body: CREATE OR REPLACE resets a function's settings (0071's plan_cache_mode too).
ALTER FUNCTION email_events_count_rates() SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION email_events_count_rates() SET enable_seqscan = off;
ALTER FUNCTION email_events_count_rates() SET enable_hashjoin = off;
ALTER FUNCTION email_events_count_rates() SET enable_mergejoin = off;
