-- Facts about the installation that every process must agree on, one row each (issue 26). First:
-- `secret_key_check`, a known text sealed with the MAILROOM_SECRET_KEY of the first process that
-- started on this database; a process whose key cannot open it refuses to start, instead of
-- writing secrets the others cannot read (DKIM keys, webhook secrets) and failing to read theirs.
CREATE TABLE instance_settings (
  name text PRIMARY KEY,
  value text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
