// Inboxes and their labels (migration 0046). Every query is keyed by the team; `unread` is counted
// at read time (threads in the inbox folder with an unread inbound message: partial index).
import { uuid } from '../lib/ids.js';
import { prepared, type Queryable } from './db.js';

export interface InboxRow {
  id: string;
  team_id: string;
  domain_id: string;
  email_address: string;
  name: string | null;
  from_name: string | null;
  forwarding: boolean;
  unread: number;
  drafts: number;
  last_received: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `i.id, i.team_id, i.domain_id, i.email_address, i.name, i.from_name, i.forwarding, i.last_received,
  i.created_at, i.updated_at,
  (SELECT count(DISTINCT m.thread_id)::int FROM inbox_messages m JOIN inbox_threads t ON t.id = m.thread_id
    WHERE m.inbox_id = i.id AND NOT m.read AND m.direction = 'inbound' AND t.folder = 'inbox') AS unread,
  (SELECT count(*)::int FROM inbox_drafts d WHERE d.inbox_id = i.id) AS drafts`;

export async function inboxInsert(
  db: Queryable,
  i: {
    team_id: string;
    domain_id: string;
    email_address: string;
    name: string | null;
    from_name: string | null;
    forwarding: boolean;
  },
): Promise<string | undefined> {
  const id = uuid();
  const { rowCount } = await db.query(
    `INSERT INTO inboxes (id, team_id, domain_id, email_address, name, from_name, forwarding)
     VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (email_address) DO NOTHING`,
    [id, i.team_id, i.domain_id, i.email_address, i.name, i.from_name, i.forwarding],
  );
  return rowCount ? id : undefined;
}

/** By id or by address (lower case), the team's only. */
export async function inboxFind(db: Queryable, teamId: string, by: { id?: string; address?: string }) {
  const { rows } = await db.query<InboxRow>(
    `SELECT ${COLUMNS} FROM inboxes i WHERE i.team_id = $1 AND ${by.id ? 'i.id = $2' : 'i.email_address = $2'}`,
    [teamId, by.id ?? by.address],
  );
  return rows[0];
}

/** The inboxes of these addresses, any team (filing received mail: the route already found the team). */
export async function inboxesFindByAddresses(db: Queryable, teamId: string, addresses: string[]) {
  const { rows } = await db.query<{ id: string; email_address: string }>(
    'SELECT id, email_address FROM inboxes WHERE team_id = $1 AND email_address = ANY($2::text[])',
    [teamId, addresses],
  );
  return rows;
}

/**
 * The inboxes among (team, address) pairs, the From addresses of committed emails: run after
 * every accept statement (API and SMTP single sends, inboxes/filing.ts fileSent) before its
 * senders are answered, so prepared once per session: planned at every call it cost 18-22 µs of
 * PostgreSQL's planning per SMTP message (pg_stat_statements, issue 27), about 190 µs a statement.
 */
export async function inboxesFindByFrom(db: Queryable, teamIds: string[], addresses: string[]) {
  const { rows } = await db.query<{ id: string; team_id: string; email_address: string }>(
    prepared(
      db,
      'mr_inboxes_find_by_from',
      `SELECT i.id, i.team_id, i.email_address FROM inboxes i
       JOIN unnest($1::uuid[], $2::text[]) AS x(team_id, address)
         ON i.email_address = x.address AND i.team_id = x.team_id`,
      [teamIds, addresses],
    ),
  );
  return rows;
}

export async function inboxList(db: Queryable, teamId: string, limit: number, after?: string, before?: string) {
  const cursor = after ?? before;
  const params: unknown[] = [teamId, limit + 1];
  let cond = '';
  if (cursor) {
    params.push(cursor);
    const op = after ? '<' : '>';
    cond = ` AND (i.created_at, i.id) ${op} (SELECT created_at, id FROM inboxes WHERE id = $3 AND team_id = $1)`;
  }
  const dir = before ? 'ASC' : 'DESC';
  const { rows } = await db.query<InboxRow>(
    `SELECT ${COLUMNS} FROM inboxes i WHERE i.team_id = $1${cond} ORDER BY i.created_at ${dir}, i.id ${dir} LIMIT $2`,
    params,
  );
  const has_more = rows.length > limit;
  const data = rows.slice(0, limit);
  if (before) data.reverse();
  return { has_more, data };
}

export async function inboxCount(db: Queryable, teamId: string): Promise<number> {
  const { rows } = await db.query('SELECT count(*)::int AS n FROM inboxes WHERE team_id = $1', [teamId]);
  return rows[0].n;
}

export async function inboxExists(db: Queryable, teamId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM inboxes WHERE team_id = $1 AND id = $2', [teamId, id]);
  return Boolean(rowCount);
}

export async function inboxUpdate(
  db: Queryable,
  teamId: string,
  id: string,
  p: { name?: string | null; from_name?: string | null },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE inboxes SET name = CASE WHEN $3 THEN $4 ELSE name END, from_name = CASE WHEN $5 THEN $6 ELSE from_name END,
       updated_at = now() WHERE team_id = $1 AND id = $2`,
    [teamId, id, p.name !== undefined, p.name ?? null, p.from_name !== undefined, p.from_name ?? null],
  );
  return Boolean(rowCount);
}

export async function inboxDelete(db: Queryable, teamId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM inboxes WHERE team_id = $1 AND id = $2', [teamId, id]);
  return Boolean(rowCount);
}

export async function inboxTouchReceived(db: Queryable, id: string, at: Date): Promise<void> {
  await db.query('UPDATE inboxes SET last_received = greatest(last_received, $2) WHERE id = $1', [id, at]);
}

// Labels.

export interface LabelRow {
  id: string;
  name: string;
  color: string;
  created_at: Date;
}
const LABEL_COLUMNS = 'id, name, color, created_at';

export async function labelInsert(db: Queryable, teamId: string, inboxId: string, name: string, color: string) {
  const { rows } = await db.query<LabelRow>(
    `INSERT INTO inbox_labels (id, team_id, inbox_id, name, color) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (inbox_id, lower(name)) DO NOTHING RETURNING ${LABEL_COLUMNS}`,
    [uuid(), teamId, inboxId, name, color],
  );
  return rows[0];
}

export async function labelCount(db: Queryable, inboxId: string): Promise<number> {
  const { rows } = await db.query('SELECT count(*)::int AS n FROM inbox_labels WHERE inbox_id = $1', [inboxId]);
  return rows[0].n;
}

export async function labelList(db: Queryable, inboxId: string): Promise<LabelRow[]> {
  const { rows } = await db.query<LabelRow>(
    `SELECT ${LABEL_COLUMNS} FROM inbox_labels WHERE inbox_id = $1 ORDER BY created_at, id`,
    [inboxId],
  );
  return rows;
}

export async function labelsFindMany(db: Queryable, inboxId: string, ids: string[]): Promise<LabelRow[]> {
  const { rows } = await db.query<LabelRow>(
    `SELECT ${LABEL_COLUMNS} FROM inbox_labels WHERE inbox_id = $1 AND id = ANY($2::uuid[]) ORDER BY created_at, id`,
    [inboxId, ids],
  );
  return rows;
}

/** undefined: no such label; null: the new name is another label's. */
export async function labelUpdate(
  db: Queryable,
  inboxId: string,
  id: string,
  p: { name?: string; color?: string },
): Promise<LabelRow | null | undefined> {
  try {
    const { rows } = await db.query<LabelRow>(
      `UPDATE inbox_labels SET name = coalesce($3, name), color = coalesce($4, color)
       WHERE inbox_id = $1 AND id = $2 RETURNING ${LABEL_COLUMNS}`,
      [inboxId, id, p.name ?? null, p.color ?? null],
    );
    return rows[0];
  } catch (err) {
    if ((err as { code?: string }).code === '23505') return null;
    throw err;
  }
}

export async function labelDelete(db: Queryable, inboxId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM inbox_labels WHERE inbox_id = $1 AND id = $2', [inboxId, id]);
  return Boolean(rowCount);
}
