-- Issue 27: the claim and the next-due look read the whole jobs table in plans kept per session.
-- The claim's UPDATE joined its due rows (a generic LIMIT, taken for a tenth of the table) to jobs
-- by a hash join over a sequential scan: on a long queue that was the cheaper plan by the
-- estimate, on a nearly empty one (a session's first claims at a quiet moment, or replanned after
-- an autovacuum's ANALYZE of one) too, and either plan was then kept for the session (0071): every
-- claim read every queued job (auto_explain: 10,005 rows for 8 leased, ~2 ms; 30,000 and ~6 ms;
-- pg-cost's delivery leg, 10,000 queued: ~0.8 ms a claim). The next-due look (store/jobs.ts
-- jobsNextRunIn), planned on a nearly empty table, read it in full the same way. Both now run with
-- sequential scans, hash and merge joins off (the pattern of 0075, 0078): the claim walks
-- jobs_due_priority to its LIMIT and updates each row by jobs_pkey; the next-due look takes the
-- first due row of jobs_due (test/store/jobs-claim-plan.test.ts). Same signature, rows and locks.
ALTER FUNCTION mailroom_jobs_claim(text[], text[], int, text, float8) SET enable_seqscan = off;
ALTER FUNCTION mailroom_jobs_claim(text[], text[], int, text, float8) SET enable_hashjoin = off;
ALTER FUNCTION mailroom_jobs_claim(text[], text[], int, text, float8) SET enable_mergejoin = off;

-- Milliseconds until the next job of these kinds and regions (NULL regions: any) is due and not
-- leased; NULL when there is none. Negative when one is overdue (the caller takes 0).
CREATE FUNCTION mailroom_jobs_next_run_in(kinds text[], regions text[]) RETURNS float8
LANGUAGE plpgsql STABLE
SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  RETURN (SELECT (extract(epoch FROM min(j.run_at) - now()) * 1000)::float8 FROM jobs j
          WHERE j.state = 'pending' AND (j.locked_until IS NULL OR j.locked_until < now())
            AND j.kind = ANY (kinds) AND (regions IS NULL OR j.region IS NULL OR j.region = ANY (regions)));
END $$;

-- The worker's job end (store/jobs.ts jobsDeleteMany), as a function for the same reason: its
-- statement, kept per session, joined the locked rows to jobs by a sequential scan when first planned
-- on a nearly empty queue. Same rows, locks and wake-up as the statement it replaces.
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
