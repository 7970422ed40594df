-- Delivery order by kind of mail: transactional (0) before automations (1) before broadcasts (2).
-- Workers claim the lowest priority among due jobs, then the oldest; a broadcast's backlog of due
-- deliveries no longer sits in front of a receipt accepted after it (issue 14: transactional p50
-- of 10.9 s behind a 1,000-delivery window). Adding a column with a constant default is instant.
ALTER TABLE jobs ADD COLUMN priority smallint NOT NULL DEFAULT 0;
CREATE INDEX jobs_due_priority ON jobs (priority, run_at) WHERE state = 'pending';
