-- Webhooks: endpoints, one message per event per endpoint (the `msg_...` id receivers dedupe on),
-- every delivery attempt (the webhook request log), and the outbox cursor over email_events.
--
-- Fan-out costs an event write one index probe: a statement-level trigger on email_events puts
-- one pending `webhooks.dispatch` job on the queue (deduplicated by the pending (kind, key) index)
-- and wakes the workers when it created it. The dispatcher reads events past its cursor in
-- (txid, seq) order, only below the oldest transaction of this database still running
-- (store/webhook-outbox.ts), so an event committed late with a lower seq is never skipped.

ALTER TABLE email_events
  ADD COLUMN seq  bigserial,
  ADD COLUMN txid xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX email_events_outbox ON email_events (txid, seq);

-- Only the first open of an email is an event (tracking writes ON CONFLICT DO NOTHING).
CREATE UNIQUE INDEX email_events_first_open ON email_events (email_id) WHERE type = 'email.opened';

CREATE TABLE webhooks (
  id                      uuid PRIMARY KEY,
  team_id                 uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  endpoint                text NOT NULL,
  events                  text[] NOT NULL,
  status                  text NOT NULL DEFAULT 'enabled' CHECK (status IN ('enabled', 'disabled')),
  secret_sealed           text NOT NULL,          -- whsec_..., sealed (lib/crypto.ts)
  previous_secret_sealed  text,                   -- the secret before the last rotation...
  previous_secret_until   timestamptz,            -- ...which also signs until then (24 h)
  failing_since           timestamptz,            -- first failed attempt since the last success
  disabled_reason         text,                   -- gone (410), failing for 5 days, or manual
  created_at              timestamptz NOT NULL DEFAULT now(),
  updated_at              timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhooks_team_created ON webhooks (team_id, created_at DESC, id DESC);

CREATE TABLE webhook_messages (
  id               text PRIMARY KEY,              -- msg_..., the same on every attempt
  webhook_id       uuid NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  team_id          uuid NOT NULL,
  event_id         uuid NOT NULL,                 -- email_events.id (no FK: other event tables later)
  event_seq        bigint NOT NULL,               -- delivery order within the endpoint
  type             text NOT NULL,
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'attempting', 'success', 'failed')),
  attempts         int NOT NULL DEFAULT 0,        -- since creation or the last replay
  next_attempt_at  timestamptz,                   -- while pending/attempting; pushed forward by a claim (lease)
  last_attempt_at  timestamptz,
  created_at       timestamptz NOT NULL           -- when the event happened
);
CREATE INDEX webhook_messages_due ON webhook_messages (webhook_id, next_attempt_at, event_seq) WHERE status IN ('pending', 'attempting');
CREATE INDEX webhook_messages_list ON webhook_messages (webhook_id, created_at DESC, id DESC);
CREATE INDEX webhook_messages_retention ON webhook_messages (created_at);

CREATE TABLE webhook_attempts (
  id               text PRIMARY KEY,              -- atmpt_...
  message_id       text NOT NULL REFERENCES webhook_messages (id) ON DELETE CASCADE,
  team_id          uuid NOT NULL,
  endpoint         text NOT NULL,                 -- the URL at the time of the attempt
  request_headers  jsonb NOT NULL,
  request_body     text NOT NULL,
  response_status  int,                           -- null when no response (error_type says why)
  response_body    text,                          -- first 4 KB
  duration_ms      int NOT NULL,
  error_type       text,                          -- timeout | dns | tls | refused | closed | blocked | network
  error_message    text,
  created_at       timestamptz NOT NULL           -- when the request was sent
);
CREATE INDEX webhook_attempts_message ON webhook_attempts (message_id, created_at DESC, id DESC);

CREATE TABLE webhook_cursors (
  source     text PRIMARY KEY,                    -- 'email_events' (contacts, domains later)
  last_txid  xid8 NOT NULL,
  last_seq   bigint NOT NULL
);
INSERT INTO webhook_cursors (source, last_txid, last_seq)
SELECT 'email_events', coalesce(last.txid, '0'::xid8), coalesce(last.seq, 0)
FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT txid, seq FROM email_events ORDER BY txid DESC, seq DESC LIMIT 1) last ON true;

-- Nothing at all while no endpoint is enabled (creating the first one moves the cursor to now:
-- webhookCursorFastForwardIfIdle). Notifies only when it created the job: one already pending was
-- announced (or is running, and looks again before it ends). A NOTIFY makes its transaction's
-- commit take a cluster-wide lock, so event writers that find the job (most, under load) avoid it.
CREATE FUNCTION webhooks_wake_dispatcher() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM webhooks WHERE status = 'enabled') THEN
    RETURN NULL;
  END IF;
  INSERT INTO jobs (kind, key) VALUES ('webhooks.dispatch', 'wake')
  ON CONFLICT (kind, key) WHERE key IS NOT NULL AND state = 'pending' DO NOTHING;
  IF FOUND THEN
    PERFORM pg_notify('mailroom_jobs', 'webhooks.dispatch');
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER email_events_wake_webhooks AFTER INSERT ON email_events
  FOR EACH STATEMENT EXECUTE FUNCTION webhooks_wake_dispatcher();
