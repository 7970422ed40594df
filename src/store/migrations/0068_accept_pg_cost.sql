-- The accept path's PostgreSQL cost (issue 27). Every accept statement (a group of API sends, a
-- batch, a broadcast page) inserts email.sent / email.scheduled events, and for each such statement:
--
-- 1. The statement trigger email_events_count_rates (0067) planned its whole counting statement, to
--    find no delivery result or engagement among the new events: ~1.3-2.4 ms of planning per
--    accept statement in pg_stat_statements (total_plan_time; ~30-50 us per email of a group of 40
--    single sends). It now returns first when the statement inserted none of the six types it
--    counts; otherwise it is 0067's function unchanged.
--
-- 2. The two GIN index expressions of `emails` (0007 emails_search, 0029 emails_addrs_trgm) call
--    SQL functions that PostgreSQL cannot inline (array_to_string and unnest are not immutable), so
--    each inserted row ran a small query through the SQL-function executor: 10-19 us per call here
--    under load, against 3-11 us for the same result from PL/pgSQL (200,000 calls each, same
--    session). Same results for every input (NULL array, NULL elements, empty, other lower bounds,
--    several dimensions: compared in test/store/accept-pg.test.ts), so the indexes stay valid
--    without a rebuild; the list's filters name the same functions, so they still use the indexes.

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
    WHERE n.type IN ('email.opened', 'email.clicked', 'email.unsubscribed') AND e.broadcast_id IS NOT NULL
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

CREATE OR REPLACE FUNCTION mailroom_lower_addrs(a text[]) RETURNS text[] LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  r text[] := '{}';
  x text;
BEGIN
  IF a IS NULL THEN
    RETURN r;
  END IF;
  FOREACH x IN ARRAY a LOOP
    r := r || lower(x);
  END LOOP;
  RETURN r;
END $$;

CREATE OR REPLACE FUNCTION mailroom_addrs_text(a text[]) RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN lower(array_to_string(a, ' '));
END $$;
