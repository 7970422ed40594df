// The per-team suppression list: hard bounces, complaints and manual entries. Adding and removing
// record suppression.added / suppression.removed in the webhook outbox in the same statement.
import { uuid } from '../lib/ids.js';
import type { Queryable } from './db.js';
import { paginate, type Page, type PageQuery } from './paginate.js';

export interface SuppressionRow {
  id: string;
  email: string;
  origin: 'bounce' | 'complaint' | 'manual';
  source_id: string | null;
  created_at: string;
}
const COLUMNS = 'id, email, origin, source_id, created_at::text AS created_at';

/** The webhook `data` of suppression.* (the SDK's SuppressionEventData), from a row alias `s`. */
const EVENT_DATA = `json_build_object('id', s.id, 'email', s.email, 'origin', s.origin, 'source_id', s.source_id,
  'created_at', to_char(s.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))`;

/** Adds (or keeps) an address; returns the row either way. A new entry records suppression.added. */
export async function suppressionAdd(
  db: Queryable,
  teamId: string,
  email: string,
  origin: SuppressionRow['origin'],
  sourceId: string | null,
  reason?: string,
): Promise<SuppressionRow> {
  const { rows } = await db.query<SuppressionRow>(
    `WITH s AS (
       INSERT INTO suppressions (id, team_id, email, origin, source_id, reason) VALUES ($1, $2, lower($3), $4, $5, $6)
       ON CONFLICT (team_id, email) DO NOTHING RETURNING *),
     ev AS (INSERT INTO email_events (id, email_id, team_id, type, recipient, data)
       SELECT $7, s.id, s.team_id, 'suppression.added', NULL, ${EVENT_DATA} FROM s)
     SELECT ${COLUMNS} FROM s UNION ALL SELECT ${COLUMNS} FROM suppressions WHERE team_id = $2 AND email = lower($3) LIMIT 1`,
    [uuid(), teamId, email, origin, sourceId, reason ?? null, uuid()],
  );
  return rows[0];
}

/** The subset of `emails` on the team's suppression list, with why. */
export async function suppressionsFind(
  db: Queryable,
  teamId: string,
  emails: string[],
): Promise<Map<string, SuppressionRow>> {
  if (!emails.length) return new Map();
  const { rows } = await db.query<SuppressionRow>(
    `SELECT ${COLUMNS} FROM suppressions WHERE team_id = $1 AND email = ANY($2::text[])`,
    [teamId, emails.map((e) => e.toLowerCase())],
  );
  return new Map(rows.map((r) => [r.email, r]));
}

export async function suppressionFindByIdOrEmail(
  db: Queryable,
  teamId: string,
  idOrEmail: string,
  isId: boolean,
): Promise<SuppressionRow | undefined> {
  const { rows } = await db.query<SuppressionRow>(
    `SELECT ${COLUMNS} FROM suppressions WHERE team_id = $1 AND ${isId ? 'id = $2::uuid' : 'email = lower($2)'}`,
    [teamId, idOrEmail],
  );
  return rows[0];
}

/** Removes an entry, recording suppression.removed. */
export async function suppressionDelete(db: Queryable, teamId: string, id: string): Promise<boolean> {
  const { rows } = await db.query(
    `WITH s AS (DELETE FROM suppressions WHERE team_id = $1 AND id = $2 RETURNING *),
     ev AS (INSERT INTO email_events (id, email_id, team_id, type, recipient, data)
       SELECT $3, s.id, s.team_id, 'suppression.removed', NULL, ${EVENT_DATA} FROM s)
     SELECT 1 FROM s`,
    [teamId, id, uuid()],
  );
  return rows.length > 0;
}

export async function suppressionList(
  db: Queryable,
  teamId: string,
  page: PageQuery,
  origin?: string,
): Promise<Page<SuppressionRow>> {
  return paginate<SuppressionRow>(db, {
    table: 'suppressions',
    columns: COLUMNS,
    teamId,
    page,
    where: origin ? 'origin = $1' : undefined,
    params: origin ? [origin] : [],
  });
}
