-- The job queue (src/queue/): one row per pending, running or failed job. Finished jobs are
-- deleted; a job out of attempts stays with state 'failed' for an operator to see and retry.

CREATE TABLE jobs (
  id            bigserial PRIMARY KEY,
  kind          text NOT NULL,
  payload       jsonb NOT NULL DEFAULT '{}'::jsonb,
  key           text,                            -- dedupe: one pending job per (kind, key)
  region        text,                            -- null: any worker may run it
  state         text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'failed')),
  run_at        timestamptz NOT NULL DEFAULT now(),
  attempts      int NOT NULL DEFAULT 0,          -- failed runs, plus the one in progress
  max_attempts  int CHECK (max_attempts > 0),    -- null: retried until it succeeds
  every_ms      int CHECK (every_ms > 0),        -- recurring: rescheduled instead of deleted
  locked_by     text,
  locked_until  timestamptz,                     -- the lease; once past, another worker takes over
  last_error    text,
  created_at    timestamptz NOT NULL DEFAULT now()
);

-- The claim scans this in run_at order and skips the few rows under a lease. locked_until is
-- deliberately not indexed so that claims and lease renewals stay HOT updates.
CREATE INDEX jobs_due ON jobs (run_at) WHERE state = 'pending';

-- Failed jobs do not block a new job with the same key (a recurring job never fails).
CREATE UNIQUE INDEX jobs_kind_key ON jobs (kind, key) WHERE key IS NOT NULL AND state = 'pending';

CREATE INDEX jobs_failed ON jobs (kind, created_at) WHERE state = 'failed';
