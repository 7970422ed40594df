-- Contact imports (resend-compat 7.1 "Imports"): a CSV uploaded once into blob_chunks (so any
-- worker process can read it), then parsed by a `contacts.import` job into the UNLOGGED staging
-- table and merged into contacts in one transaction. A crash at any point leaves either no
-- imported contact or all of them: the staging rows of an unfinished run are thrown away (and an
-- UNLOGGED table is emptied by crash recovery anyway), and the next run starts from the file.
CREATE TABLE contact_imports (
  id            uuid PRIMARY KEY,
  team_id       uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  status        text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'in_progress', 'completed', 'failed')),
  file_blob     uuid,                    -- the CSV in blob_chunks; NULL once the import has ended
  file_bytes    bigint NOT NULL,
  options       jsonb NOT NULL,          -- column map, on_conflict, segments, topics, as checked at upload
  run_id        uuid,                    -- the run that owns the staging rows; a new run replaces it
  total         int NOT NULL DEFAULT 0,  -- rows read (while in progress: so far)
  created       int NOT NULL DEFAULT 0,
  updated       int NOT NULL DEFAULT 0,
  skipped       int NOT NULL DEFAULT 0,
  failed        int NOT NULL DEFAULT 0,
  failed_rows   jsonb NOT NULL DEFAULT '[]',  -- the first 100 [{row, email, reason}]
  error         text,                    -- why the whole import failed
  created_at    timestamptz NOT NULL DEFAULT now(),
  started_at    timestamptz,
  completed_at  timestamptz
);
CREATE INDEX contact_imports_team_created ON contact_imports (team_id, created_at DESC, id DESC);

-- One row per valid CSV row of a run. No index: a run inserts, then reads its rows once.
CREATE UNLOGGED TABLE contact_import_rows (
  run_id        uuid NOT NULL,
  n             int NOT NULL,            -- the row's number in the file, the header being row 1
  email         text NOT NULL,           -- lowercased
  first_name    text,                    -- NULL: not given (an update keeps the contact's value)
  last_name     text,
  unsubscribed  boolean,
  properties    jsonb NOT NULL           -- only the values given
);
