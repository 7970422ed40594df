-- Issue 27: the claim and the next-due look read far more of the jobs table than they took.
--
-- 1. Across kinds. Both walked one index of every pending job in (priority, run_at) or run_at
--    order and filtered on the worker's kinds, so a backlog of one kind was walked by every worker
--    that runs others: in pg-cost's delivery leg (10,000 deliveries queued) the webhook worker's
--    claims and next-due looks read ~4,400 rows each to find none (auto_explain: 1.2-1.3 ms each;
--    ~1 ms a claim on average, ~0.13 claims per delivered email; bench/pg-cost.ts). Now each kind
--    is looked up on its own (LATERAL over the worker's kinds) through indexes that lead with the
--    kind: the claim walks (kind, priority, run_at) to its LIMIT per kind, then takes the first
--    `lim` of those by priority and run_at; the next-due look takes each kind's first row in
--    (kind, run_at). A backlog is then walked only by the workers that run it, and only past its
--    own jobs in flight. The two indexes replace jobs_due (run_at) and jobs_due_priority
--    (priority, run_at), which nothing else reads (the broadcast hold/release filter on the kind
--    too, jobsSummary reads the table in full).
-- 2. Plans kept per session (0071). The claim's UPDATE joined its due rows (a generic LIMIT, taken
--    for a tenth of the table) to jobs by a hash join over a sequential scan: every claim read every
--    queued job (auto_explain: 10,005 rows read for 8 leased, ~2 ms; 30,000 and ~6 ms), whether the
--    plan was made on a long queue or a nearly empty one; the next-due look planned on a nearly
--    empty table read it in full. Both now run with sequential scans, hash and merge joins off (the
--    pattern of 0075, 0078), as the worker's job end (jobsDeleteMany) below.
-- Same signatures, rows, order (priority, then run_at) and locks (test/store/jobs-claim-plan.test.ts).
CREATE INDEX jobs_due_kind ON jobs (kind, priority, run_at) WHERE state = 'pending';
CREATE INDEX jobs_next_kind ON jobs (kind, run_at) WHERE state = 'pending';
DROP INDEX jobs_due_priority;
DROP INDEX jobs_due;

-- Rows of a kind beyond the first `lim` overall are locked by the per-kind walk only until the
-- claim's statement commits (SKIP LOCKED: other claims pass them meanwhile).
CREATE OR REPLACE FUNCTION mailroom_jobs_claim(kinds text[], regions text[], lim int, worker text, lease_ms float8)
RETURNS TABLE (id bigint, kind text, payload jsonb, key text, region text, run_at timestamptz, attempts int, max_attempts int, every_ms int, created_at timestamptz)
LANGUAGE plpgsql VOLATILE
SET enable_sort = off SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH due AS MATERIALIZED (
    SELECT c.id FROM (SELECT DISTINCT k FROM unnest(kinds) AS k) ks
    CROSS JOIN LATERAL (
      SELECT j.id, j.priority, j.run_at FROM jobs j
      WHERE j.kind = ks.k AND j.state = 'pending' AND j.run_at <= now() AND (j.locked_until IS NULL OR j.locked_until < now())
        AND (regions IS NULL OR j.region IS NULL OR j.region = ANY(regions))
      ORDER BY j.priority, j.run_at
      LIMIT lim
      FOR UPDATE SKIP LOCKED) c
    ORDER BY c.priority, c.run_at
    LIMIT lim)
  UPDATE jobs SET locked_by = worker, locked_until = now() + lease_ms * interval '1 millisecond', attempts = jobs.attempts + 1, rearmed = false
  FROM due WHERE jobs.id = due.id
  RETURNING jobs.id, jobs.kind, jobs.payload, jobs.key, jobs.region, jobs.run_at, jobs.attempts, jobs.max_attempts, jobs.every_ms, jobs.created_at;
END $$;

-- Milliseconds until the next job of these kinds and regions (NULL regions: any) is due and not
-- leased; NULL when there is none; negative when one is overdue (the caller takes 0).
CREATE FUNCTION mailroom_jobs_next_run_in(kinds text[], regions text[]) RETURNS float8
LANGUAGE plpgsql STABLE
SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  RETURN (SELECT (extract(epoch FROM min(n.run_at) - now()) * 1000)::float8
          FROM (SELECT DISTINCT k FROM unnest(kinds) AS k) ks
          CROSS JOIN LATERAL (
            SELECT j.run_at FROM jobs j
            WHERE j.kind = ks.k AND j.state = 'pending' AND (j.locked_until IS NULL OR j.locked_until < now())
              AND (regions IS NULL OR j.region IS NULL OR j.region = ANY (regions))
            ORDER BY j.run_at LIMIT 1) n);
END $$;

-- The worker's job end (store/jobs.ts jobsDeleteMany), as a function for the plan reason of 2: its
-- statement, kept per session, joined the locked rows to jobs by a sequential scan when first
-- planned on a nearly empty queue. Same rows, locks and wake-up as the statement it replaces (0037).
CREATE FUNCTION mailroom_jobs_end(ids bigint[], worker text) RETURNS SETOF bigint
LANGUAGE plpgsql VOLATILE
SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  RETURN QUERY
  WITH l AS MATERIALIZED (
    SELECT j.id, j.rearmed FROM jobs j WHERE j.id = ANY (ids) AND j.locked_by = worker FOR UPDATE),
  d AS (
    DELETE FROM jobs j USING l WHERE j.id = l.id AND NOT l.rearmed RETURNING j.id),
  r AS (
    UPDATE jobs j SET locked_by = NULL, locked_until = NULL, rearmed = false, run_at = now(), attempts = 0
    FROM l WHERE j.id = l.id AND l.rearmed RETURNING j.id, j.kind),
  woken AS (SELECT pg_notify('mailroom_jobs', k) FROM (SELECT DISTINCT kind AS k FROM r) x)
  SELECT d.id FROM d UNION ALL SELECT r.id FROM r WHERE (SELECT count(*) FROM woken) >= 0;
END $$;
