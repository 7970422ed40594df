// The runs of automations and their steps: every query keyed by run (or its automation). A step's
// state changes in the caller's transaction together with the job for what comes next (automations/run.ts).
import type { Reentry } from './automations.js';
import type { Queryable, Tx } from './db.js';
import { automationStepJobsInsertSql, automationWakeJobsInsertSql, JOBS_CHANNEL } from './jobs.js';
import { paginate, type Page, type PageQuery } from './paginate.js';

export interface RunRow {
  id: string;
  automation_id: string;
  team_id: string;
  contact_id: string | null;
  email: string;
  event: Record<string, unknown>;
  status: 'running' | 'completed' | 'failed' | 'cancelled';
  started_at: string;
  completed_at: string | null;
  created_at: string;
}
const RUN_COLUMNS =
  'id, automation_id, team_id, contact_id, email, event, status, started_at::text AS started_at, completed_at::text AS completed_at, created_at::text AS created_at';

export interface RunStart {
  id: string;
  automationId: string;
  teamId: string;
  contactId: string;
  email: string;
  event: Record<string, unknown>;
  reentry: Reentry;
  eventId: string;
}
/** A step a run reaches: pending (its step job runs it), waiting (a delay parked at once: output {until}, with its wake-up) or completed (a trigger). */
export interface RunStepNew {
  run_id: string;
  key: string;
  type: string;
  status: 'pending' | 'waiting' | 'completed';
  output: unknown;
  wait_event: string | null;
}

/**
 * New running runs, many candidates in one statement, each unless its re-entry rule refuses it:
 * after_end and never runs are exclusive (at most one running per contact, the unique index
 * automation_runs_one_running), never also refuses a contact that ever ran the automation, and the
 * same trigger event never starts two runs of one automation (automation_runs_trigger_event); with
 * the first step rows of each run that was inserted (`steps`, in order: a completed step is
 * started and completed now, a pending one gets its step job, a waiting one its wake-up at
 * output.until; notified at commit). No two
 * candidates may share an automation and address (the caller's waves). Returns the inserted run ids.
 */
export async function automationRunsStart(tx: Tx, runs: RunStart[], steps: RunStepNew[]): Promise<Set<string>> {
  if (!runs.length) return new Set();
  const { rows } = await tx.query<{ id: string }>(
    `WITH c AS (
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::jsonb[], $7::text[], $8::uuid[]) WITH ORDINALITY
         AS c (id, automation_id, team_id, contact_id, email, event, reentry, event_id, ord)),
     runs AS (
       INSERT INTO automation_runs (id, automation_id, team_id, contact_id, email, event, exclusive, trigger_event_id)
       SELECT id, automation_id, team_id, contact_id, email, event, reentry <> 'always', event_id FROM c
       WHERE reentry <> 'never' OR NOT EXISTS (SELECT 1 FROM automation_runs r WHERE r.automation_id = c.automation_id AND r.email = c.email)
       ORDER BY ord
       ON CONFLICT DO NOTHING RETURNING id),
     st AS (
       INSERT INTO automation_run_steps (run_id, key, type, status, output, wait_event, started_at, completed_at)
       SELECT t.run_id, t.key, t.type, t.status, t.output, t.wait_event,
              CASE WHEN t.status <> 'pending' THEN now() END, CASE WHEN t.status = 'completed' THEN now() END
       FROM unnest($9::uuid[], $10::text[], $11::text[], $12::text[], $13::jsonb[], $14::text[]) WITH ORDINALITY AS t (run_id, key, type, status, output, wait_event, ord)
       WHERE t.run_id IN (SELECT id FROM runs)
       ORDER BY t.ord
       ON CONFLICT DO NOTHING RETURNING run_id, key, status, output),
     sj AS (${automationStepJobsInsertSql("(SELECT run_id, key FROM st WHERE status = 'pending')")}),
     wj AS (${automationWakeJobsInsertSql("(SELECT run_id, key, (output->>'until')::timestamptz AS run_at FROM st WHERE status = 'waiting')")})
     SELECT id, (SELECT pg_notify($15, kind) FROM sj LIMIT 1) AS notified, (SELECT pg_notify($15, kind) FROM wj LIMIT 1) AS notified_wake FROM runs`,
    [
      runs.map((r) => r.id),
      runs.map((r) => r.automationId),
      runs.map((r) => r.teamId),
      runs.map((r) => r.contactId),
      runs.map((r) => r.email),
      runs.map((r) => JSON.stringify(r.event)),
      runs.map((r) => r.reentry),
      runs.map((r) => r.eventId),
      steps.map((s) => s.run_id),
      steps.map((s) => s.key),
      steps.map((s) => s.type),
      steps.map((s) => s.status),
      steps.map((s) => (s.output === null || s.output === undefined ? null : JSON.stringify(s.output))),
      steps.map((s) => s.wait_event),
      JOBS_CHANNEL,
    ],
  );
  return new Set(rows.map((r) => r.id));
}

export interface StepDone {
  run_id: string;
  key: string;
  output: unknown;
  status: 'completed' | 'skipped';
}
export interface StepNext {
  run_id: string;
  key: string;
  type: string;
  wait_event: string | null;
  status: 'pending' | 'waiting';
  output: unknown;
}

/**
 * Steps finished, one or many at once (each completed or skipped with its output; the caller holds
 * the run and step locks and checked each is open), the steps that follow them made pending with
 * their step jobs, or, for a delay, waiting with its wake-up (a step the run reached already is left
 * alone), and each run of `endIfDone` completed when no step of it is left unfinished, in one
 * statement. A wait_for_event step names its event (wait_event) from the start, so that an event
 * arriving before the step job parks it as waiting is remembered on the step (runStepRememberEvent).
 */
export async function runStepsCompleteAndAdvance(
  tx: Tx,
  done: StepDone[],
  next: StepNext[],
  endIfDone: string[],
): Promise<{ ended: string[] }> {
  if (!done.length && !next.length && !endIfDone.length) return { ended: [] };
  const { rows } = await tx.query<{ ended: string[] | null }>(
    `WITH d AS (SELECT * FROM unnest($1::uuid[], $2::text[], $3::jsonb[], $12::text[]) AS d (run_id, key, output, status)),
     done AS (
       UPDATE automation_run_steps s SET status = d.status, output = coalesce(d.output, s.output), error = NULL, wait_event = NULL,
              started_at = coalesce(s.started_at, now()), completed_at = now()
       FROM d WHERE s.run_id = ANY($1::uuid[]) AND s.run_id = d.run_id AND s.key = d.key
       RETURNING s.run_id),
     nxt AS (
       INSERT INTO automation_run_steps (run_id, key, type, wait_event, status, output, started_at)
       SELECT run_id, key, type, wait_event, status, output, CASE WHEN status = 'waiting' THEN now() END
       FROM unnest($4::uuid[], $5::text[], $6::text[], $7::text[], $10::text[], $11::jsonb[]) WITH ORDINALITY AS n (run_id, key, type, wait_event, status, output, ord)
       ORDER BY ord
       ON CONFLICT DO NOTHING RETURNING run_id, key, status, output),
     sj AS (${automationStepJobsInsertSql("(SELECT run_id, key FROM nxt WHERE status = 'pending')")}),
     wj AS (${automationWakeJobsInsertSql("(SELECT run_id, key, (output->>'until')::timestamptz AS run_at FROM nxt WHERE status = 'waiting')")}),
     ended AS (
       UPDATE automation_runs r SET status = 'completed', completed_at = now()
       WHERE r.id = ANY($8::uuid[]) AND r.status = 'running'
         AND NOT EXISTS (SELECT 1 FROM automation_run_steps s WHERE s.run_id = r.id AND s.status IN ('pending', 'running', 'waiting')
                           AND (s.run_id, s.key) NOT IN (SELECT run_id, key FROM d))
       RETURNING r.id)
     SELECT (SELECT array_agg(id) FROM ended) AS ended, (SELECT count(*) FROM done) AS done, (SELECT pg_notify($9, kind) FROM sj LIMIT 1) AS notified, (SELECT pg_notify($9, kind) FROM wj LIMIT 1) AS notified_wake`,
    [
      done.map((x) => x.run_id),
      done.map((x) => x.key),
      done.map((x) => (x.output === undefined ? null : JSON.stringify(x.output))),
      next.map((x) => x.run_id),
      next.map((x) => x.key),
      next.map((x) => x.type),
      next.map((x) => x.wait_event),
      endIfDone,
      JOBS_CHANNEL,
      next.map((x) => x.status),
      next.map((x) => (x.output === null || x.output === undefined ? null : JSON.stringify(x.output))),
      done.map((x) => x.status),
    ],
  );
  return { ended: rows[0].ended ?? [] };
}

/** The runs, row-locked in id order (the lock order everywhere: runs by id, then their steps). */
export async function automationRunsLock(
  tx: Tx,
  ids: string[],
): Promise<Pick<RunRow, 'id' | 'automation_id' | 'team_id' | 'status'>[]> {
  if (!ids.length) return [];
  const { rows } = await tx.query(
    `SELECT id, automation_id, team_id, status FROM automation_runs WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE`,
    [ids],
  );
  return rows;
}

/** The steps, row-locked in (run, key) order, after their runs. */
export async function runStepsLock(
  tx: Tx,
  keys: { run_id: string; key: string }[],
): Promise<Pick<RunStepRow, 'run_id' | 'key' | 'type' | 'status'>[]> {
  if (!keys.length) return [];
  const { rows } = await tx.query(
    `SELECT s.run_id, s.key, s.type, s.status FROM automation_run_steps s
     WHERE s.run_id = ANY($1::uuid[]) AND (s.run_id, s.key) IN (SELECT * FROM unnest($1::uuid[], $2::text[]))
     ORDER BY s.run_id, s.key FOR UPDATE OF s`,
    [keys.map((k) => k.run_id), keys.map((k) => k.key)],
  );
  return rows;
}

/** Runs whose every step has finished: completed (only running ones). Returns those completed. */
export async function automationRunsEndIfDone(tx: Tx, ids: string[]): Promise<string[]> {
  return (await runStepsCompleteAndAdvance(tx, [], [], ids)).ended;
}

export async function automationRunFind(db: Queryable, runId: string, lock = false): Promise<RunRow | undefined> {
  const { rows } = await db.query<RunRow>(
    `SELECT ${RUN_COLUMNS} FROM automation_runs WHERE id = $1${lock ? ' FOR UPDATE' : ''}`,
    [runId],
  );
  return rows[0];
}

export function automationRunList(
  db: Queryable,
  teamId: string,
  automationId: string,
  page: PageQuery,
  statuses: string[] | null,
): Promise<Page<RunRow>> {
  return paginate<RunRow>(db, {
    table: 'automation_runs',
    columns: RUN_COLUMNS,
    teamId,
    page,
    where: 'automation_id = $1 AND ($2::text[] IS NULL OR status = ANY($2::text[]))',
    params: [automationId, statuses],
  });
}

/** Ends a run; only a running one (returns whether it was). */
export async function automationRunEnd(
  db: Queryable,
  runId: string,
  status: 'completed' | 'failed' | 'cancelled',
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE automation_runs SET status = $2, completed_at = now() WHERE id = $1 AND status = 'running'`,
    [runId, status],
  );
  return Boolean(rowCount);
}

/** stop: every running run of the automation cancelled, with its unfinished steps skipped. */
export async function automationRunsCancelAll(tx: Tx, automationId: string): Promise<number> {
  const { rows } = await tx.query<{ id: string }>(
    `UPDATE automation_runs SET status = 'cancelled', completed_at = now() WHERE automation_id = $1 AND status = 'running' RETURNING id`,
    [automationId],
  );
  await tx.query(
    `UPDATE automation_run_steps SET status = 'skipped', error = '{"reason":"cancelled"}', completed_at = now()
     WHERE run_id = ANY($1::uuid[]) AND status IN ('pending', 'running', 'waiting')`,
    [rows.map((r) => r.id)],
  );
  return rows.length;
}

export interface RunStepRow {
  run_id: string;
  key: string;
  type: string;
  status: 'pending' | 'running' | 'waiting' | 'completed' | 'failed' | 'skipped';
  wait_event: string | null;
  output: Record<string, unknown> | null;
  error: Record<string, unknown> | null;
  started_at: string | null;
  completed_at: string | null;
  created_at: string;
}
const STEP_COLUMNS =
  'run_id, key, type, status, wait_event, output, error, started_at::text AS started_at, completed_at::text AS completed_at, created_at::text AS created_at';

/** A pending wait's event, kept in its output until the step job enters the wait and takes it. */
export async function runStepRememberEvent(
  tx: Tx,
  runId: string,
  key: string,
  received: Record<string, unknown>,
): Promise<void> {
  await tx.query(
    `UPDATE automation_run_steps SET output = jsonb_build_object('early_event', $3::jsonb) WHERE run_id = $1 AND key = $2 AND status IN ('pending', 'running') AND output IS NULL`,
    [runId, key, JSON.stringify(received)],
  );
}

export async function runStepFind(
  db: Queryable,
  runId: string,
  key: string,
  lock = false,
): Promise<RunStepRow | undefined> {
  const { rows } = await db.query<RunStepRow>(
    `SELECT ${STEP_COLUMNS} FROM automation_run_steps WHERE run_id = $1 AND key = $2${lock ? ' FOR UPDATE' : ''}`,
    [runId, key],
  );
  return rows[0];
}

export async function runStepsOfRun(db: Queryable, runId: string): Promise<RunStepRow[]> {
  const { rows } = await db.query<RunStepRow>(
    `SELECT ${STEP_COLUMNS} FROM automation_run_steps WHERE run_id = $1 ORDER BY created_at, key`,
    [runId],
  );
  return rows;
}

/** Sets a step's state; `started_at` is set on first leaving pending, `completed_at` on a final state. */
export async function runStepSet(
  db: Queryable,
  runId: string,
  key: string,
  s: { status: RunStepRow['status']; output?: unknown; error?: unknown; waitEvent?: string | null },
): Promise<void> {
  await db.query(
    `UPDATE automation_run_steps SET status = $3, output = coalesce($4::jsonb, output), error = $5::jsonb, wait_event = $6,
       started_at = coalesce(started_at, now()),
       completed_at = CASE WHEN $3 IN ('completed', 'failed', 'skipped') THEN now() END
     WHERE run_id = $1 AND key = $2`,
    [
      runId,
      key,
      s.status,
      s.output === undefined ? null : JSON.stringify(s.output),
      s.error === undefined ? null : JSON.stringify(s.error),
      s.waitEvent ?? null,
    ],
  );
}

/**
 * The steps of the running runs that wait for these (team, address, event) triples, no two with
 * the same team and address (waiting, or still pending/running on the way into the wait): runs
 * locked first (by id), then steps (by run, key), the order the step job (and stop) takes, so an
 * event and a wait's timeout firing at once queue behind each other instead of deadlocking. `at`
 * is the triple's index.
 */
export async function runStepsWaitingForMany(
  tx: Tx,
  keys: { team_id: string; email: string; name: string }[],
): Promise<(RunStepRow & { at: number; run: RunRow })[]> {
  if (!keys.length) return [];
  const params = [keys.map((k) => k.team_id), keys.map((k) => k.email), keys.map((k) => k.name)];
  // Candidates first, one index probe per triple (a join would hash every running run), then locked in id order.
  const { rows: candidates } = await tx.query<{ id: string }>(
    `SELECT DISTINCT x.id FROM unnest($1::uuid[], $2::text[], $3::text[]) AS k (team_id, email, name)
     CROSS JOIN LATERAL (
       SELECT r.id FROM automation_runs r
       WHERE r.team_id = k.team_id AND r.email = k.email AND r.status = 'running'
         AND EXISTS (SELECT 1 FROM automation_run_steps s WHERE s.run_id = r.id AND s.status IN ('pending', 'running', 'waiting') AND s.wait_event = k.name)
       OFFSET 0) x`,
    params,
  );
  if (!candidates.length) return [];
  const { rows: runs } = await tx.query<{ id: string }>(
    `SELECT id FROM automation_runs WHERE id = ANY($1::uuid[]) AND status = 'running' ORDER BY id FOR UPDATE`,
    [candidates.map((r) => r.id)],
  );
  if (!runs.length) return [];
  const { rows } = await tx.query(
    `SELECT s.run_id, s.key, s.type, s.status, s.output, (k.ord - 1)::int AS at, r.automation_id, r.team_id, r.contact_id, r.email, r.event
     FROM automation_run_steps s JOIN automation_runs r ON r.id = s.run_id
     JOIN unnest($1::uuid[], $2::text[], $3::text[]) WITH ORDINALITY AS k (team_id, email, name, ord) ON r.team_id = k.team_id AND r.email = k.email AND s.wait_event = k.name
     WHERE s.run_id = ANY($4::uuid[]) AND s.status IN ('pending', 'running', 'waiting') AND r.status = 'running'
     ORDER BY s.run_id, s.key FOR UPDATE OF s`,
    [...params, runs.map((r) => r.id)],
  );
  return rows.map((x: any) => ({
    ...x,
    run: {
      id: x.run_id,
      automation_id: x.automation_id,
      team_id: x.team_id,
      contact_id: x.contact_id,
      email: x.email,
      event: x.event,
    },
  }));
}
