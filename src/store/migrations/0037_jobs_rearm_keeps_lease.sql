-- A job re-armed while it runs keeps its lease (issue 26). automations_wake (0025) re-armed the
-- running automations.event job by taking its lease away (locked_by = NULL, due now): the same live
-- process claimed it again while the first run was still going (a burst of six POST /events/send
-- ran it up to three times at once), and the first run's delete found the job no longer its own
-- ("the job's lease was taken over"). Now re-arming only marks the job; the claim clears the mark,
-- and a run that ends while its job is marked leaves it due at once instead of deleting it
-- (store/jobs.ts jobsDeleteMany), so what was queued after its last look is taken by the next run.
ALTER TABLE jobs ADD COLUMN rearmed boolean NOT NULL DEFAULT false;

CREATE OR REPLACE FUNCTION automations_wake() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO jobs (kind, key) VALUES ('automations.event', 'wake')
  ON CONFLICT (kind, key) WHERE key IS NOT NULL AND state = 'pending'
  DO UPDATE SET rearmed = true WHERE jobs.locked_by IS NOT NULL AND NOT jobs.rearmed;
  IF FOUND THEN
    PERFORM pg_notify('mailroom_jobs', 'automations.event');
  END IF;
END $$;

-- The claim of 0033, which now also clears the mark: a run starts with everything queued so far.
CREATE OR REPLACE FUNCTION mailroom_jobs_claim(kinds text[], regions text[], lim int, worker text, lease_ms float8)
RETURNS TABLE (id bigint, kind text, payload jsonb, key text, region text, run_at timestamptz, attempts int, max_attempts int, every_ms int, created_at timestamptz)
LANGUAGE sql VOLATILE SET enable_sort = off AS $$
  WITH due AS MATERIALIZED (
    SELECT j.id FROM jobs j
    WHERE j.state = 'pending' AND j.run_at <= now() AND (j.locked_until IS NULL OR j.locked_until < now())
      AND j.kind = ANY(kinds) AND (regions IS NULL OR j.region IS NULL OR j.region = ANY(regions))
    ORDER BY j.priority, j.run_at
    LIMIT lim
    FOR UPDATE SKIP LOCKED)
  UPDATE jobs SET locked_by = worker, locked_until = now() + lease_ms * interval '1 millisecond', attempts = jobs.attempts + 1, rearmed = false
  FROM due WHERE jobs.id = due.id
  RETURNING jobs.id, jobs.kind, jobs.payload, jobs.key, jobs.region, jobs.run_at, jobs.attempts, jobs.max_attempts, jobs.every_ms, jobs.created_at
$$;
