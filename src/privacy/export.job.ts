// The `privacy.export` job (issue 29): one JSON document of everything the team holds about one
// address, stored as a blob (blob_chunks) and served through a signed, expiring link
// (inbound/download-links.ts, kind 'privacy-export'). A re-run writes a new document and drops the old.
// With include_attachments (migration 0060) the blob is a zip of the document and the attachments
// (export-zip.ts); past its size cap the request ends failed with a message, and is not retried.
import { Readable } from 'node:stream';
import type { Sealer } from '../lib/crypto.js';
import type { Logger } from '../lib/log.js';
import { uuid } from '../lib/ids.js';
import type { Job } from '../queue/worker.js';
import { blobsDelete, blobWriteStream } from '../store/blobs.js';
import type { Pool } from '../store/db.js';
import {
  EXPORT_LIMIT,
  exportAutomationRuns,
  exportContact,
  exportCustomEvents,
  exportEmails,
  exportEvents,
  exportReceived,
  exportSuppression,
} from '../store/privacy-export.js';
import { privacyRequestById, privacyRequestFinish, privacyRequestStart } from '../store/privacy.js';
import { ExportTooLarge, exportZip } from './export-zip.js';
import { addressPattern } from './address-pattern.js';

export interface ExportPayload {
  request_id: string;
  team_id: string;
  /** the address, sealed (lib/crypto.ts Sealer) */
  email_sealed: string;
}

/** Builds the document (also what a test reads back through the download link). */
export async function buildExport(pool: Pool, teamId: string, email: string) {
  const addr = email.trim().toLowerCase();
  const re = addressPattern(addr);
  const emails = (await exportEmails(pool, teamId, re)) as { id: string }[];
  const events = (await exportEvents(
    pool,
    teamId,
    re,
    emails.map((e) => e.id),
  )) as { type: string }[];
  const doc = {
    object: 'privacy_export',
    email: addr,
    generated_at: new Date().toISOString(),
    limit_per_kind: EXPORT_LIMIT,
    contact: await exportContact(pool, teamId, addr),
    suppression: await exportSuppression(pool, teamId, addr),
    emails,
    events,
    tracking: events.filter((e) => e.type === 'email.opened' || e.type === 'email.clicked'),
    received_emails: await exportReceived(pool, teamId, re),
    automation_runs: await exportAutomationRuns(pool, teamId, addr),
    custom_events: await exportCustomEvents(pool, teamId, addr),
  };
  return doc;
}

export function privacyExportJob(deps: { pool: Pool; sealer: Sealer; log: Logger; zipMaxBytes: number }) {
  const { pool } = deps;
  return async (job: Job<ExportPayload>): Promise<void> => {
    const { request_id: id, team_id: teamId } = job.payload;
    const email = deps.sealer.open(job.payload.email_sealed);
    await privacyRequestStart(pool, id);
    const doc = await buildExport(pool, teamId, email);
    const before = await privacyRequestById(pool, id);
    const blob = uuid();
    const counts: Record<string, number> = {
      contact: doc.contact ? 1 : 0,
      emails: doc.emails.length,
      events: doc.events.length,
      tracking: doc.tracking.length,
      received_emails: doc.received_emails.length,
      automation_runs: doc.automation_runs.length,
      custom_events: doc.custom_events.length,
    };
    let bytes: number;
    if (before?.include_attachments) {
      const zip = exportZip(pool, teamId, doc, deps.zipMaxBytes);
      try {
        bytes = await blobWriteStream(pool, blob, zip.bytes);
      } catch (err) {
        await blobsDelete(pool, [blob]); // the chunks written before it stopped
        if (!(err instanceof ExportTooLarge)) throw err;
        await privacyRequestFinish(pool, id, { counts, error: err.message });
        deps.log.warn('privacy export too large', { request_id: id, team_id: teamId, limit: err.limit });
        return;
      }
      counts.attachments = zip.files.length;
    } else {
      bytes = await blobWriteStream(pool, blob, Readable.from([Buffer.from(JSON.stringify(doc, null, 2))]));
    }
    await privacyRequestFinish(pool, id, { counts, resultBlob: blob, resultBytes: bytes });
    if (before?.result_blob && before.result_blob !== blob) await blobsDelete(pool, [before.result_blob]);
    deps.log.info('privacy export completed', { request_id: id, team_id: teamId, counts });
  };
}
