-- The webhook wake-up trigger (webhooks_wake_dispatcher, 0005) reads before it writes: an event
-- statement that finds the dispatcher's job holding its key ('wake', pending: waiting or running)
-- does nothing, with no lock and no write. Before, every event statement ran the INSERT ... ON
-- CONFLICT DO NOTHING, whose conflict check waits for any transaction that has the job row
-- updated (its claim, lease renewal, reschedule) or a new job row inserted and not yet committed:
-- every concurrent delivery-results statement queued there (526-897 µs of statement time per
-- delivered email, BENCHMARKS.md "PostgreSQL cost per email (issue 27)").
--
-- Why a read is enough: a statement that saw the key got its transaction id (its event insert)
-- before its snapshot, and so before the key's release committed, since the snapshot still saw the
-- key; the dispatcher saves a horizon after the release and ends only once every transaction below
-- it has ended, then reads again (webhooks/dispatch.job.ts). So the event is read by that
-- dispatcher, exactly as when the INSERT found the key. Only under READ COMMITTED, where the
-- read's snapshot is taken after the event insert; other isolation levels keep the INSERT. When no
-- key is found, the INSERT is as before (the first event after a quiet spell may still wait for
-- another statement's new job row). The sweep (every 5 s) stays the net under all of it.
CREATE OR REPLACE FUNCTION webhooks_wake_dispatcher() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM webhooks WHERE status = 'enabled') THEN
    RETURN NULL;
  END IF;
  IF current_setting('transaction_isolation') = 'read committed'
     AND EXISTS (SELECT 1 FROM jobs WHERE kind = 'webhooks.dispatch' AND key = 'wake' AND state = 'pending') THEN
    RETURN NULL;
  END IF;
  INSERT INTO jobs (kind, key) VALUES ('webhooks.dispatch', 'wake')
  ON CONFLICT (kind, key) WHERE key IS NOT NULL AND state = 'pending' DO NOTHING;
  IF FOUND THEN
    PERFORM pg_notify('mailroom_jobs', 'webhooks.dispatch');
  END IF;
  RETURN NULL;
END $$;
