// Received (inbound) emails, their attachments and the messages that reached our return paths.
// A received email, its blob chunks, its attachments and its email.received event are written
// by one statement, so a message is stored whole or not at all.
import { teamRetentionDaysSql, teamRetentionMinDaysSql } from './privacy.js';
import type { Queryable } from './db.js';
import { chunkParams, chunksFrom, type BlobChunk } from './blobs.js';
import type { EventInsert } from './emails.js';
import { paginate, type Page, type PageQuery } from './paginate.js';

export interface ReceivedEmailRow {
  id: string;
  team_id: string;
  domain_id: string | null;
  mail_from: string;
  received_for: string[];
  from_addr: string;
  to_addrs: string[];
  cc_addrs: string[];
  bcc_addrs: string[];
  reply_to: string[];
  subject: string;
  message_id: string | null;
  html: string | null;
  text_body: string | null;
  headers: Record<string, string | string[]>;
  authentication: Record<string, string> | null;
  client_ip: string | null;
  helo: string | null;
  tls: boolean;
  raw_blob: string | null;
  raw_size: number;
  created_at: string;
}
export interface ReceivedAttachmentRow {
  id: string;
  email_id: string;
  team_id: string;
  position: number;
  filename: string | null;
  content_type: string;
  content_id: string | null;
  content_disposition: string;
  size: number;
  blob_id: string | null;
  created_at: string;
}

export interface ReceivedInsert {
  email: ReceivedEmailRow;
  attachments: ReceivedAttachmentRow[];
  event: EventInsert;
}

/**
 * Inserts received emails with their remaining chunks, attachments and events, in one round trip;
 * returns the ids of those addressed to an inbox of their team (received_for holds the lowercased
 * recipients, as inboxes hold addresses), for inboxes/filing.ts: most received mail reaches no
 * inbox, and asking in the same statement saves a query per message (issue 27).
 */
export async function receivedEmailsInsert(
  db: Queryable,
  items: ReceivedInsert[],
  chunks: BlobChunk[],
): Promise<Set<string>> {
  const { rows } = await db.query<{ id: string }>(
    `WITH b AS (INSERT INTO blob_chunks (blob_id, n, data) ${chunksFrom(4)}),
     e AS (INSERT INTO received_emails SELECT * FROM json_populate_recordset(NULL::received_emails, $1::json)
           RETURNING id, team_id, received_for),
     a AS (INSERT INTO received_attachments SELECT * FROM json_populate_recordset(NULL::received_attachments, $2::json)),
     ev AS (INSERT INTO email_events (id, email_id, team_id, type, recipient, data, detail, created_at)
            SELECT id, email_id, team_id, type, recipient, data, detail, created_at FROM json_populate_recordset(NULL::email_events, $3::json))
     SELECT e.id FROM e WHERE EXISTS (SELECT 1 FROM inboxes i WHERE i.team_id = e.team_id AND i.email_address = ANY (e.received_for))`,
    [
      JSON.stringify(items.map((i) => i.email)),
      JSON.stringify(items.flatMap((i) => i.attachments)),
      JSON.stringify(items.map((i) => i.event)),
      ...chunkParams(chunks),
    ],
  );
  return new Set(rows.map((r) => r.id));
}

const LIST_COLUMNS = `id, to_addrs AS "to", from_addr AS "from", subject, message_id, bcc_addrs AS bcc, cc_addrs AS cc, reply_to, received_for,
  created_at, (SELECT coalesce(json_agg(json_build_object('id', a.id, 'filename', a.filename, 'content_type', a.content_type,
    'content_id', a.content_id, 'content_disposition', a.content_disposition, 'size', a.size) ORDER BY a.position), '[]')
   FROM received_attachments a WHERE a.email_id = received_emails.id) AS attachments`;

export interface ReceivedListItem {
  id: string;
  to: string[];
  from: string;
  subject: string;
  message_id: string | null;
  bcc: string[];
  cc: string[];
  reply_to: string[];
  received_for: string[];
  created_at: Date;
  attachments: {
    id: string;
    filename: string | null;
    content_type: string;
    content_id: string | null;
    content_disposition: string;
    size: number;
  }[];
}

export async function receivedEmailList(
  db: Queryable,
  teamId: string,
  page: PageQuery,
): Promise<Page<ReceivedListItem>> {
  return paginate<ReceivedListItem>(db, { table: 'received_emails', columns: LIST_COLUMNS, teamId, page });
}

export async function receivedEmailFind(
  db: Queryable,
  teamId: string,
  id: string,
): Promise<
  | (ReceivedListItem & {
      html: string | null;
      text: string | null;
      headers: Record<string, string | string[]>;
      authentication: Record<string, string> | null;
      raw_blob: string | null;
      raw_size: number;
    })
  | undefined
> {
  const { rows } = await db.query(
    `SELECT ${LIST_COLUMNS}, html, text_body AS text, headers, authentication, raw_blob, raw_size FROM received_emails WHERE team_id = $1 AND id = $2`,
    [teamId, id],
  );
  return rows[0];
}

export async function receivedEmailExists(db: Queryable, teamId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM received_emails WHERE team_id = $1 AND id = $2', [teamId, id]);
  return Boolean(rowCount);
}

/** The raw message's blob, by email id alone (signed download links carry no team). */
export async function receivedEmailRawBlob(
  db: Queryable,
  id: string,
): Promise<{ raw_blob: string | null; raw_size: number } | undefined> {
  const { rows } = await db.query('SELECT raw_blob, raw_size FROM received_emails WHERE id = $1', [id]);
  return rows[0];
}

export async function receivedAttachmentList(
  db: Queryable,
  teamId: string,
  emailId: string,
): Promise<ReceivedAttachmentRow[]> {
  const { rows } = await db.query<ReceivedAttachmentRow>(
    'SELECT *, created_at::text AS created_at FROM received_attachments WHERE team_id = $1 AND email_id = $2 ORDER BY position',
    [teamId, emailId],
  );
  return rows;
}

export async function receivedAttachmentFind(db: Queryable, id: string): Promise<ReceivedAttachmentRow | undefined> {
  const { rows } = await db.query<ReceivedAttachmentRow>(
    'SELECT *, created_at::text AS created_at FROM received_attachments WHERE id = $1',
    [id],
  );
  return rows[0];
}

/** Retention: drops raw messages and attachment contents older than `days` (metadata stays). */
export async function receivedEmailsPurge(db: Queryable, days: number, limit = 500): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `WITH old AS (SELECT id, raw_blob FROM received_emails t WHERE raw_blob IS NOT NULL
       AND created_at < now() - make_interval(days => ${teamRetentionMinDaysSql('received_emails', '$1')})
       AND created_at < now() - make_interval(days => ${teamRetentionDaysSql('received_emails', 't.team_id', '$1')}) LIMIT $2),
     ab AS (SELECT blob_id FROM received_attachments WHERE email_id IN (SELECT id FROM old) AND blob_id IS NOT NULL),
     e AS (UPDATE received_emails r SET raw_blob = NULL, raw_purged_at = now() FROM old WHERE r.id = old.id),
     a AS (UPDATE received_attachments SET blob_id = NULL WHERE email_id IN (SELECT id FROM old) AND blob_id IS NOT NULL),
     del AS (DELETE FROM blob_chunks WHERE blob_id IN (SELECT raw_blob FROM old UNION ALL SELECT blob_id FROM ab))
     SELECT count(*)::int AS n FROM old`,
    [days, limit],
  );
  const { rowCount } = await db.query(
    `UPDATE return_path_messages SET raw = NULL WHERE id IN (
       SELECT id FROM return_path_messages t WHERE raw IS NOT NULL
         AND created_at < now() - make_interval(days => ${teamRetentionMinDaysSql('received_emails', '$1')})
         AND created_at < now() - make_interval(days => ${teamRetentionDaysSql('received_emails', 't.team_id', '$1')}) LIMIT $2)`,
    [days, limit],
  );
  return rows[0].n + (rowCount ?? 0);
}

export interface ReturnPathMessageInsert {
  id: string;
  team_id: string | null;
  email_id: string | null;
  kind: string;
  mail_from: string;
  rcpt_to: string;
  subject: string | null;
  detail: unknown;
  raw: Buffer;
}

export async function returnPathMessageInsert(db: Queryable, m: ReturnPathMessageInsert): Promise<void> {
  await db.query(
    `INSERT INTO return_path_messages (id, team_id, email_id, kind, mail_from, rcpt_to, subject, detail, raw) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [m.id, m.team_id, m.email_id, m.kind, m.mail_from, m.rcpt_to, m.subject, JSON.stringify(m.detail), m.raw],
  );
}
