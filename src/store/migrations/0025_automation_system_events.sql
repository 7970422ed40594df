-- Automations, second part (issue 15): Mailroom's own happenings as triggers, explicit re-entry,
-- and the emails an automation sends naming it.

-- The emails of a send_email step name their automation (`automation_id` in every event's data,
-- as broadcast_id does for a broadcast's).
ALTER TABLE emails ADD COLUMN automation_id uuid;

-- Re-entry (a Mailroom setting, README "Automations"): after_end (default) starts a contact's new
-- run only once its previous run of the automation ended; always starts one per trigger event, even
-- while others run; never runs an automation at most once per contact.
ALTER TABLE automations ADD COLUMN reentry text NOT NULL DEFAULT 'after_end' CHECK (reentry IN ('after_end', 'always', 'never'));
-- The reserved `resend:` events (system events) the automation's trigger or waits name, and the
-- events its wait_for_event steps wait for, kept on save: what an event must be queued for.
ALTER TABLE automations ADD COLUMN listens text[] NOT NULL DEFAULT '{}', ADD COLUMN waits text[] NOT NULL DEFAULT '{}';
CREATE INDEX automations_listens ON automations (team_id) WHERE listens <> '{}';

-- Events (custom and system) that an automation of their team listens for, in the order they were
-- recorded, until the automations.event job (one at a time, key 'wake') has started and resumed
-- their runs; a row leaves the queue in the transaction that acts on its event.
CREATE TABLE automation_event_queue (
  seq      bigserial PRIMARY KEY,
  event_id uuid NOT NULL
);

-- Arms the one automations.event job: inserts it, or, when a worker is running it (leased), puts
-- it back to pending so that it runs again for what was queued after its last look (the worker's
-- delete finds it re-armed and leaves it). Notifies only when it inserted or re-armed the job.
CREATE FUNCTION automations_wake() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO jobs (kind, key) VALUES ('automations.event', 'wake')
  ON CONFLICT (kind, key) WHERE key IS NOT NULL AND state = 'pending'
  DO UPDATE SET locked_by = NULL, locked_until = NULL, run_at = now() WHERE jobs.locked_by IS NOT NULL;
  IF FOUND THEN
    PERFORM pg_notify('mailroom_jobs', 'automations.event');
  END IF;
END $$;

-- `exclusive` runs (re-entry after_end and never) are at most one running per contact; `always`
-- runs are not. A run started by an event names it: the same event never starts a second run of
-- the same automation (the job that handles a system event may run twice after a crash).
ALTER TABLE automation_runs ADD COLUMN exclusive boolean NOT NULL DEFAULT true, ADD COLUMN trigger_event_id uuid;
DROP INDEX automation_runs_one_running;
CREATE UNIQUE INDEX automation_runs_one_running ON automation_runs (automation_id, email) WHERE status = 'running' AND exclusive;
CREATE UNIQUE INDEX automation_runs_trigger_event ON automation_runs (automation_id, trigger_event_id) WHERE trigger_event_id IS NOT NULL;
CREATE INDEX automation_runs_contact ON automation_runs (automation_id, email);

-- System events: when an email or contact event is recorded (email_events, the webhook outbox) and
-- an automation of the team listens for `resend:<type>`, the same statement records it as a custom
-- event named `resend:<type>` (the contact's event history shows it) with a job that starts and
-- resumes runs (queued for automations.event). Nothing but one index probe while no automation listens.
CREATE FUNCTION automations_record_system_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM automations WHERE listens <> '{}') THEN
    RETURN NULL;
  END IF;
  WITH ev AS (
    INSERT INTO custom_events (id, team_id, name, contact_id, email, payload)
    SELECT gen_random_uuid(), n.team_id, 'resend:' || n.type,
           CASE WHEN n.type LIKE 'contact.%' THEN n.email_id
                ELSE (SELECT c.id FROM contacts c WHERE c.team_id = n.team_id AND c.email = s.addr) END,
           s.addr, coalesce(n.data, '{}'::jsonb)
    FROM new_rows n
    CROSS JOIN LATERAL (SELECT lower(CASE WHEN n.type LIKE 'contact.%' THEN n.data->>'email'
                                          ELSE coalesce(n.recipient, n.data->'to'->>0) END) AS addr) s
    WHERE s.addr IS NOT NULL
      AND EXISTS (SELECT 1 FROM automations a WHERE a.team_id = n.team_id AND a.listens <> '{}' AND ('resend:' || n.type) = ANY (a.listens))
    RETURNING id)
  INSERT INTO automation_event_queue (event_id) SELECT id FROM ev;
  IF FOUND THEN
    PERFORM automations_wake();
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER email_events_automations AFTER INSERT ON email_events
  REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION automations_record_system_events();
