// The messages of an inbox's threads (migration 0046): each keeps its own copy of its bodies and
// a search vector (subject A, addresses B, text C); and the sweep's view of received mail not yet
// filed (inbox_filed). Keyed by the thread or the inbox (the service found them in the team).
import type { Queryable } from './db.js';

export interface MessageAttachment {
  id: string;
  filename: string | null;
  size: number | null;
  content_type: string;
}

export interface MessageRow {
  id: string;
  thread_id: string;
  source_id: string;
  direction: 'inbound' | 'outbound';
  from: string;
  to: string[];
  cc: string[];
  bcc: string[];
  reply_to: string[];
  subject: string | null;
  message_id: string | null;
  refs: string[];
  html: string | null;
  text: string | null;
  attachments: MessageAttachment[];
  read: boolean;
  received_at: Date;
}

export interface MessageInsert {
  id: string;
  team_id: string;
  inbox_id: string;
  thread_id: string;
  direction: 'inbound' | 'outbound';
  source_id: string;
  message_id: string | null;
  refs: string[];
  from_addr: string;
  to_addrs: string[];
  cc_addrs: string[];
  bcc_addrs: string[];
  reply_to: string[];
  subject: string | null;
  html: string | null;
  text_body: string | null;
  attachments: MessageAttachment[];
  read: boolean;
  created_at: Date;
}

export async function messageInsert(db: Queryable, m: MessageInsert): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO inbox_messages (id, team_id, inbox_id, thread_id, direction, message_id, refs, from_addr, to_addrs,
       cc_addrs,
       bcc_addrs, reply_to, subject, html, text_body, attachments, read, created_at, source_id, search)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $20,
       setweight(to_tsvector('english', coalesce($13, '')), 'A')
       || setweight(to_tsvector('simple', $19), 'B')
       || setweight(to_tsvector('english', left(coalesce($15, ''), 200000)), 'C'))
     ON CONFLICT (id) DO NOTHING`,
    [
      m.id,
      m.team_id,
      m.inbox_id,
      m.thread_id,
      m.direction,
      m.message_id,
      m.refs,
      m.from_addr,
      m.to_addrs,
      m.cc_addrs,
      m.bcc_addrs,
      m.reply_to,
      m.subject,
      m.html,
      m.text_body,
      JSON.stringify(m.attachments),
      m.read,
      m.created_at,
      [m.from_addr, ...m.to_addrs, ...m.cc_addrs].join(' ').replace(/[@.]/g, ' '),
      m.source_id,
    ],
  );
  return Boolean(rowCount);
}

const MESSAGE_COLUMNS = `id, thread_id, source_id, direction, from_addr AS "from", to_addrs AS "to", cc_addrs AS cc,
  bcc_addrs AS bcc, reply_to,
  subject, message_id, refs, html, text_body AS text, attachments, read, created_at AS received_at`;

export async function messageList(
  db: Queryable,
  threadId: string,
  page: { limit: number; after?: string; before?: string },
): Promise<{ has_more: boolean; data: MessageRow[] }> {
  const params: unknown[] = [threadId, page.limit + 1];
  let cond = '';
  const cursor = page.after ?? page.before;
  if (cursor) {
    params.push(cursor);
    cond = ` AND (created_at, id) ${page.after ? '>' : '<'} (SELECT created_at, id FROM inbox_messages WHERE id = $3)`;
  }
  const dir = page.before ? 'DESC' : 'ASC';
  const { rows } = await db.query<MessageRow>(
    `SELECT ${MESSAGE_COLUMNS} FROM inbox_messages WHERE thread_id = $1${cond}
     ORDER BY created_at ${dir}, id ${dir} LIMIT $2`,
    params,
  );
  const has_more = rows.length > page.limit;
  const data = rows.slice(0, page.limit);
  if (page.before) data.reverse();
  return { has_more, data };
}

export async function messageFind(db: Queryable, threadId: string, id: string): Promise<MessageRow | undefined> {
  const { rows } = await db.query<MessageRow>(
    `SELECT ${MESSAGE_COLUMNS} FROM inbox_messages WHERE thread_id = $1 AND id = $2`,
    [threadId, id],
  );
  return rows[0];
}

export async function messageExistsInThread(db: Queryable, threadId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM inbox_messages WHERE thread_id = $1 AND id = $2', [threadId, id]);
  return Boolean(rowCount);
}

/**
 * Received emails of the last hour (older than `settledMs`: the live filing's turn) for an inbox
 * address of their team that no message of that inbox comes from. Reads the recent part of
 * received_emails_retention (0008).
 */
export async function receivedUnfiled(db: Queryable, settledMs: number, limit: number) {
  const { rows } = await db.query<{
    received_id: string;
    inbox_id: string;
    team_id: string;
    email_address: string;
    id_taken: boolean;
  }>(
    `SELECT r.id AS received_id, i.id AS inbox_id, i.team_id, i.email_address,
       EXISTS (SELECT 1 FROM inbox_messages x WHERE x.id = r.id) AS id_taken
     FROM received_emails r JOIN inboxes i ON i.team_id = r.team_id AND i.created_at <= r.created_at
       AND EXISTS (SELECT 1 FROM unnest(r.received_for) a WHERE lower(a) = i.email_address)
     WHERE r.raw_blob IS NOT NULL AND r.created_at > now() - interval '1 hour'
       AND r.created_at < now() - $1 * interval '1 millisecond'
       AND NOT EXISTS (SELECT 1 FROM inbox_filed f WHERE f.source_id = r.id AND f.inbox_id = i.id)
     ORDER BY r.created_at LIMIT $2`,
    [settledMs, limit],
  );
  return rows;
}

/** A received email is filed in an inbox (for the sweep; see inbox_filed in 0046). */
export async function inboxFiledMark(db: Queryable, inboxId: string, sourceId: string): Promise<void> {
  await db.query('INSERT INTO inbox_filed (inbox_id, source_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
    inboxId,
    sourceId,
  ]);
}

/** Marks older than the sweep looks back. */
export async function inboxFiledPurge(db: Queryable): Promise<void> {
  await db.query("DELETE FROM inbox_filed WHERE created_at < now() - interval '2 hours'");
}
