-- Issue 27: the delivery results' counter trigger (0067, 0068, 0075) ran one statement for every
-- kind of count: a data-modifying CTE per target table (broadcast slots, domain slots, the
-- reputation.check job), each ModifyTable node started and ended at every results statement even
-- when it wrote nothing, which is every time for the broadcast slots and the job on transactional
-- mail. Here each write is its own statement, run only when the new events hold something for it:
-- the domain counts for delivered, bounced or complained events; the reputation job for a hard
-- bounce or a complaint; the broadcast counts when an event's email is a broadcast's. Measured with
-- bench/pg-results-ab.ts (results of 2 emails a statement, 30 rounds alternated, twice): 333, 335
-- µs of PostgreSQL CPU per delivered email before, 315, 310 after. Same counts, slots, locks and
-- job as 0075 (test/store/accept-pg.test.ts, delivery-plans.test.ts, the reputation tests).
CREATE OR REPLACE FUNCTION email_events_count_rates() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  s smallint := pg_backend_pid() % 64;
BEGIN
  -- Accepted emails' events (email.sent, email.scheduled) count nothing here: return at once (0068).
  IF NOT EXISTS (SELECT 1 FROM new_events WHERE type IN ('email.delivered', 'email.bounced', 'email.complained',
                                                          'email.opened', 'email.clicked', 'email.unsubscribed')) THEN
    RETURN NULL;
  END IF;
  -- An email's first open, click or unsubscribe is counted once: a lock per email and type, held to
  -- the commit, makes a second statement's check see the first's event (0068). Delivery results never take it.
  IF EXISTS (SELECT 1 FROM new_events WHERE type IN ('email.opened', 'email.clicked', 'email.unsubscribed')) THEN
    PERFORM pg_advisory_xact_lock(k) FROM (
      SELECT DISTINCT hashtextextended(n.type || n.email_id::text, 67) AS k FROM new_events n
      WHERE n.type IN ('email.opened', 'email.clicked', 'email.unsubscribed')) x ORDER BY k;
  END IF;
  -- domain reputation: delivered, bounced and complained mail of emails sent from a domain (the
  -- domain's team: system mail is held by the system team but sent from an operator's domain)
  IF EXISTS (SELECT 1 FROM new_events WHERE type IN ('email.delivered', 'email.bounced', 'email.complained')) THEN
    INSERT INTO domain_reputation_count_slots AS t (domain_id, bucket, slot, team_id, delivered, bounced, hard_bounced, complained)
    SELECT g.domain_id, g.bucket, s, d.team_id, g.delivered, g.bounced, g.hard_bounced, g.complained
    FROM (SELECT e.domain_id, date_bin('10 minutes', n.created_at, TIMESTAMPTZ '2000-01-01 00:00:00+00') AS bucket,
                 count(*) FILTER (WHERE n.type = 'email.delivered') AS delivered, count(*) FILTER (WHERE n.type = 'email.bounced') AS bounced,
                 count(*) FILTER (WHERE n.type = 'email.bounced' AND n.data->'bounce'->>'type' = 'Permanent') AS hard_bounced,
                 count(*) FILTER (WHERE n.type = 'email.complained') AS complained
          FROM new_events n JOIN emails e ON e.id = n.email_id
          WHERE n.type IN ('email.delivered', 'email.bounced', 'email.complained') AND e.domain_id IS NOT NULL
          GROUP BY 1, 2) g
    JOIN domains d ON d.id = g.domain_id
    ORDER BY g.domain_id, g.bucket
    ON CONFLICT (domain_id, bucket, slot) DO UPDATE SET delivered = t.delivered + EXCLUDED.delivered, bounced = t.bounced + EXCLUDED.bounced,
      hard_bounced = t.hard_bounced + EXCLUDED.hard_bounced, complained = t.complained + EXCLUDED.complained;
    -- a hard bounce or a complaint: the domain's reputation is checked (reputation.check)
    IF EXISTS (SELECT 1 FROM new_events n WHERE n.type = 'email.complained' OR (n.type = 'email.bounced' AND n.data->'bounce'->>'type' = 'Permanent')) THEN
      INSERT INTO jobs (kind, key, payload)
      SELECT DISTINCT 'reputation.check', e.domain_id::text, jsonb_build_object('domain_id', e.domain_id, 'team_id', d.team_id)
      FROM new_events n JOIN emails e ON e.id = n.email_id JOIN domains d ON d.id = e.domain_id
      WHERE n.type = 'email.complained' OR (n.type = 'email.bounced' AND n.data->'bounce'->>'type' = 'Permanent')
      ON CONFLICT (kind, key) WHERE key IS NOT NULL AND state = 'pending' DO NOTHING;
      IF FOUND THEN
        PERFORM pg_notify('mailroom_jobs', 'reputation.check');
      END IF;
    END IF;
  END IF;
  -- A broadcast's counts (its auto-pause reads them): its emails' delivery ends, and each email's
  -- first open, click or unsubscribe. num_nonnulls, not IS NOT NULL: see 0075.
  IF EXISTS (SELECT 1 FROM new_events n JOIN emails e ON e.id = n.email_id WHERE num_nonnulls(e.broadcast_id) = 1) THEN
    WITH n AS MATERIALIZED (
      SELECT e.broadcast_id, n.type, (n.type = 'email.bounced' AND n.data->'bounce'->>'type' = 'Permanent') AS hard
      FROM new_events n JOIN emails e ON e.id = n.email_id
      WHERE n.type IN ('email.delivered', 'email.bounced', 'email.complained') AND num_nonnulls(e.broadcast_id) = 1),
    eng AS MATERIALIZED (
      SELECT DISTINCT e.broadcast_id, n.email_id, n.type
      FROM new_events n JOIN emails e ON e.id = n.email_id
      WHERE n.type IN ('email.opened', 'email.clicked', 'email.unsubscribed') AND num_nonnulls(e.broadcast_id) = 1
        AND NOT EXISTS (SELECT 1 FROM email_events o WHERE o.email_id = n.email_id AND o.type = n.type
                        AND NOT EXISTS (SELECT 1 FROM new_events x WHERE x.id = o.id)))
    INSERT INTO broadcast_rate_count_slots AS t (broadcast_id, slot, delivered, bounced, hard_bounced, complained, opened, clicked, unsubscribed)
    SELECT broadcast_id, s, count(*) FILTER (WHERE type = 'email.delivered'), count(*) FILTER (WHERE type = 'email.bounced'),
           count(*) FILTER (WHERE hard), count(*) FILTER (WHERE type = 'email.complained'),
           count(*) FILTER (WHERE type = 'email.opened'), count(*) FILTER (WHERE type = 'email.clicked'),
           count(*) FILTER (WHERE type = 'email.unsubscribed')
    FROM (SELECT broadcast_id, type, hard FROM n UNION ALL SELECT broadcast_id, type, false FROM eng) x
    GROUP BY broadcast_id ORDER BY broadcast_id
    ON CONFLICT (broadcast_id, slot) DO UPDATE SET delivered = t.delivered + EXCLUDED.delivered, bounced = t.bounced + EXCLUDED.bounced,
      hard_bounced = t.hard_bounced + EXCLUDED.hard_bounced, complained = t.complained + EXCLUDED.complained,
      opened = t.opened + EXCLUDED.opened, clicked = t.clicked + EXCLUDED.clicked, unsubscribed = t.unsubscribed + EXCLUDED.unsubscribed;
  END IF;
  RETURN NULL;
END $$;
-- After the body: CREATE OR REPLACE resets a function's settings.
ALTER FUNCTION email_events_count_rates() SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION email_events_count_rates() SET enable_seqscan = off;
ALTER FUNCTION email_events_count_rates() SET enable_hashjoin = off;
ALTER FUNCTION email_events_count_rates() SET enable_mergejoin = off;
