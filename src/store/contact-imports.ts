// Contact imports (migration 0014): the import rows, their staging rows, and the merge of a run's
// staging rows into contacts, contact_segments and contact_topics in the caller's transaction.
// Writes no contact.* event: Resend fires none for imports.
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { from as copyFrom } from 'pg-copy-streams';
import { blobsDelete } from './blobs.js';
import type { Queryable, Tx } from './db.js';
import { paginate, type Page, type PageQuery } from './paginate.js';

export type ImportStatus = 'queued' | 'in_progress' | 'completed' | 'failed';
export interface FailedRow {
  row: number;
  email: string | null;
  reason: string;
}

export interface ContactImportRow {
  id: string;
  team_id: string;
  status: ImportStatus;
  file_blob: string | null;
  options: unknown;
  run_id: string | null;
  total: number;
  created: number;
  updated: number;
  skipped: number;
  failed: number;
  failed_rows: FailedRow[];
  error: string | null;
  created_at: string; // Postgres text form, for the API
  completed_at: string | null;
}

const COLUMNS = `id, team_id, status, file_blob, options, run_id, total, created, updated, skipped, failed, failed_rows, error,
  created_at::text AS created_at, completed_at::text AS completed_at`;

export async function contactImportInsert(
  tx: Tx,
  i: { id: string; teamId: string; blobId: string; bytes: number; options: unknown },
): Promise<void> {
  await tx.query(
    'INSERT INTO contact_imports (id, team_id, file_blob, file_bytes, options) VALUES ($1, $2, $3, $4, $5)',
    [i.id, i.teamId, i.blobId, i.bytes, JSON.stringify(i.options)],
  );
}

export async function contactImportFind(
  db: Queryable,
  teamId: string | undefined,
  id: string,
  lock = false,
): Promise<ContactImportRow | undefined> {
  const { rows } = await db.query<ContactImportRow>(
    `SELECT ${COLUMNS} FROM contact_imports WHERE id = $1 AND ($2::uuid IS NULL OR team_id = $2)${lock ? ' FOR UPDATE' : ''}`,
    [id, teamId ?? null],
  );
  return rows[0];
}

export async function contactImportList(
  db: Queryable,
  teamId: string,
  page: PageQuery,
  status?: ImportStatus,
): Promise<Page<ContactImportRow>> {
  return paginate(db, {
    table: 'contact_imports',
    columns: COLUMNS,
    teamId,
    page,
    ...(status ? { where: 'status = $1', params: [status] } : {}),
  });
}

/**
 * Starts a run: the import becomes in_progress under `runId` with its counts reset; the staging
 * rows of any earlier run (a worker that died) are dropped. False when the import has ended.
 */
export async function contactImportStartRun(db: Queryable, id: string, runId: string): Promise<boolean> {
  const { rows } = await db.query<{ old: string | null }>(
    `UPDATE contact_imports i SET status = 'in_progress', run_id = $2, started_at = now(), total = 0, created = 0, updated = 0, skipped = 0, failed = 0, failed_rows = '[]'
     FROM (SELECT run_id AS old FROM contact_imports WHERE id = $1 FOR UPDATE) prev
     WHERE i.id = $1 AND i.status IN ('queued', 'in_progress') RETURNING prev.old`,
    [id, runId],
  );
  if (!rows[0]) return false;
  if (rows[0].old) await contactImportRowsDelete(db, rows[0].old);
  return true;
}

/** Progress of the current run (rows read and failed so far); false when the run was replaced. */
export async function contactImportProgress(
  db: Queryable,
  id: string,
  runId: string,
  total: number,
  failed: number,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE contact_imports SET total = $3, failed = $4 WHERE id = $1 AND run_id = $2 AND status = 'in_progress'`,
    [id, runId, total, failed],
  );
  return Boolean(rowCount);
}

export interface StagedRow {
  row: number;
  email: string;
  first_name: string | null;
  last_name: string | null;
  unsubscribed: boolean | null;
  properties: Record<string, string | number>;
}

// COPY's text format: backslash, tab, newline and carriage return escaped; \N is NULL.
const SPECIAL = /[\\\t\n\r]/;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const copyText = (v: string | null) =>
  v === null ? '\\N' : SPECIAL.test(v) ? v.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c]) : v;

/**
 * Stages a run's rows with COPY FROM STDIN on `client` (held until end()): one statement for the
 * whole file, so a run cut short stages nothing. Measured, 500k rows on the loaded 2-core box:
 * COPY 2-5 s where multi-row INSERTs of unnest arrays (5,000 rows each) took ~70 s.
 */
export function contactImportRowsWriter(client: Tx, runId: string) {
  const stream = client.query(
    copyFrom('COPY contact_import_rows (run_id, n, email, first_name, last_name, unsubscribed, properties) FROM STDIN'),
  );
  stream.on('error', () => undefined); // seen through `done` (and by add() waiting for 'drain')
  const done = finished(stream);
  done.catch(() => undefined); // awaited by end()
  let buf = '';
  const flush = async () => {
    const ok = stream.write(buf);
    buf = '';
    if (!ok) await once(stream, 'drain');
  };
  return {
    async add(r: StagedRow): Promise<void> {
      buf += `${runId}\t${r.row}\t${copyText(r.email)}\t${copyText(r.first_name)}\t${copyText(r.last_name)}\t${r.unsubscribed === null ? '\\N' : r.unsubscribed}\t${copyText(JSON.stringify(r.properties))}\n`;
      if (buf.length >= 64 * 1024) await flush();
    },
    async end(): Promise<void> {
      if (buf) stream.write(buf);
      stream.end();
      await done;
    },
    abort(err: Error): void {
      stream.destroy(err);
    },
  };
}

export async function contactImportRowsDelete(db: Queryable, runId: string): Promise<void> {
  await db.query('DELETE FROM contact_import_rows WHERE run_id = $1', [runId]);
}

/**
 * Fresh statistics for the staging table before a merge. The table is shared by every run and
 * analyzed only when autovacuum gets to it: statistics taken while it held other runs' rows (a
 * run killed mid-staging, say) estimate this run at 1 row, and the merge then joins a nested loop
 * over the team's contacts that also reads every contact the same statement inserts (quadratic: a
 * 60,000-row import took over 2 minutes in CI). Run outside the merge's transaction: its lock,
 * which conflicts with another ANALYZE, is held only while it runs. Not the owner: PostgreSQL
 * warns and skips, and the merge runs on whatever statistics there are.
 */
export async function contactImportRowsAnalyze(db: Queryable): Promise<void> {
  await db.query('ANALYZE contact_import_rows');
}

export interface MergeCounts {
  staged: number;
  uniq: number;
  created: number;
  updated: number;
}

/**
 * Merges the run's staging rows into the team's contacts (the last row of an address wins). New
 * addresses are inserted; existing ones are updated with the values given (`upsert`: a name or
 * flag left empty keeps the contact's, properties are merged) or left alone (`skip`). The contacts
 * created or updated join `segments` and get the `topics` choices (those still existing). One
 * statement: its parts see one snapshot, and the team's advisory lock (taken by the caller) keeps
 * two imports of a team from racing on the same addresses.
 */
export async function contactImportMerge(
  tx: Tx,
  m: {
    teamId: string;
    runId: string;
    upsert: boolean;
    segments: string[];
    topics: { id: string; subscription: string }[];
  },
): Promise<MergeCounts> {
  // The default 4 MB made the two sorts of 500k rows spill to disk (~50 MB each).
  await tx.query("SET LOCAL work_mem = '128MB'");
  const { rows } = await tx.query<MergeCounts>(
    `WITH src AS MATERIALIZED (
       SELECT DISTINCT ON (email) email, first_name, last_name, unsubscribed, properties
       FROM contact_import_rows WHERE run_id = $2 ORDER BY email, n DESC),
     upd AS (
       UPDATE contacts c SET first_name = coalesce(s.first_name, c.first_name), last_name = coalesce(s.last_name, c.last_name),
         unsubscribed = coalesce(s.unsubscribed, c.unsubscribed), properties = c.properties || s.properties, updated_at = now()
       FROM src s WHERE $3::bool AND c.team_id = $1 AND c.email = s.email
       RETURNING c.id),
     ins AS (
       INSERT INTO contacts (id, team_id, email, first_name, last_name, unsubscribed, properties)
       SELECT gen_random_uuid(), $1, s.email, s.first_name, s.last_name, coalesce(s.unsubscribed, false), s.properties
       FROM src s WHERE NOT EXISTS (SELECT 1 FROM contacts c WHERE c.team_id = $1 AND c.email = s.email)
       ON CONFLICT (team_id, email) DO NOTHING
       RETURNING id),
     touched AS (SELECT id FROM upd UNION ALL SELECT id FROM ins),
     seg AS (
       INSERT INTO contact_segments (contact_id, segment_id)
       SELECT t.id, g.id FROM touched t CROSS JOIN (SELECT id FROM segments WHERE team_id = $1 AND id = ANY($4::uuid[])) g
       ON CONFLICT DO NOTHING),
     top AS (
       INSERT INTO contact_topics (contact_id, topic_id, subscription)
       SELECT t.id, p.id, p.subscription FROM touched t
       CROSS JOIN (SELECT c.id, c.subscription FROM json_to_recordset($5::json) AS c (id uuid, subscription text) JOIN topics ON topics.id = c.id AND topics.team_id = $1) p
       ON CONFLICT (contact_id, topic_id) DO UPDATE SET subscription = EXCLUDED.subscription, updated_at = now())
     SELECT (SELECT count(*) FROM contact_import_rows WHERE run_id = $2)::int AS staged, (SELECT count(*) FROM src)::int AS uniq,
            (SELECT count(*) FROM ins)::int AS created, (SELECT count(*) FROM upd)::int AS updated`,
    [m.teamId, m.runId, m.upsert, m.segments, JSON.stringify(m.topics)],
  );
  return rows[0];
}

/** Serialises the merges of one team's imports (held until the caller's transaction ends). */
export async function contactImportLockTeam(tx: Tx, teamId: string): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtext('contact-import:' || $1))`, [teamId]);
}

/** The end of an import, completed or failed: counts, reasons, no more file or staging rows. */
export async function contactImportFinish(
  db: Queryable,
  id: string,
  runId: string | null,
  f: {
    status: 'completed' | 'failed';
    total: number;
    created: number;
    updated: number;
    skipped: number;
    failed: number;
    failedRows: FailedRow[];
    error: string | null;
  },
): Promise<boolean> {
  const { rows } = await db.query<{ file_blob: string | null }>(
    `UPDATE contact_imports i SET status = $3, total = $4, created = $5, updated = $6, skipped = $7, failed = $8, failed_rows = $9, error = $10,
       completed_at = now(), file_blob = NULL
     FROM (SELECT file_blob FROM contact_imports WHERE id = $1 FOR UPDATE) prev
     WHERE i.id = $1 AND ($2::uuid IS NULL OR i.run_id = $2) AND i.status IN ('queued', 'in_progress') RETURNING prev.file_blob`,
    [id, runId, f.status, f.total, f.created, f.updated, f.skipped, f.failed, JSON.stringify(f.failedRows), f.error],
  );
  if (!rows[0]) return false;
  if (runId) await contactImportRowsDelete(db, runId);
  if (rows[0].file_blob) await blobsDelete(db, [rows[0].file_blob]);
  return true;
}
