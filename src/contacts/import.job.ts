// The `contacts.import` job, as named steps: start a run (drop any earlier run's staging rows),
// stage the file's checked rows with one COPY, then merge them into contacts in one transaction with
// the import's end. A crash before that commit leaves no imported contact; the next run (the job's
// lease expires, another worker takes it) starts again from the stored file. No contact.* events.
import type { Logger } from '../lib/log.js';
import { uuid } from '../lib/ids.js';
import type { Job, JobContext } from '../queue/worker.js';
import { blobStream } from '../store/blobs.js';
import { withTx, type Pool } from '../store/db.js';
import { contactPropertiesFind } from '../store/contact-properties.js';
import {
  contactImportFind,
  contactImportFinish,
  contactImportLockTeam,
  contactImportMerge,
  contactImportRowsAnalyze,
  contactImportProgress,
  contactImportRowsWriter,
  contactImportStartRun,
  type ContactImportRow,
  type FailedRow,
} from '../store/contact-imports.js';
import type { ImportOptions } from './import-options.js';
import { ImportFileError, importRows } from './import-rows.js';

export interface ImportPayload {
  import_id: string;
}

// Progress (rows read so far) is written every this many rows.
const PROGRESS_EVERY = 5_000;
const MAX_FAILED_ROWS = 100;

class Replaced extends Error {}

interface Staged {
  total: number;
  failed: number;
  failedRows: FailedRow[];
}

/** Step 2: parse the file and COPY the good rows to staging (one statement: all or nothing). */
async function stage(
  pool: Pool,
  imp: ContactImportRow,
  runId: string,
  signal: AbortSignal,
  out: Staged,
): Promise<void> {
  const opts = imp.options as ImportOptions;
  const defs = new Map((await contactPropertiesFind(pool, imp.team_id)).map((d) => [d.key, d.type as string]));
  const client = await pool.connect();
  const writer = contactImportRowsWriter(client, runId);
  try {
    for await (const r of importRows(blobStream(pool, imp.file_blob!), opts.columns, defs)) {
      out.total++;
      if (r.ok) await writer.add(r.value);
      else {
        out.failed++;
        if (out.failedRows.length < MAX_FAILED_ROWS) out.failedRows.push(r.failure);
      }
      if (out.total % PROGRESS_EVERY === 0) {
        if (signal.aborted) throw signal.reason ?? new Error('aborted');
        if (!(await contactImportProgress(pool, imp.id, runId, out.total, out.failed)))
          throw new Replaced('the import run was replaced');
      }
    }
    await writer.end();
    client.release();
  } catch (err) {
    writer.abort(err as Error);
    client.release(true); // the connection was mid-COPY: not reusable
    throw err;
  }
  await contactImportProgress(pool, imp.id, runId, out.total, out.failed);
}

/** Step 3: one transaction merges the rows and ends the import; nothing of it is visible before. */
async function merge(pool: Pool, imp: ContactImportRow, runId: string, s: Staged) {
  const opts = imp.options as ImportOptions;
  await contactImportRowsAnalyze(pool);
  return withTx(pool, async (tx) => {
    await contactImportLockTeam(tx, imp.team_id);
    const now = await contactImportFind(tx, undefined, imp.id, true);
    if (now?.run_id !== runId || now.status !== 'in_progress') throw new Replaced('the import run was replaced');
    const m = await contactImportMerge(tx, {
      teamId: imp.team_id,
      runId,
      upsert: opts.on_conflict === 'upsert',
      segments: opts.segments,
      topics: opts.topics,
    });
    const skipped = m.staged - m.uniq + (m.uniq - m.created - m.updated); // earlier duplicates + existing contacts left alone
    await contactImportFinish(tx, imp.id, runId, {
      status: 'completed',
      total: s.total,
      created: m.created,
      updated: m.updated,
      skipped,
      failed: s.failed,
      failedRows: s.failedRows,
      error: null,
    });
    return { ...m, skipped };
  });
}

export function contactImportJob(deps: { pool: Pool; log: Logger }) {
  const { pool } = deps;
  return async (job: Job<ImportPayload>, ctx: JobContext): Promise<void> => {
    const imp = await contactImportFind(pool, undefined, job.payload.import_id);
    if (!imp || (imp.status !== 'queued' && imp.status !== 'in_progress')) return; // ended (or deleted with its team)
    const runId = uuid();
    if (!(await contactImportStartRun(pool, imp.id, runId))) return;
    const started = Date.now();
    const staged: Staged = { total: 0, failed: 0, failedRows: [] };
    try {
      await stage(pool, imp, runId, ctx.signal, staged);
      const m = await merge(pool, imp, runId, staged);
      ctx.log.info('contact import completed', {
        importId: imp.id,
        rows: staged.total,
        created: m.created,
        updated: m.updated,
        skipped: m.skipped,
        failed: staged.failed,
        ms: Date.now() - started,
      });
    } catch (err) {
      if (err instanceof Replaced)
        return ctx.log.warn('contact import run replaced by a newer one; stopping', { importId: imp.id });
      const lastTry = job.maxAttempts !== null && job.attempt >= job.maxAttempts;
      if (!(err instanceof ImportFileError) && !lastTry) throw err; // retried; the next run starts over
      const error =
        err instanceof ImportFileError
          ? err.message
          : 'The import could not be completed (an internal error; see the server log).';
      await contactImportFinish(pool, imp.id, runId, {
        status: 'failed',
        total: staged.total,
        created: 0,
        updated: 0,
        skipped: 0,
        failed: staged.failed,
        failedRows: staged.failedRows,
        error,
      });
      ctx.log.info('contact import failed', {
        importId: imp.id,
        error,
        err: err instanceof ImportFileError ? undefined : err,
      });
    }
  };
}
