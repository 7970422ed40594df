-- Statements planned once per session instead of once per call (issue 27; pg_stat_statements,
-- pg-cost.ts, under load 15-30: ~0.9-1.8 ms of planning per delivered email or broadcast copy).
--
-- The emails index functions (mailroom_lower_addrs, mailroom_addrs_text) were planned again by
-- every statement writing emails rows for the same reason; 0068 made them PL/pgSQL.

-- The jobs claim (0033, 0037), for the same reason: a SQL function with SET is never inlined, so
-- its statement was parsed and planned at every claim (~0.9 ms a plan under load, ~120 us per
-- delivered email). In PL/pgSQL the statement's plan is kept for the session; a generic plan is
-- forced (the LIMIT is a parameter there) and enable_sort stays off, so the plan is still the
-- ordered walk of jobs_due_priority that stops at the LIMIT (test/store/jobs-claim-plan.test.ts
-- claims more times than the plan cache's five custom plans). Same signature, result and locks.
CREATE OR REPLACE FUNCTION mailroom_jobs_claim(kinds text[], regions text[], lim int, worker text, lease_ms float8)
RETURNS TABLE (id bigint, kind text, payload jsonb, key text, region text, run_at timestamptz, attempts int, max_attempts int, every_ms int, created_at timestamptz)
LANGUAGE plpgsql VOLATILE SET enable_sort = off SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH due AS MATERIALIZED (
    SELECT j.id FROM jobs j
    WHERE j.state = 'pending' AND j.run_at <= now() AND (j.locked_until IS NULL OR j.locked_until < now())
      AND j.kind = ANY(kinds) AND (regions IS NULL OR j.region IS NULL OR j.region = ANY(regions))
    ORDER BY j.priority, j.run_at
    LIMIT lim
    FOR UPDATE SKIP LOCKED)
  UPDATE jobs SET locked_by = worker, locked_until = now() + lease_ms * interval '1 millisecond', attempts = jobs.attempts + 1, rearmed = false
  FROM due WHERE jobs.id = due.id
  RETURNING jobs.id, jobs.kind, jobs.payload, jobs.key, jobs.region, jobs.run_at, jobs.attempts, jobs.max_attempts, jobs.every_ms, jobs.created_at;
END $$;

-- The delivery results' counter trigger (0067): its statement was planned again at nearly every
-- results statement in the benchmark (0.6 calls and 130-370 us of planning per delivered email or
-- copy, pg_stat_statements), the plan cache keeping custom plans for it. Its plan does not depend
-- on the values (the slot, the transition table's rows joined to emails by primary key).
ALTER FUNCTION email_events_count_rates() SET plan_cache_mode = force_generic_plan;
