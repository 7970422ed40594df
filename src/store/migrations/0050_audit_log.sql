-- The audit log (issue 29): who did what to a team's administrative state, append-only and
-- hash-chained per team. src/audit/record.ts writes it (in the action's own transaction), and
-- `mailroom audit verify` (src/cli/audit.ts) walks the chain.
--
-- Each row stores seq (1, 2, ... per team), prev_hash (the previous row's hash, '' for seq 1) and
-- hash = sha256_hex(prev_hash || canonical JSON of the row's fields) (src/audit/chain.ts).
-- audit_heads holds each team's last seq and hash: writers take its row lock (INSERT ... ON CONFLICT
-- DO UPDATE) in their transaction, so concurrent writers in any number of processes queue behind it
-- and never fork the chain; it also lets verify notice that the newest rows were removed.
CREATE TABLE audit_log (
  id             uuid PRIMARY KEY,
  team_id        uuid NOT NULL REFERENCES teams (id),
  seq            bigint NOT NULL,
  created_at     timestamptz NOT NULL,
  actor_kind     text NOT NULL CHECK (actor_kind IN ('user', 'api_key', 'oauth', 'system')),
  actor_id       text,
  actor_display  text,
  ip             text,
  user_agent     text,
  action         text NOT NULL,
  target_kind    text NOT NULL,
  target_id      text,
  summary        jsonb NOT NULL DEFAULT '{}',
  prev_hash      text NOT NULL,
  hash           text NOT NULL,
  UNIQUE (team_id, seq)
);
CREATE INDEX audit_log_team_time ON audit_log (team_id, created_at, id);
CREATE INDEX audit_log_team_action ON audit_log (team_id, action, created_at);
CREATE INDEX audit_log_team_target ON audit_log (team_id, target_kind, target_id);

CREATE TABLE audit_heads (
  team_id  uuid PRIMARY KEY REFERENCES teams (id),
  seq      bigint NOT NULL,
  hash     text NOT NULL
);

-- Append-only, held by the database itself: no UPDATE, DELETE or TRUNCATE, whoever asks.
CREATE FUNCTION audit_log_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE TRIGGER audit_log_no_update_delete BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION audit_log_refuse_change();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION audit_log_refuse_change();
