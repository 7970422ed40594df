// Contact imports (resend-compat 7.1 "Imports"): accept an upload (the CSV streamed into a blob,
// the options checked, the import and its job committed together), and show imports in Resend's
// shape plus Mailroom's `failed_rows` and `error`. The work itself is import.job.ts's.
import type { Readable } from 'node:stream';
import { AppError, invalidField, missingField, notFound } from '../errors.js';
import { isUuid, uuid } from '../lib/ids.js';
import { enqueue } from '../queue/enqueue.js';
import { blobWriteStream } from '../store/blobs.js';
import { withTx, type Pool } from '../store/db.js';
import {
  contactImportFind,
  contactImportInsert,
  contactImportList,
  type ContactImportRow,
  type ImportStatus,
} from '../store/contact-imports.js';
import type { PageQuery } from '../store/paginate.js';
import { CONTACT_IMPORT_JOB } from '../store/jobs.js';
import { importOptions } from './import-options.js';

/** Resend's limit for an import's file. */
export const MAX_IMPORT_BYTES = 50 * 1024 * 1024;
const STATUSES: readonly ImportStatus[] = ['queued', 'in_progress', 'completed', 'failed'];

/** The import as GET /contacts/imports/:id shows it; lists leave out the failed rows. */
function view(i: ContactImportRow, withRows: boolean) {
  return {
    object: 'contact_import' as const,
    id: i.id,
    status: i.status,
    created_at: i.created_at,
    completed_at: i.completed_at,
    counts: { total: i.total, created: i.created, updated: i.updated, skipped: i.skipped, failed: i.failed },
    ...(withRows ? { failed_rows: i.failed_rows } : {}),
    error: i.error,
  };
}

/**
 * What the HTTP layer hands over: it reads the multipart form in order and calls `saveFile` with
 * the `file` part's stream when it comes (the SDK sends it first, before the fields), then
 * returns the text fields.
 */
export type ImportForm = (
  saveFile: (file: Readable & { truncated?: boolean }) => Promise<void>,
) => Promise<Record<string, string>>;

/**
 * Stores the file and queues the import, in one transaction: a request that fails (too large,
 * a bad field, the client gone) leaves neither file nor import behind.
 */
export async function importCreate(pool: Pool, teamId: string, readForm: ImportForm) {
  const id = uuid();
  const blobId = uuid();
  return withTx(pool, async (tx) => {
    let bytes: number | undefined;
    const fields = await readForm(async (file) => {
      if (bytes !== undefined) throw invalidField('file', 'send one file per import.');
      bytes = await blobWriteStream(tx, blobId, file);
      if (file.truncated || bytes > MAX_IMPORT_BYTES) throw tooLarge();
    });
    if (bytes === undefined) throw missingField('file');
    const options = await importOptions(tx, teamId, fields);
    await contactImportInsert(tx, { id, teamId, blobId, bytes, options });
    await enqueue(tx, { kind: CONTACT_IMPORT_JOB, payload: { import_id: id }, maxAttempts: 5 });
    return { object: 'contact_import' as const, id };
  });
}

export const tooLarge = () =>
  new AppError(
    'payload_too_large',
    `The file is larger than ${MAX_IMPORT_BYTES / 1024 / 1024} MB, the most one import takes; split it into several files.`,
  );

export async function importGet(pool: Pool, teamId: string, id: string) {
  const i = isUuid(id) ? await contactImportFind(pool, teamId, id.toLowerCase()) : undefined;
  if (!i) throw notFound('Contact import');
  return view(i, true);
}

export async function importsList(pool: Pool, teamId: string, page: PageQuery, status?: string) {
  if (status !== undefined && !STATUSES.includes(status as ImportStatus))
    throw new AppError('validation_error', `Invalid \`status\` parameter: must be one of ${STATUSES.join(', ')}.`);
  const p = await contactImportList(pool, teamId, page, status as ImportStatus | undefined);
  return { object: 'list' as const, has_more: p.has_more, data: p.data.map((i) => view(i, false)) };
}
