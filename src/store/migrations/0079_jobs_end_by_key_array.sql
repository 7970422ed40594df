-- Issue 27: 0078's job end still joined jobs to the JSON set of ends, and with sequential scans off
-- the planner could walk a whole index of jobs with the set (taken for 100 rows) rescanned for each
-- entry, the cheaper plan while the table held a few rows. A session keeps the generic plan made
-- at its first ends (0071), so one made at a quiet moment (or after an autovacuum's ANALYZE of a
-- nearly empty queue, which replans) read every queued job in every later results statement:
-- 128 µs of PostgreSQL CPU a statement with ~200 queued (bench/pg-results-ab.ts), 3,011 rows fetched
-- to end one job with 3,000 queued (test/store/results-end-job.test.ts). Here the ends are read into
-- arrays first and the delete's only condition on the key is `id = ANY (ids)`: an index qual on
-- jobs_pkey whatever the statistics. Same rows deleted: each still leased to its worker, not
-- re-armed; returns how many. Same signature (processes of the previous version keep calling it).
CREATE OR REPLACE FUNCTION mailroom_jobs_end_leased(ends json) RETURNS int
LANGUAGE plpgsql VOLATILE
SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  ids bigint[];
  workers text[];
  n int;
BEGIN
  SELECT array_agg(x.id), array_agg(x.worker) INTO ids, workers FROM json_to_recordset(ends) AS x (id bigint, worker text);
  IF ids IS NULL THEN
    RETURN 0;
  END IF;
  DELETE FROM jobs j WHERE j.id = ANY (ids) AND NOT j.rearmed AND j.locked_by = workers[array_position(ids, j.id)];
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN n;
END $$;
