-- Data-subject requests (issue 29): erasures and exports of one address within a team, the keyed
-- hashes of erased addresses (the suppression that outlives the address), and per-team retention.
--
-- A request row never holds the address: only its keyed hash (HMAC-SHA256, key derived from
-- MAILROOM_SECRET_KEY: lib/address-hash.ts). The address travels in the job's payload, sealed
-- (lib/crypto.ts), and the job row is deleted when the job ends.
CREATE TABLE privacy_requests (
  id            uuid PRIMARY KEY,
  team_id       uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  kind          text NOT NULL CHECK (kind IN ('erasure', 'export')),
  subject_hash  text NOT NULL,
  status        text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'in_progress', 'completed', 'failed')),
  counts        jsonb NOT NULL DEFAULT '{}',   -- erasure: rows removed or redacted per kind of data; export: items
  result_blob   uuid,                          -- export: the JSON document in blob_chunks
  result_bytes  bigint,
  error         text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  started_at    timestamptz,
  completed_at  timestamptz
);
CREATE INDEX privacy_requests_team_created ON privacy_requests (team_id, created_at DESC, id DESC);
CREATE INDEX privacy_requests_subject ON privacy_requests (team_id, subject_hash);

-- An erased address, as its keyed hash: delivery holds any recipient whose hash is here.
CREATE TABLE erased_addresses (
  team_id     uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  hash        text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (team_id, hash)
);

-- Per-team retention in days; NULL: the default (privacy/retention.ts). Never above the global
-- settings (MAILROOM_RETENTION_DAYS, MAILROOM_LOG_RETENTION_DAYS, ...): the API refuses it.
CREATE TABLE team_retention (
  team_id               uuid PRIMARY KEY REFERENCES teams (id) ON DELETE CASCADE,
  email_bodies_days     int CHECK (email_bodies_days > 0),
  received_emails_days  int CHECK (received_emails_days > 0),
  tracking_days         int CHECK (tracking_days > 0),
  request_logs_days     int CHECK (request_logs_days > 0),
  webhook_payloads_days int CHECK (webhook_payloads_days > 0),
  events_days           int CHECK (events_days > 0),
  automation_runs_days  int CHECK (automation_runs_days > 0),
  updated_at            timestamptz NOT NULL DEFAULT now()
);
