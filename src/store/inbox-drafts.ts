// An inbox's drafts and their attachments (migration 0047). Keyed by the inbox (the service found
// it in the caller's team). Lists are newest change first, (updated_at, id) their cursor.
import { uuid } from '../lib/ids.js';
import type { Queryable } from './db.js';

export interface DraftRow {
  id: string;
  inbox_id: string;
  type: 'standalone' | 'reply';
  thread_id: string | null;
  reply_to_email_id: string | null;
  to_addrs: string[] | null;
  cc_addrs: string[];
  bcc_addrs: string[];
  subject: string | null;
  html: string | null;
  text_body: string | null;
  created_at: Date;
  updated_at: Date;
  attachments: DraftAttachmentMeta[];
}

export interface DraftAttachmentMeta {
  id: string;
  filename: string;
  content_type: string;
  size: number;
}

export interface DraftAttachment {
  filename: string;
  content_type: string;
  content: Buffer;
}

export type DraftFields = Partial<
  Pick<DraftRow, 'to_addrs' | 'cc_addrs' | 'bcc_addrs' | 'subject' | 'html' | 'text_body'>
>;

const COLUMNS = `d.id, d.inbox_id, d.type, d.thread_id, d.reply_to_email_id, d.to_addrs, d.cc_addrs, d.bcc_addrs,
  d.subject,
  d.html, d.text_body, d.created_at, d.updated_at,
  (SELECT coalesce(json_agg(json_build_object('id', a.id, 'filename', a.filename, 'content_type', a.content_type,
     'size', a.size)
     ORDER BY a.position), '[]') FROM inbox_draft_attachments a WHERE a.draft_id = d.id) AS attachments`;

export async function draftInsert(
  db: Queryable,
  d: {
    team_id: string;
    inbox_id: string;
    type: DraftRow['type'];
    thread_id: string | null;
    reply_to_email_id: string | null;
  },
  f: DraftFields,
): Promise<string> {
  const id = uuid();
  await db.query(
    `INSERT INTO inbox_drafts (id, team_id, inbox_id, type, thread_id, reply_to_email_id, to_addrs, cc_addrs, bcc_addrs,
       subject, html, text_body)
     VALUES ($1, $2, $3, $4, $5, $6, $7, coalesce($8::text[], '{}'), coalesce($9::text[], '{}'), $10, $11, $12)`,
    [
      id,
      d.team_id,
      d.inbox_id,
      d.type,
      d.thread_id,
      d.reply_to_email_id,
      f.to_addrs ?? null,
      f.cc_addrs ?? null,
      f.bcc_addrs ?? null,
      f.subject ?? null,
      f.html ?? null,
      f.text_body ?? null,
    ],
  );
  return id;
}

/** Sets the given fields (undefined: kept). */
export async function draftUpdate(db: Queryable, id: string, f: DraftFields): Promise<void> {
  const sets: string[] = ['updated_at = now()'];
  const params: unknown[] = [id];
  for (const k of ['to_addrs', 'cc_addrs', 'bcc_addrs', 'subject', 'html', 'text_body'] as const) {
    if (f[k] === undefined) continue;
    params.push(f[k]);
    sets.push(`${k} = $${params.length}`);
  }
  await db.query(`UPDATE inbox_drafts SET ${sets.join(', ')} WHERE id = $1`, params);
}

export async function draftAttachmentsReplace(db: Queryable, draftId: string, files: DraftAttachment[]): Promise<void> {
  await db.query('DELETE FROM inbox_draft_attachments WHERE draft_id = $1', [draftId]);
  for (const [i, f] of files.entries())
    await db.query(
      `INSERT INTO inbox_draft_attachments (id, draft_id, position, filename, content_type, size, content)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [uuid(), draftId, i, f.filename, f.content_type, f.content.length, f.content],
    );
}

export async function draftAttachmentsRead(db: Queryable, draftId: string): Promise<DraftAttachment[]> {
  const { rows } = await db.query<DraftAttachment>(
    'SELECT filename, content_type, content FROM inbox_draft_attachments WHERE draft_id = $1 ORDER BY position',
    [draftId],
  );
  return rows;
}

export async function draftFind(
  db: Queryable,
  inboxId: string,
  id: string,
  lock = false,
): Promise<DraftRow | undefined> {
  if (lock) await db.query('SELECT 1 FROM inbox_drafts WHERE inbox_id = $1 AND id = $2 FOR UPDATE', [inboxId, id]);
  const { rows } = await db.query<DraftRow>(
    `SELECT ${COLUMNS} FROM inbox_drafts d WHERE d.inbox_id = $1 AND d.id = $2`,
    [inboxId, id],
  );
  return rows[0];
}

export async function draftList(
  db: Queryable,
  inboxId: string,
  page: { limit: number; after?: string; before?: string },
) {
  const params: unknown[] = [inboxId, page.limit + 1];
  let cond = '';
  const cursor = page.after ?? page.before;
  if (cursor) {
    params.push(cursor);
    const op = page.after ? '<' : '>';
    cond = ` AND (d.updated_at, d.id) ${op} (SELECT updated_at, id FROM inbox_drafts WHERE id = $3)`;
  }
  const dir = page.before ? 'ASC' : 'DESC';
  const { rows } = await db.query<DraftRow>(
    `SELECT ${COLUMNS} FROM inbox_drafts d WHERE d.inbox_id = $1${cond}
     ORDER BY d.updated_at ${dir}, d.id ${dir} LIMIT $2`,
    params,
  );
  const has_more = rows.length > page.limit;
  const data = rows.slice(0, page.limit);
  if (page.before) data.reverse();
  return { has_more, data };
}

export async function draftDelete(db: Queryable, inboxId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM inbox_drafts WHERE inbox_id = $1 AND id = $2', [inboxId, id]);
  return Boolean(rowCount);
}

export async function draftCount(db: Queryable, inboxId: string): Promise<number> {
  const { rows } = await db.query('SELECT count(*)::int AS n FROM inbox_drafts WHERE inbox_id = $1', [inboxId]);
  return rows[0].n;
}
