// The attachments of a sent email, read back from its stored MIME (they are not stored apart):
// GET /emails/:id/attachments[/:attachment_id] and their signed downloads. An attachment's id is
// derived from the email id and its position, so it is stable without a table.
import { createHash } from 'node:crypto';
import type { AttachmentStream } from 'mailparser';
import type { Queryable } from '../../store/db.js';
import { emailRawById, emailRawFind } from '../../store/emails.js';

export interface SentAttachment {
  id: string;
  filename?: string;
  size: number;
  content_type: string;
  content_disposition: 'inline' | 'attachment';
  content_id?: string;
  content: Buffer;
}

/** A UUID-shaped id for the n-th attachment of an email. */
export function sentAttachmentId(emailId: string, index: number): string {
  const h = createHash('sha256').update(`${emailId}:${index}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export async function sentAttachments(emailId: string, raw: Buffer): Promise<SentAttachment[]> {
  // Imported on first use: only a privacy export or an attachment download parses a sent message,
  // and mailparser with its dependencies is ~5 MB of heap in a process that never does (issue 27).
  const { MailParser } = await import('mailparser');
  const parser = new MailParser();
  const out: SentAttachment[] = [];
  await new Promise<void>((resolve, reject) => {
    parser.on('data', (part: { type: string } & Partial<AttachmentStream>) => {
      if (part.type !== 'attachment') return;
      const a = part as AttachmentStream;
      const chunks: Buffer[] = [];
      a.content.on('data', (c: Buffer) => chunks.push(c));
      a.content.on('end', () => {
        const content = Buffer.concat(chunks);
        out.push({
          id: sentAttachmentId(emailId, out.length),
          filename: a.filename,
          size: content.length,
          content_type: a.contentType,
          content_disposition: a.contentDisposition === 'inline' ? 'inline' : 'attachment',
          ...(a.contentId ? { content_id: a.contentId.replace(/^<|>$/g, '') } : {}),
          content,
        });
        a.release();
      });
    });
    parser.on('end', () => resolve());
    parser.on('error', reject);
    parser.end(raw);
  });
  return out;
}

/** A team's sent email's attachments; undefined when the email is not the team's, [] once its body was purged. */
export async function attachmentsOfTeamEmail(
  db: Queryable,
  teamId: string,
  emailId: string,
): Promise<SentAttachment[] | undefined> {
  const row = await emailRawFind(db, teamId, emailId);
  if (!row) return undefined;
  return row.raw ? sentAttachments(emailId, row.raw) : [];
}

/** One attachment by its public download id (`<email id>.<attachment id>`), after the link's signature was checked. */
export async function attachmentForDownload(
  db: Queryable,
  emailId: string,
  attachmentId: string,
): Promise<SentAttachment | undefined> {
  const row = await emailRawById(db, emailId);
  if (!row?.raw) return undefined;
  return (await sentAttachments(emailId, row.raw)).find((a) => a.id === attachmentId);
}
