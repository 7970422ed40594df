// Automations (the saved definitions) and the queue of events waiting for them: every query keyed
// by team. Their runs and steps are in automation-runs.ts, the per-step counts in automation-counts.ts.
// automation_event_queue is also filled outside this file, in SQL: by customEventsInsertBatch
// (custom-events.ts) and by the trigger email_events_automations on email_events (migration 0025).
import { uuid } from '../lib/ids.js';
import type { CustomEventRow } from './custom-events.js';
import type { Queryable, Tx } from './db.js';
import { paginate, type Page, type PageQuery } from './paginate.js';

export interface AutomationRow {
  id: string;
  team_id: string;
  name: string;
  status: 'enabled' | 'disabled';
  trigger_event: string;
  /** re-entry: after_end (a new run once the previous ended), always (a run per event), never (once per contact) */
  reentry: Reentry;
  /** the system events (`resend:...`) its trigger or waits name (the trigger of migration 0025 reads it) */
  listens: string[];
  /** the events its wait_for_event steps wait for */
  waits: string[];
  steps: { key: string; type: string; config: Record<string, any> }[];
  connections: { from: string; to: string; type: string }[];
  created_at: string;
  updated_at: string | null;
}
export const REENTRY = ['after_end', 'always', 'never'] as const;
export type Reentry = (typeof REENTRY)[number];
const COLUMNS =
  'id, team_id, name, status, trigger_event, reentry, listens, waits, steps, connections, created_at::text AS created_at, updated_at::text AS updated_at';
const LIST_COLUMNS = 'id, name, status, created_at::text AS created_at, updated_at::text AS updated_at';

export type AutomationFields = Pick<
  AutomationRow,
  'name' | 'status' | 'trigger_event' | 'reentry' | 'listens' | 'waits' | 'steps' | 'connections'
>;

export async function automationInsert(db: Queryable, teamId: string, f: AutomationFields): Promise<AutomationRow> {
  const { rows } = await db.query<AutomationRow>(
    `INSERT INTO automations (id, team_id, name, status, trigger_event, steps, connections, reentry, listens, waits) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING ${COLUMNS}`,
    [
      uuid(),
      teamId,
      f.name,
      f.status,
      f.trigger_event,
      JSON.stringify(f.steps),
      JSON.stringify(f.connections),
      f.reentry,
      f.listens,
      f.waits,
    ],
  );
  return rows[0];
}

export async function automationFind(
  db: Queryable,
  teamId: string,
  id: string,
  lock = false,
): Promise<AutomationRow | undefined> {
  const { rows } = await db.query<AutomationRow>(
    `SELECT ${COLUMNS} FROM automations WHERE team_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`,
    [teamId, id],
  );
  return rows[0];
}

export function automationList(
  db: Queryable,
  teamId: string,
  page: PageQuery,
  status?: string,
): Promise<Page<Pick<AutomationRow, 'id' | 'name' | 'status' | 'created_at' | 'updated_at'>>> {
  return paginate(db, {
    table: 'automations',
    columns: LIST_COLUMNS,
    teamId,
    page,
    ...(status ? { where: 'status = $1', params: [status] } : {}),
  });
}

export async function automationUpdate(db: Queryable, teamId: string, id: string, f: AutomationFields): Promise<void> {
  await db.query(
    `UPDATE automations SET name = $3, status = $4, trigger_event = $5, steps = $6, connections = $7, reentry = $8, listens = $9, waits = $10, updated_at = now() WHERE team_id = $1 AND id = $2`,
    [
      teamId,
      id,
      f.name,
      f.status,
      f.trigger_event,
      JSON.stringify(f.steps),
      JSON.stringify(f.connections),
      f.reentry,
      f.listens,
      f.waits,
    ],
  );
}

export async function automationDelete(db: Queryable, teamId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM automations WHERE team_id = $1 AND id = $2', [teamId, id]);
  return Boolean(rowCount);
}

/** The enabled automations triggered by these (team, event name) pairs, in one query. */
export async function automationsEnabledByTriggers(
  db: Queryable,
  keys: { team_id: string; name: string }[],
): Promise<AutomationRow[]> {
  if (!keys.length) return [];
  const { rows } = await db.query<AutomationRow>(
    `SELECT ${COLUMNS} FROM automations WHERE status = 'enabled' AND (team_id, trigger_event) IN (SELECT * FROM unnest($1::uuid[], $2::text[]))`,
    [keys.map((k) => k.team_id), keys.map((k) => k.name)],
  );
  return rows;
}

/** Automations by id (whatever their status): the ones that runs being advanced belong to. */
export async function automationsByIds(db: Queryable, ids: string[]): Promise<AutomationRow[]> {
  if (!ids.length) return [];
  const { rows } = await db.query<AutomationRow>(`SELECT ${COLUMNS} FROM automations WHERE id = ANY($1::uuid[])`, [
    ids,
  ]);
  return rows;
}

/**
 * The oldest queued events (automation_event_queue) in the order recorded, with their team; `id` is
 * null for an event deleted since (its team was), which only leaves the queue.
 */
export async function automationEventQueueHead(
  tx: Tx,
  limit: number,
): Promise<(Omit<CustomEventRow, 'id'> & { id: string | null; seq: string; team_id: string })[]> {
  const { rows } = await tx.query(
    `SELECT q.seq, e.team_id, e.id, e.name, e.contact_id, e.email, e.payload, e.created_at::text AS created_at
     FROM automation_event_queue q LEFT JOIN custom_events e ON e.id = q.event_id ORDER BY q.seq LIMIT $1`,
    [limit],
  );
  return rows;
}

export async function automationEventQueueDelete(tx: Tx, seqs: string[]): Promise<void> {
  if (seqs.length) await tx.query('DELETE FROM automation_event_queue WHERE seq = ANY($1::bigint[])', [seqs]);
}
