-- The delivery-result counters without one contended row (issue 27). Every statement that records
-- delivery results upserted the one row of domain_reputation_counts of its sending domain and the
-- current 10 minutes (and of broadcast_rate_counts of its broadcast) and held its lock until it
-- committed: concurrent result statements of every worker queued behind each other's commit
-- (measured ~19 ms of lock wait and 150-450 us of PostgreSQL CPU per delivered email).
--
-- Now the trigger adds to striped rows beside them: the row of its slot (its backend's pid modulo
-- 64), so statements of different sessions update different rows. Readers add the slots to the
-- totals (store/reputation.ts, store/broadcast-stats.ts, store/broadcasts.ts), and the recurring
-- metrics job (once a minute) folds the slots into the totals (rateCountsFold): one statement
-- that deletes the slot rows and adds them to the totals, so a reader sees the same sums before
-- and after it. The totals keep their one row per key, so a process of the previous version still
-- running during a rolling upgrade reads them as before (at most a minute behind).
-- 64 slots, not fewer: a worker has up to 8 results statements in flight over a pool of 20
-- sessions, and with 16 slots two of the 8 share one most of the time.
CREATE TABLE domain_reputation_count_slots (
  domain_id    uuid NOT NULL REFERENCES domains (id) ON DELETE CASCADE,
  bucket       timestamptz NOT NULL,
  slot         smallint NOT NULL,
  team_id      uuid NOT NULL,
  delivered    integer NOT NULL DEFAULT 0,
  bounced      integer NOT NULL DEFAULT 0,
  hard_bounced integer NOT NULL DEFAULT 0,
  complained   integer NOT NULL DEFAULT 0,
  PRIMARY KEY (domain_id, bucket, slot)
);
CREATE TABLE broadcast_rate_count_slots (
  broadcast_id uuid NOT NULL REFERENCES broadcasts (id) ON DELETE CASCADE,
  slot         smallint NOT NULL,
  delivered    integer NOT NULL DEFAULT 0,
  bounced      integer NOT NULL DEFAULT 0,
  hard_bounced integer NOT NULL DEFAULT 0,
  complained   integer NOT NULL DEFAULT 0,
  opened       integer NOT NULL DEFAULT 0,
  clicked      integer NOT NULL DEFAULT 0,
  unsubscribed integer NOT NULL DEFAULT 0,
  PRIMARY KEY (broadcast_id, slot)
);

-- As 0065's, into the slot tables (rows still taken in key order: no deadlock between statements,
-- whose slot is fixed for the statement).
CREATE OR REPLACE FUNCTION email_events_count_rates() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  s smallint := pg_backend_pid() % 64;
BEGIN
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
