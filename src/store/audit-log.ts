// The audit log's SQL (migration 0050): the per-team head lock, appending one entry, the filtered
// list behind GET /audit-log and the ordered walk behind `mailroom audit verify`. No function here
// changes or deletes an entry; the table's triggers refuse that anyway.
import type { Queryable } from './db.js';
import { paginate, type Page, type PageQuery } from './paginate.js';

export interface AuditRow {
  id: string;
  team_id: string;
  seq: number;
  created_at: string; // ISO 8601 with milliseconds, UTC ("2026-11-27T02:28:56.123Z"): hashed as is
  actor_kind: string;
  actor_id: string | null;
  actor_display: string | null;
  ip: string | null;
  user_agent: string | null;
  action: string;
  target_kind: string;
  target_id: string | null;
  summary: Record<string, unknown>;
  prev_hash: string;
  hash: string;
}

const ISO = `to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const COLUMNS = `id, team_id, seq::int AS seq, ${ISO} AS created_at, actor_kind, actor_id, actor_display, ip,
  user_agent, action, target_kind, target_id, summary, prev_hash, hash`;

/**
 * Takes the team's chain head for the rest of the transaction (its row lock: a concurrent writer in
 * any process waits here until this transaction ends) and returns it; seq 0 and '' for a new chain.
 */
export async function auditHeadLock(tx: Queryable, teamId: string): Promise<{ seq: number; hash: string }> {
  const { rows } = await tx.query<{ seq: string; hash: string }>(
    `INSERT INTO audit_heads (team_id, seq, hash) VALUES ($1, 0, '')
     ON CONFLICT (team_id) DO UPDATE SET seq = audit_heads.seq RETURNING seq, hash`,
    [teamId],
  );
  return { seq: Number(rows[0].seq), hash: rows[0].hash };
}

/** Appends the entry and moves the head to it (the caller holds the head lock). */
export async function auditInsert(tx: Queryable, r: AuditRow): Promise<void> {
  await tx.query(
    `WITH entry AS (
       INSERT INTO audit_log (id, team_id, seq, created_at, actor_kind, actor_id, actor_display, ip, user_agent,
         action, target_kind, target_id, summary, prev_hash, hash)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) RETURNING team_id
     )
     UPDATE audit_heads SET seq = $3, hash = $15 WHERE team_id = (SELECT team_id FROM entry)`,
    [
      r.id,
      r.team_id,
      r.seq,
      r.created_at,
      r.actor_kind,
      r.actor_id,
      r.actor_display,
      r.ip,
      r.user_agent,
      r.action,
      r.target_kind,
      r.target_id,
      JSON.stringify(r.summary),
      r.prev_hash,
      r.hash,
    ],
  );
}

export interface AuditFilter {
  /** an actor's id or what it is shown as (a user's address, a key's name) */
  actorId?: string;
  actorKind?: string;
  action?: string;
  targetKind?: string;
  targetId?: string;
  since?: string;
  until?: string;
}

export async function auditList(
  db: Queryable,
  teamId: string,
  page: PageQuery,
  f: AuditFilter,
): Promise<Page<Record<string, unknown>>> {
  const conds: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, v: unknown) => {
    params.push(v);
    conds.push(sql.replace('?', `$${params.length}`));
  };
  if (f.actorId !== undefined) add('? IN (actor_id, actor_display)', f.actorId);
  if (f.actorKind !== undefined) add('actor_kind = ?', f.actorKind);
  if (f.action?.endsWith('.*')) add('action LIKE ?', `${f.action.slice(0, -1).replace(/_/g, '\\_')}%`);
  else if (f.action !== undefined) add('action = ?', f.action);
  if (f.targetKind !== undefined) add('target_kind = ?', f.targetKind);
  if (f.targetId !== undefined) add('target_id = ?', f.targetId);
  if (f.since !== undefined) add('audit_log.created_at >= ?::timestamptz', f.since);
  if (f.until !== undefined) add('audit_log.created_at < ?::timestamptz', f.until);
  const page_ = await paginate<AuditRow>(db, {
    table: 'audit_log',
    columns: COLUMNS,
    teamId,
    page,
    where: conds.join(' AND ') || undefined,
    params,
  });
  return { has_more: page_.has_more, data: page_.data.map(auditView) };
}

/** An entry as the API shows it: nested actor and target, the chain fields kept for checking. */
export function auditView(r: AuditRow): Record<string, unknown> {
  return {
    object: 'audit_log_entry',
    id: r.id,
    seq: r.seq,
    created_at: r.created_at,
    actor: { kind: r.actor_kind, id: r.actor_id, display: r.actor_display },
    ip: r.ip,
    user_agent: r.user_agent,
    action: r.action,
    target: { kind: r.target_kind, id: r.target_id },
    summary: r.summary,
    hash: r.hash,
  };
}

/** The teams that have an audit chain (a head or any entry). */
export async function auditTeams(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ team_id: string }>(
    'SELECT team_id FROM audit_heads UNION SELECT DISTINCT team_id FROM audit_log ORDER BY 1',
  );
  return rows.map((r) => r.team_id);
}

export async function auditHead(db: Queryable, teamId: string): Promise<{ seq: number; hash: string } | undefined> {
  const { rows } = await db.query<{ seq: string; hash: string }>(
    'SELECT seq, hash FROM audit_heads WHERE team_id = $1',
    [teamId],
  );
  return rows[0] && { seq: Number(rows[0].seq), hash: rows[0].hash };
}

/** One batch of a team's chain in order, after `afterSeq`. */
export async function auditChainBatch(
  db: Queryable,
  teamId: string,
  afterSeq: number,
  limit: number,
): Promise<AuditRow[]> {
  const { rows } = await db.query<AuditRow>(
    `SELECT ${COLUMNS} FROM audit_log WHERE team_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
    [teamId, afterSeq, limit],
  );
  return rows;
}
