// An inbox's threads and their labels (migration 0046; messages: inbox-messages.ts). Queries are keyed by the
// inbox (the service found the inbox in the caller's team first). Thread lists are ordered by
// latest activity, (last_message_at, id) descending, which is also their cursor.
import type { Queryable } from './db.js';

export type Folder = 'inbox' | 'archive' | 'spam' | 'sent' | 'trash';

export interface ThreadRow {
  id: string;
  inbox_id: string;
  subject: string | null;
  subject_key: string;
  participants: string[];
  folder: Folder;
  assignee_id: string | null;
  last_message_at: Date;
}

export interface ThreadLabel {
  id: string;
  name: string;
  color: string;
}

export interface ThreadListRow {
  id: string;
  subject: string | null;
  from: string | null;
  to: string[];
  cc: string[];
  bcc: string[];
  labels: ThreadLabel[];
  email_count: number;
  has_attachment: boolean;
  has_draft: boolean;
  read: boolean;
  received_at: Date;
  folder: Folder;
  matched_email_id?: string | null;
}

const LABELS_OF = (
  t: string,
) => `(SELECT coalesce(json_agg(json_build_object('id', l.id, 'name', l.name, 'color', l.color)
    ORDER BY l.created_at, l.id), '[]') FROM inbox_thread_labels tl JOIN inbox_labels l ON l.id = tl.label_id
    WHERE tl.thread_id = ${t}.id)`;

const THREAD_COLUMNS = `t.id, t.subject, t.folder, t.last_message_at AS received_at,
  lm.from_addr AS "from", coalesce(lm.to_addrs, '{}') AS "to", coalesce(lm.cc_addrs, '{}') AS cc,
  coalesce(lm.bcc_addrs, '{}') AS bcc,
  (SELECT count(*)::int FROM inbox_messages m WHERE m.thread_id = t.id) AS email_count,
  EXISTS (SELECT 1 FROM inbox_messages m WHERE m.thread_id = t.id AND m.attachments <> '[]') AS has_attachment,
  EXISTS (SELECT 1 FROM inbox_drafts d WHERE d.thread_id = t.id) AS has_draft,
  NOT EXISTS (SELECT 1 FROM inbox_messages m WHERE m.thread_id = t.id AND NOT m.read) AS read,
  ${LABELS_OF('t')} AS labels`;
const LATEST = `LEFT JOIN LATERAL (SELECT from_addr, to_addrs, cc_addrs, bcc_addrs FROM inbox_messages m
  WHERE m.thread_id = t.id ORDER BY m.created_at DESC, m.id DESC LIMIT 1) lm ON true`;

export interface ThreadFilter {
  folders?: Folder[];
  labels?: string[];
  read?: boolean;
}

/** SQL conditions on `t` for a filter, its parameters appended to `params`. */
function filterSql(f: ThreadFilter, params: unknown[]): string {
  let sql = '';
  if (f.folders?.length) {
    params.push(f.folders);
    sql += ` AND t.folder = ANY($${params.length}::text[])`;
  }
  if (f.labels?.length) {
    params.push(f.labels);
    sql += ` AND EXISTS (SELECT 1 FROM inbox_thread_labels tl
      WHERE tl.thread_id = t.id AND tl.label_id = ANY($${params.length}::uuid[]))`;
  }
  if (f.read !== undefined) {
    const not = f.read ? 'NOT ' : '';
    sql += ` AND ${not}EXISTS (SELECT 1 FROM inbox_messages m WHERE m.thread_id = t.id AND NOT m.read)`;
  }
  return sql;
}

export async function threadList(
  db: Queryable,
  inboxId: string,
  f: ThreadFilter,
  page: { limit: number; after?: string; before?: string },
): Promise<{ has_more: boolean; data: ThreadListRow[] }> {
  const params: unknown[] = [inboxId];
  let sql = filterSql(f, params);
  const cursor = page.after ?? page.before;
  if (cursor) {
    params.push(cursor);
    const op = page.after ? '<' : '>';
    sql += ` AND (t.last_message_at, t.id) ${op}
      (SELECT last_message_at, id FROM inbox_threads WHERE id = $${params.length})`;
  }
  params.push(page.limit + 1);
  const dir = page.before ? 'ASC' : 'DESC';
  const { rows } = await db.query<ThreadListRow>(
    `SELECT ${THREAD_COLUMNS} FROM inbox_threads t ${LATEST} WHERE t.inbox_id = $1${sql}
     ORDER BY t.last_message_at ${dir}, t.id ${dir} LIMIT $${params.length}`,
    params,
  );
  const has_more = rows.length > page.limit;
  const data = rows.slice(0, page.limit);
  if (page.before) data.reverse();
  return { has_more, data };
}

export interface SearchFilter extends ThreadFilter {
  query?: string;
  from?: string[];
  to?: string[];
  cc?: string[];
  bcc?: string[];
  hasAttachment?: boolean;
  start?: Date;
  end?: Date;
}

/**
 * Threads with a message that matches, best match first (ts_rank of the best message, then latest
 * activity), each with that message's id. At most `max` threads: a search is paged in memory.
 */
export async function threadSearch(db: Queryable, inboxId: string, f: SearchFilter, max: number) {
  const params: unknown[] = [inboxId];
  let msg = '';
  let rank = '0::real';
  if (f.query) {
    params.push(f.query);
    msg += ` AND m.search @@ websearch_to_tsquery('english', $${params.length})`;
    rank = `ts_rank(m.search, websearch_to_tsquery('english', $${params.length}))`;
  }
  for (const [k, col] of [
    ['from', 'ARRAY[m.from_addr]'],
    ['to', 'm.to_addrs'],
    ['cc', 'm.cc_addrs'],
    ['bcc', 'm.bcc_addrs'],
  ] as const) {
    const v = f[k];
    if (!v?.length) continue;
    params.push(v);
    msg += ` AND (SELECT array_agg(lower(x)) FROM unnest(${col}) x) && $${params.length}::text[]`;
  }
  if (f.hasAttachment !== undefined) msg += ` AND (m.attachments <> '[]') = ${f.hasAttachment ? 'true' : 'false'}`;
  if (f.start) {
    params.push(f.start);
    msg += ` AND m.created_at >= $${params.length}`;
  }
  if (f.end) {
    params.push(f.end);
    msg += ` AND m.created_at <= $${params.length}`;
  }
  const threadCond = filterSql(f, params);
  params.push(max);
  const { rows } = await db.query<ThreadListRow & { rank: number }>(
    `WITH hits AS (
       SELECT DISTINCT ON (m.thread_id) m.thread_id, m.id AS matched_email_id, ${rank} AS rank
       FROM inbox_messages m WHERE m.inbox_id = $1${msg} ORDER BY m.thread_id, rank DESC, m.created_at DESC)
     SELECT ${THREAD_COLUMNS}, h.matched_email_id, h.rank
     FROM hits h JOIN inbox_threads t ON t.id = h.thread_id ${LATEST}
     WHERE true${threadCond} ORDER BY h.rank DESC, t.last_message_at DESC, t.id DESC LIMIT $${params.length}`,
    params,
  );
  return rows.map(({ rank: _rank, ...r }) => r);
}

export async function threadFind(db: Queryable, inboxId: string, id: string): Promise<ThreadRow | undefined> {
  const { rows } = await db.query<ThreadRow>('SELECT * FROM inbox_threads WHERE inbox_id = $1 AND id = $2', [
    inboxId,
    id,
  ]);
  return rows[0];
}

export async function threadSummary(db: Queryable, inboxId: string, id: string) {
  const { rows } = await db.query<{
    id: string;
    subject: string | null;
    folder: Folder;
    labels: ThreadLabel[];
    read: boolean;
    assignee_email: string | null;
  }>(
    `SELECT t.id, t.subject, t.folder, ${LABELS_OF('t')} AS labels,
       NOT EXISTS (SELECT 1 FROM inbox_messages m WHERE m.thread_id = t.id AND NOT m.read) AS read,
       (SELECT u.email FROM users u WHERE u.id = t.assignee_id) AS assignee_email
     FROM inbox_threads t WHERE t.inbox_id = $1 AND t.id = $2`,
    [inboxId, id],
  );
  return rows[0];
}

/** The thread of the newest message in the inbox whose Message-ID is among `refs`. */
export async function threadFindByMessageIds(db: Queryable, inboxId: string, refs: string[]) {
  if (!refs.length) return undefined;
  const { rows } = await db.query<{ thread_id: string }>(
    `SELECT thread_id FROM inbox_messages WHERE inbox_id = $1 AND message_id = ANY($2::text[])
     ORDER BY created_at DESC LIMIT 1`,
    [inboxId, refs],
  );
  return rows[0]?.thread_id;
}

/** The fallback: a thread of the same normalised subject with a shared participant, active since `since`. */
export async function threadFindBySubject(
  db: Queryable,
  inboxId: string,
  subjectKey: string,
  participants: string[],
  since: Date,
) {
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM inbox_threads WHERE inbox_id = $1 AND subject_key = $2 AND participants && $3::text[]
       AND last_message_at >= $4 ORDER BY last_message_at DESC LIMIT 1`,
    [inboxId, subjectKey, participants, since],
  );
  return rows[0]?.id;
}

export async function threadInsert(
  db: Queryable,
  t: Omit<ThreadRow, 'assignee_id'> & { team_id: string },
): Promise<void> {
  await db.query(
    `INSERT INTO inbox_threads (id, team_id, inbox_id, subject, subject_key, participants, folder, last_message_at,
       created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)`,
    [t.id, t.team_id, t.inbox_id, t.subject, t.subject_key, t.participants, t.folder, t.last_message_at],
  );
}

/** A message joined the thread: activity, participants, and (inbound) back to the inbox from archive or sent. */
export async function threadTouch(
  db: Queryable,
  id: string,
  p: { at: Date; participants: string[]; inbound: boolean },
): Promise<{ from: Folder; to: Folder }> {
  const { rows } = await db.query<{ from: Folder; to: Folder }>(
    `UPDATE inbox_threads t SET last_message_at = greatest(t.last_message_at, $2), updated_at = now(),
       participants = (SELECT array_agg(DISTINCT x ORDER BY x) FROM unnest(t.participants || $3::text[]) x),
       folder = CASE WHEN $4 AND t.folder IN ('archive', 'sent') THEN 'inbox' ELSE t.folder END
     FROM inbox_threads old WHERE t.id = $1 AND old.id = t.id RETURNING old.folder AS from, t.folder AS to`,
    [id, p.at, p.participants, p.inbound],
  );
  return rows[0];
}

/** Read state and folder; returns the folder before, or undefined when the thread is not the inbox's. */
export async function threadUpdate(
  db: Queryable,
  inboxId: string,
  id: string,
  p: { read?: boolean; folder?: Folder },
): Promise<Folder | undefined> {
  const { rows } = await db.query<{ folder: Folder }>(
    'SELECT folder FROM inbox_threads WHERE inbox_id = $1 AND id = $2 FOR UPDATE',
    [inboxId, id],
  );
  if (!rows[0]) return undefined;
  if (p.folder)
    await db.query('UPDATE inbox_threads SET folder = $2, updated_at = now() WHERE id = $1', [id, p.folder]);
  if (p.read !== undefined) await db.query('UPDATE inbox_messages SET read = $2 WHERE thread_id = $1', [id, p.read]);
  return rows[0].folder;
}

export async function threadAssign(db: Queryable, id: string, userId: string | null) {
  const { rows } = await db.query<{ previous: string | null }>(
    `UPDATE inbox_threads t SET assignee_id = $2, updated_at = now() FROM inbox_threads old
     WHERE t.id = $1 AND old.id = t.id RETURNING (SELECT email FROM users WHERE id = old.assignee_id) AS previous`,
    [id, userId],
  );
  return rows[0];
}

export async function threadDelete(db: Queryable, inboxId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM inbox_threads WHERE inbox_id = $1 AND id = $2', [inboxId, id]);
  return Boolean(rowCount);
}

export async function threadLabelsOf(db: Queryable, threadId: string): Promise<ThreadLabel[]> {
  const { rows } = await db.query<ThreadLabel>(
    `SELECT l.id, l.name, l.color FROM inbox_thread_labels tl JOIN inbox_labels l ON l.id = tl.label_id
     WHERE tl.thread_id = $1 ORDER BY l.created_at, l.id`,
    [threadId],
  );
  return rows;
}

export async function threadLabelsAdd(db: Queryable, threadId: string, labelIds: string[]): Promise<string[]> {
  const { rows } = await db.query<{ label_id: string }>(
    `INSERT INTO inbox_thread_labels (thread_id, label_id) SELECT $1, x FROM unnest($2::uuid[]) x
     ON CONFLICT DO NOTHING RETURNING label_id`,
    [threadId, labelIds],
  );
  return rows.map((r) => r.label_id);
}

export async function threadLabelsRemove(db: Queryable, threadId: string, labelIds: string[]): Promise<string[]> {
  const { rows } = await db.query<{ label_id: string }>(
    'DELETE FROM inbox_thread_labels WHERE thread_id = $1 AND label_id = ANY($2::uuid[]) RETURNING label_id',
    [threadId, labelIds],
  );
  return rows.map((r) => r.label_id);
}

export async function threadLock(db: Queryable, inboxId: string): Promise<void> {
  // Filing takes the inbox's lock: two messages of one new conversation arriving at once must not make two threads.
  await db.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 28))', [inboxId]);
}

/** A member of the team by email address (assignment); undefined when none. */
export async function teamMemberByEmail(db: Queryable, teamId: string, email: string) {
  const { rows } = await db.query<{ id: string; email: string }>(
    `SELECT u.id, u.email FROM users u JOIN team_members m ON m.user_id = u.id
     WHERE m.team_id = $1 AND lower(u.email) = lower($2)`,
    [teamId, email],
  );
  return rows[0];
}
