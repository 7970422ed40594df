// Automations, their runs and the runs' steps: every query keyed by team or run. A step's state
// changes in the caller's transaction together with the job for what comes next (automations/run.ts).
import { uuid } from '../lib/ids.js';
import type { CustomEventRow } from './custom-events.js';
import type { Queryable, Tx } from './db.js';
import { paginate, type Page, type PageQuery } from './paginate.js';

export interface AutomationRow {
  id: string; team_id: string; name: string; status: 'enabled' | 'disabled'; trigger_event: string;
  /** re-entry: after_end (a new run once the previous ended), always (a run per event), never (once per contact) */
  reentry: Reentry;
  /** the system events (`resend:...`) its trigger or waits name (the trigger of migration 0025 reads it) */
  listens: string[];
  /** the events its wait_for_event steps wait for */
  waits: string[];
  steps: { key: string; type: string; config: Record<string, any> }[]; connections: { from: string; to: string; type: string }[];
  created_at: string; updated_at: string | null;
}
export const REENTRY = ['after_end', 'always', 'never'] as const;
export type Reentry = (typeof REENTRY)[number];
const COLUMNS = 'id, team_id, name, status, trigger_event, reentry, listens, waits, steps, connections, created_at::text AS created_at, updated_at::text AS updated_at';
const LIST_COLUMNS = 'id, name, status, created_at::text AS created_at, updated_at::text AS updated_at';

export type AutomationFields = Pick<AutomationRow, 'name' | 'status' | 'trigger_event' | 'reentry' | 'listens' | 'waits' | 'steps' | 'connections'>;

export async function automationInsert(db: Queryable, teamId: string, f: AutomationFields): Promise<AutomationRow> {
  const { rows } = await db.query<AutomationRow>(
    `INSERT INTO automations (id, team_id, name, status, trigger_event, steps, connections, reentry, listens, waits) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING ${COLUMNS}`,
    [uuid(), teamId, f.name, f.status, f.trigger_event, JSON.stringify(f.steps), JSON.stringify(f.connections), f.reentry, f.listens, f.waits]);
  return rows[0];
}

export async function automationFind(db: Queryable, teamId: string, id: string, lock = false): Promise<AutomationRow | undefined> {
  const { rows } = await db.query<AutomationRow>(`SELECT ${COLUMNS} FROM automations WHERE team_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`, [teamId, id]);
  return rows[0];
}

export function automationList(db: Queryable, teamId: string, page: PageQuery, status?: string): Promise<Page<Pick<AutomationRow, 'id' | 'name' | 'status' | 'created_at' | 'updated_at'>>> {
  return paginate(db, { table: 'automations', columns: LIST_COLUMNS, teamId, page, ...(status ? { where: 'status = $1', params: [status] } : {}) });
}

export async function automationUpdate(db: Queryable, teamId: string, id: string, f: AutomationFields): Promise<void> {
  await db.query(
    `UPDATE automations SET name = $3, status = $4, trigger_event = $5, steps = $6, connections = $7, reentry = $8, listens = $9, waits = $10, updated_at = now() WHERE team_id = $1 AND id = $2`,
    [teamId, id, f.name, f.status, f.trigger_event, JSON.stringify(f.steps), JSON.stringify(f.connections), f.reentry, f.listens, f.waits]);
}

export async function automationDelete(db: Queryable, teamId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM automations WHERE team_id = $1 AND id = $2', [teamId, id]);
  return Boolean(rowCount);
}

/** The team's enabled automations triggered by this event name. */
export async function automationsEnabledByTrigger(db: Queryable, teamId: string, event: string): Promise<AutomationRow[]> {
  const { rows } = await db.query<AutomationRow>(`SELECT ${COLUMNS} FROM automations WHERE team_id = $1 AND trigger_event = $2 AND status = 'enabled'`, [teamId, event]);
  return rows;
}

export interface RunRow {
  id: string; automation_id: string; team_id: string; contact_id: string | null; email: string; event: Record<string, unknown>;
  status: 'running' | 'completed' | 'failed' | 'cancelled'; started_at: string; completed_at: string | null; created_at: string;
}
const RUN_COLUMNS = 'id, automation_id, team_id, contact_id, email, event, status, started_at::text AS started_at, completed_at::text AS completed_at, created_at::text AS created_at';

/**
 * A new running run, unless the re-entry rule refuses it (then undefined): after_end and never runs
 * are exclusive (at most one running per contact, the unique index automation_runs_one_running);
 * never also refuses a contact that ever ran the automation. The same trigger event never starts two
 * runs of one automation (automation_runs_trigger_event).
 */
export async function automationRunInsert(tx: Tx, r: { automationId: string; teamId: string; contactId: string; email: string; event: Record<string, unknown>; reentry: Reentry; eventId: string }): Promise<RunRow | undefined> {
  const { rows } = await tx.query<RunRow>(
    `INSERT INTO automation_runs (id, automation_id, team_id, contact_id, email, event, exclusive, trigger_event_id)
     SELECT $1, $2, $3, $4, $5, $6, $7 <> 'always', $8
     WHERE $7 <> 'never' OR NOT EXISTS (SELECT 1 FROM automation_runs WHERE automation_id = $2 AND email = $5)
     ON CONFLICT DO NOTHING RETURNING ${RUN_COLUMNS}`,
    [uuid(), r.automationId, r.teamId, r.contactId, r.email, JSON.stringify(r.event), r.reentry, r.eventId]);
  return rows[0];
}

export async function automationRunFind(db: Queryable, runId: string, lock = false): Promise<RunRow | undefined> {
  const { rows } = await db.query<RunRow>(`SELECT ${RUN_COLUMNS} FROM automation_runs WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [runId]);
  return rows[0];
}

export function automationRunList(db: Queryable, teamId: string, automationId: string, page: PageQuery, statuses: string[] | null): Promise<Page<RunRow>> {
  return paginate<RunRow>(db, { table: 'automation_runs', columns: RUN_COLUMNS, teamId, page,
    where: 'automation_id = $1 AND ($2::text[] IS NULL OR status = ANY($2::text[]))', params: [automationId, statuses] });
}

/** Ends a run; only a running one (returns whether it was). */
export async function automationRunEnd(db: Queryable, runId: string, status: 'completed' | 'failed' | 'cancelled'): Promise<boolean> {
  const { rowCount } = await db.query(`UPDATE automation_runs SET status = $2, completed_at = now() WHERE id = $1 AND status = 'running'`, [runId, status]);
  return Boolean(rowCount);
}

/** stop: every running run of the automation cancelled, with its unfinished steps skipped. */
export async function automationRunsCancelAll(tx: Tx, automationId: string): Promise<number> {
  const { rows } = await tx.query<{ id: string }>(
    `UPDATE automation_runs SET status = 'cancelled', completed_at = now() WHERE automation_id = $1 AND status = 'running' RETURNING id`, [automationId]);
  await tx.query(
    `UPDATE automation_run_steps SET status = 'skipped', error = '{"reason":"cancelled"}', completed_at = now()
     WHERE run_id = ANY($1::uuid[]) AND status IN ('pending', 'running', 'waiting')`, [rows.map((r) => r.id)]);
  return rows.length;
}

export interface RunStepRow {
  run_id: string; key: string; type: string; status: 'pending' | 'running' | 'waiting' | 'completed' | 'failed' | 'skipped';
  wait_event: string | null; output: Record<string, unknown> | null; error: Record<string, unknown> | null;
  started_at: string | null; completed_at: string | null; created_at: string;
}
const STEP_COLUMNS = 'run_id, key, type, status, wait_event, output, error, started_at::text AS started_at, completed_at::text AS completed_at, created_at::text AS created_at';

/**
 * A step the run reaches: pending (unless the run reached it already). Returns whether it is new.
 * A wait_for_event step names its event (`waitEvent`) from the start, so that an event arriving
 * before the step job parks it as waiting is remembered on the step (runStepRememberEvent).
 */
export async function runStepInsertPending(tx: Tx, runId: string, key: string, type: string, waitEvent: string | null = null): Promise<boolean> {
  const { rowCount } = await tx.query(`INSERT INTO automation_run_steps (run_id, key, type, wait_event) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`, [runId, key, type, waitEvent]);
  return Boolean(rowCount);
}

/** A pending wait's event, kept in its output until the step job enters the wait and takes it. */
export async function runStepRememberEvent(tx: Tx, runId: string, key: string, received: Record<string, unknown>): Promise<void> {
  await tx.query(
    `UPDATE automation_run_steps SET output = jsonb_build_object('early_event', $3::jsonb) WHERE run_id = $1 AND key = $2 AND status IN ('pending', 'running') AND output IS NULL`,
    [runId, key, JSON.stringify(received)]);
}

export async function runStepFind(db: Queryable, runId: string, key: string, lock = false): Promise<RunStepRow | undefined> {
  const { rows } = await db.query<RunStepRow>(`SELECT ${STEP_COLUMNS} FROM automation_run_steps WHERE run_id = $1 AND key = $2${lock ? ' FOR UPDATE' : ''}`, [runId, key]);
  return rows[0];
}

export async function runStepsOfRun(db: Queryable, runId: string): Promise<RunStepRow[]> {
  const { rows } = await db.query<RunStepRow>(`SELECT ${STEP_COLUMNS} FROM automation_run_steps WHERE run_id = $1 ORDER BY created_at, key`, [runId]);
  return rows;
}

/** Sets a step's state; `started_at` is set on first leaving pending, `completed_at` on a final state. */
export async function runStepSet(db: Queryable, runId: string, key: string, s: { status: RunStepRow['status']; output?: unknown; error?: unknown; waitEvent?: string | null }): Promise<void> {
  await db.query(
    `UPDATE automation_run_steps SET status = $3, output = coalesce($4::jsonb, output), error = $5::jsonb, wait_event = $6,
       started_at = coalesce(started_at, now()),
       completed_at = CASE WHEN $3 IN ('completed', 'failed', 'skipped') THEN now() END
     WHERE run_id = $1 AND key = $2`,
    [runId, key, s.status, s.output === undefined ? null : JSON.stringify(s.output), s.error === undefined ? null : JSON.stringify(s.error), s.waitEvent ?? null]);
}

/** Whether any step of the run is still to finish. */
export async function runStepsUnfinished(db: Queryable, runId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM automation_run_steps WHERE run_id = $1 AND status IN ('pending', 'running', 'waiting')`, [runId]);
  return rows[0].n;
}

/**
 * The steps of the team's running runs for this address that wait for this event (waiting, or
 * still pending/running on the way into the wait), locked run first then step: the order the step
 * job (and stop) takes, so an event and a wait's timeout firing at once queue behind each other
 * instead of deadlocking.
 */
export async function runStepsWaitingFor(tx: Tx, teamId: string, email: string, event: string): Promise<(RunStepRow & { run: RunRow })[]> {
  const { rows: runs } = await tx.query<{ id: string }>(
    `SELECT r.id FROM automation_runs r
     WHERE r.team_id = $1 AND r.email = $2 AND r.status = 'running'
       AND EXISTS (SELECT 1 FROM automation_run_steps s WHERE s.run_id = r.id AND s.status IN ('pending', 'running', 'waiting') AND s.wait_event = $3)
     ORDER BY r.id FOR UPDATE OF r`,
    [teamId, email, event]);
  if (!runs.length) return [];
  const { rows } = await tx.query(
    `SELECT s.run_id, s.key, s.type, s.status, r.automation_id, r.team_id, r.contact_id, r.email, r.event
     FROM automation_run_steps s JOIN automation_runs r ON r.id = s.run_id
     WHERE s.run_id = ANY($1::uuid[]) AND s.status IN ('pending', 'running', 'waiting') AND s.wait_event = $2 AND r.status = 'running'
     ORDER BY s.run_id, s.key FOR UPDATE OF s`,
    [runs.map((r) => r.id), event]);
  return rows.map((x: any) => ({ ...x, run: { id: x.run_id, automation_id: x.automation_id, team_id: x.team_id, contact_id: x.contact_id, email: x.email, event: x.event } }));
}

/**
 * The oldest queued events (automation_event_queue) in the order recorded, with their team; `id` is
 * null for an event deleted since (its team was), which only leaves the queue.
 */
export async function automationEventQueueHead(tx: Tx, limit: number): Promise<(Omit<CustomEventRow, 'id'> & { id: string | null; seq: string; team_id: string })[]> {
  const { rows } = await tx.query(
    `SELECT q.seq, e.team_id, e.id, e.name, e.contact_id, e.email, e.payload, e.created_at::text AS created_at
     FROM automation_event_queue q LEFT JOIN custom_events e ON e.id = q.event_id ORDER BY q.seq LIMIT $1`, [limit]);
  return rows;
}

export async function automationEventQueueDelete(tx: Tx, seqs: string[]): Promise<void> {
  if (seqs.length) await tx.query('DELETE FROM automation_event_queue WHERE seq = ANY($1::bigint[])', [seqs]);
}
