// An export with attachments (issue 29, POST /privacy/exports {include_attachments: true}): a zip
// holding the attachments of the address's sent emails (read back from their stored MIME, one
// email at a time) and received emails (streamed from their blobs), then privacy-export.json, the
// document with an `attachment_files` list naming each file's path in the archive. Streamed
// through lib/zip-writer.ts into a blob: only one email's parts are ever in memory.
//
// Bounded: past MAILROOM_PRIVACY_EXPORT_MAX_BYTES of content (512 MiB by default) the export stops and ends as failed with a
// message saying so (ExportTooLarge); the JSON-only export of the same address still works.
import type { Readable } from 'node:stream';
import { sentAttachments } from '../emails/views/sent-attachments.js';
import { zipStream, type ZipEntry } from '../lib/zip-writer.js';
import { blobStream } from '../store/blobs.js';
import type { Pool } from '../store/db.js';
import { emailRawFind } from '../store/emails.js';
import { receivedAttachmentList } from '../store/received-emails.js';

const size = (n: number) => (n >= 1024 * 1024 ? `${Math.floor(n / 1024 / 1024)} MiB` : `${Math.floor(n / 1024)} KiB`);

export class ExportTooLarge extends Error {
  constructor(readonly limit: number) {
    super(
      `The attachments of this address come to more than ${size(limit)}, the most an export ` +
        'zip holds. Export without attachments, or download the attachments one by one from each email.',
    );
  }
}

export interface AttachmentFile {
  path: string;
  direction: 'sent' | 'received';
  email_id: string;
  filename: string | null;
  content_type: string;
  size: number;
}

/** A file name safe inside the archive: no folders, no control characters, no leading dots, at most 100 characters. */
export function safeFileName(name: string | null | undefined): string {
  const clean = (name ?? '')
    .replace(/[\u0000-\u001f\u007f/\\:*?"<>|]+/g, '_')
    .replace(/^[.\s]+/, '')
    .trim()
    .slice(0, 100);
  return clean || 'attachment';
}

/**
 * The archive's bytes. `doc` is the export document (privacy/export.job.ts buildExport); its sent
 * and received emails name the attachments taken. Throws ExportTooLarge past `maxBytes`.
 */
export function exportZip(
  pool: Pool,
  teamId: string,
  doc: { emails: unknown[]; received_emails: unknown[] } & Record<string, unknown>,
  maxBytes: number,
): { bytes: AsyncGenerator<Buffer>; files: AttachmentFile[] } {
  const files: AttachmentFile[] = [];
  let total = 0;
  const count = (n: number) => {
    total += n;
    if (total > maxBytes) throw new ExportTooLarge(maxBytes);
  };
  async function* counted(data: Iterable<Buffer> | AsyncIterable<Buffer>) {
    for await (const c of data) {
      count(c.length);
      yield c;
    }
  }
  async function* entries(): AsyncGenerator<ZipEntry> {
    for (const e of doc.emails as { id: string }[]) {
      const row = await emailRawFind(pool, teamId, e.id);
      if (!row?.raw) continue; // purged by retention, or erased meanwhile
      const parts = await sentAttachments(e.id, row.raw);
      for (const [i, a] of parts.entries()) {
        const path = `attachments/sent/${e.id}/${i + 1}-${safeFileName(a.filename)}`;
        files.push({
          path,
          direction: 'sent',
          email_id: e.id,
          filename: a.filename ?? null,
          content_type: a.content_type,
          size: a.size,
        });
        yield { name: path, data: counted([a.content]) };
      }
    }
    for (const r of doc.received_emails as { id: string }[]) {
      for (const a of await receivedAttachmentList(pool, teamId, r.id)) {
        if (!a.blob_id) continue; // purged
        const path = `attachments/received/${r.id}/${a.position + 1}-${safeFileName(a.filename)}`;
        files.push({
          path,
          direction: 'received',
          email_id: r.id,
          filename: a.filename ?? null,
          content_type: a.content_type,
          size: Number(a.size),
        });
        yield { name: path, data: counted(blobStream(pool, a.blob_id) as Readable & AsyncIterable<Buffer>) };
      }
    }
    const body = Buffer.from(JSON.stringify({ ...doc, attachment_files: files }, null, 2));
    yield { name: 'privacy-export.json', data: counted([body]) };
  }
  return { bytes: zipStream(entries()), files };
}
