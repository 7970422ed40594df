-- Issue 27: the delivery results' statement (store/email-delivery.ts emailEventsInsertMany) ended
-- its jobs with `DELETE FROM jobs USING json_to_recordset(...)`. The planner takes a JSON set for
-- 100 rows whatever it holds (one to a few jobs here), and 100 lookups by primary key cost more
-- than reading a queue of a few hundred pages: every results statement of a delivery backlog read
-- the whole jobs table and hash-joined it (auto_explain, bench/delivery.ts with 5,000 queued: 49
-- of 49 sampled statements, 1-4 ms each, where the rest of the statement took ~0.3 ms). The same
-- plan, once kept for the session, stays after the queue grows (a generic plan made while it was
-- small). Here the delete is a function whose plan cannot read the table: sequential scans, hash
-- and merge joins off for it alone, the plan kept per session (as 0071, 0075) — each job by
-- jobs_pkey (test/store/results-end-job.test.ts). Same rows deleted as before: each still leased
-- to the given worker and not re-armed; returns how many. A plan hazard removed, not a measured
-- speed-up: with 40,000 queued the planner already chose the key, and bench/delivery.ts showed no
-- change in PostgreSQL's CPU per message at 10,000 or 40,000 (BENCHMARKS.md, eighth session).
CREATE FUNCTION mailroom_jobs_end_leased(ends json) RETURNS int
LANGUAGE plpgsql VOLATILE
SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  n int;
BEGIN
  DELETE FROM jobs j USING json_to_recordset(ends) AS x (id bigint, worker text)
  WHERE j.id = x.id AND j.locked_by = x.worker AND NOT j.rearmed;
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN n;
END $$;
