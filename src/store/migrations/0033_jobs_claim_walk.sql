-- The claim, as a function that plans its statement with sorting disabled, so that its only plan is
-- an ordered walk of jobs_due_priority that stops at the LIMIT. Planned as a plain statement, it
-- depended on the jobs table's statistics: where they said the table was nearly empty (autovacuum
-- off, or not yet caught up with a burst: a broadcast queues thousands of deliveries a second and
-- autovacuum looks once a minute), the planner read every due job and sorted them on each claim:
-- 4-8 ms a claim with 10,000 due, ~250 us of PostgreSQL per delivered email (issue 14's benchmark).
-- The MATERIALIZED CTE (rather than `id IN (subquery)`) keeps the planner from re-running the
-- LIMIT ... SKIP LOCKED subquery, which could lease more than `lim` rows. FOR UPDATE re-checks the
-- lease on the newest row version, so two workers never lease the same job.
CREATE FUNCTION mailroom_jobs_claim(kinds text[], regions text[], lim int, worker text, lease_ms float8)
RETURNS TABLE (id bigint, kind text, payload jsonb, key text, region text, run_at timestamptz, attempts int, max_attempts int, every_ms int, created_at timestamptz)
LANGUAGE sql VOLATILE SET enable_sort = off AS $$
  WITH due AS MATERIALIZED (
    SELECT j.id FROM jobs j
    WHERE j.state = 'pending' AND j.run_at <= now() AND (j.locked_until IS NULL OR j.locked_until < now())
      AND j.kind = ANY(kinds) AND (regions IS NULL OR j.region IS NULL OR j.region = ANY(regions))
    ORDER BY j.priority, j.run_at
    LIMIT lim
    FOR UPDATE SKIP LOCKED)
  UPDATE jobs SET locked_by = worker, locked_until = now() + lease_ms * interval '1 millisecond', attempts = jobs.attempts + 1
  FROM due WHERE jobs.id = due.id
  RETURNING jobs.id, jobs.kind, jobs.payload, jobs.key, jobs.region, jobs.run_at, jobs.attempts, jobs.max_attempts, jobs.every_ms, jobs.created_at
$$;
