// The automations resource (resend-compat 8.3): create, read, list, change, duplicate, stop, delete,
// and the runs' history. Graphs are checked on every save (graph.ts); a disabled automation starts
// no run, and stop also cancels the running ones.
import { auditRecord, SYSTEM_ACTOR, type AuditActor } from '../audit/record.js';
import { invalidField, missingField, notFound } from '../errors.js';
import { isUuid } from '../lib/ids.js';
import {
  automationDelete,
  automationFind,
  automationInsert,
  automationList,
  automationUpdate,
  REENTRY,
  type AutomationFields,
  type AutomationRow,
  type Reentry,
} from '../store/automations.js';
import {
  automationRunFind,
  automationRunList,
  automationRunsCancelAll,
  runStepsOfRun,
  type RunRow,
} from '../store/automation-runs.js';
import { automationStepCounts } from '../store/automation-counts.js';
import { withTx, type Pool, type Queryable } from '../store/db.js';
import type { PageQuery } from '../store/paginate.js';
import { segmentFind } from '../store/segments.js';
import { templateFindPublished } from '../store/templates.js';
import { graphOf, type Graph } from './graph.js';

type Body = Record<string, unknown>;
const STATUSES = ['enabled', 'disabled'];
const RUN_STATUSES = ['running', 'completed', 'failed', 'cancelled'];

function nameOf(v: unknown): string {
  if (typeof v !== 'string' || !v.trim()) throw missingField('name');
  if (v.length > 256) throw invalidField('name', 'must be at most 256 characters.');
  return v;
}
/** A Mailroom setting (the SDK does not send it; raw HTTP and the dashboard do): see README "Re-entry". */
function reentryOf(v: unknown): Reentry {
  if (!REENTRY.includes(v as Reentry)) throw invalidField('reentry', `must be one of ${REENTRY.join(', ')}.`);
  return v as Reentry;
}
function statusOf(v: unknown): 'enabled' | 'disabled' {
  if (!STATUSES.includes(v as string)) throw invalidField('status', 'must be "enabled" or "disabled".');
  return v as 'enabled' | 'disabled';
}

async function find(db: Queryable, teamId: string, id: string, lock = false): Promise<AutomationRow> {
  const a = isUuid(id) ? await automationFind(db, teamId, id.toLowerCase(), lock) : undefined;
  if (!a) throw notFound('Automation');
  return a;
}

/** What a graph names must be the team's: a published template for each send, an existing segment. */
async function checkRefs(db: Queryable, teamId: string, g: Graph): Promise<Graph> {
  for (const [i, s] of g.steps.entries()) {
    const at = `steps[${i}] (key "${s.key}")`;
    if (s.type === 'send_email') {
      const ref: string = s.config.template.id;
      const t = await templateFindPublished(db, teamId, isUuid(ref) ? ref.toLowerCase() : ref, isUuid(ref));
      if (!t) throw invalidField(`${at}.config.template.id`, `no template has the id or alias "${ref.slice(0, 100)}".`);
      if (!t.published)
        throw invalidField(
          `${at}.config.template.id`,
          `the template "${ref.slice(0, 100)}" has not been published; publish it first.`,
        );
    }
    if (
      s.type === 'add_to_segment' &&
      !(isUuid(s.config.segment_id) && (await segmentFind(db, teamId, s.config.segment_id.toLowerCase())))
    ) {
      throw invalidField(
        `${at}.config.segment_id`,
        `no segment has the id "${String(s.config.segment_id).slice(0, 100)}".`,
      );
    }
  }
  return g;
}

const view = (a: AutomationRow) => ({
  object: 'automation' as const,
  id: a.id,
  name: a.name,
  status: a.status,
  created_at: a.created_at,
  updated_at: a.updated_at,
  reentry: a.reentry,
  steps: a.steps,
  connections: a.connections,
});

const fieldsOf = (a: AutomationRow): AutomationFields => ({
  name: a.name,
  status: a.status,
  trigger_event: a.trigger_event,
  reentry: a.reentry,
  listens: a.listens,
  waits: a.waits,
  steps: a.steps,
  connections: a.connections,
});

export async function automationCreate(pool: Pool, teamId: string, body: Body, actor: AuditActor = SYSTEM_ACTOR) {
  const g = await checkRefs(pool, teamId, graphOf(body.steps, body.connections));
  const fields = {
    name: nameOf(body.name),
    status: body.status === undefined ? 'disabled' : statusOf(body.status),
    trigger_event: g.triggerEvent,
    steps: g.steps,
    connections: g.connections,
    reentry: body.reentry === undefined || body.reentry === null ? 'after_end' : reentryOf(body.reentry),
    listens: g.listens,
    waits: g.waits,
  };
  const a = await withTx(pool, async (tx) => {
    const a = await automationInsert(tx, teamId, fields);
    if (fields.status === 'enabled') await auditStatus(tx, teamId, actor, a.id, null, fields);
    return a;
  });
  return { object: 'automation' as const, id: a.id };
}

export const automationGet = async (db: Queryable, teamId: string, id: string) => view(await find(db, teamId, id));

export async function automationsList(db: Queryable, teamId: string, page: PageQuery, status?: string) {
  if (status !== undefined) statusOf(status);
  const p = await automationList(db, teamId, page, status);
  return { object: 'list' as const, has_more: p.has_more, data: p.data };
}

/** automation.enabled | automation.stopped (a move to disabled), in the change's transaction. */
function auditStatus(
  tx: Queryable,
  teamId: string,
  actor: AuditActor,
  id: string,
  before: { name: string; status: string } | null,
  after: { name: string; status: string },
  extra: Record<string, unknown> = {},
) {
  return auditRecord(tx, teamId, actor, {
    action: after.status === 'enabled' ? 'automation.enabled' : 'automation.stopped',
    target: { kind: 'automation', id },
    before: before && { name: before.name, status: before.status },
    after: { name: after.name, status: after.status, ...extra },
  });
}

/** PATCH: name and/or status, or steps and connections together (a graph is replaced whole). */
export async function automationChange(
  pool: Pool,
  teamId: string,
  id: string,
  body: Body,
  actor: AuditActor = SYSTEM_ACTOR,
) {
  return withTx(pool, async (tx) => {
    const a = await find(tx, teamId, id, true);
    const f: AutomationFields = fieldsOf(a);
    if (body.name !== undefined) f.name = nameOf(body.name);
    if (body.reentry !== undefined) f.reentry = reentryOf(body.reentry);
    if (body.status !== undefined) f.status = statusOf(body.status);
    if ((body.steps === undefined) !== (body.connections === undefined))
      throw invalidField(
        body.steps === undefined ? 'steps' : 'connections',
        'steps and connections are replaced together; give both.',
      );
    if (body.steps !== undefined) {
      const g = await checkRefs(tx, teamId, graphOf(body.steps, body.connections));
      Object.assign(f, {
        steps: g.steps,
        connections: g.connections,
        trigger_event: g.triggerEvent,
        listens: g.listens,
        waits: g.waits,
      });
    }
    await automationUpdate(tx, teamId, a.id, f);
    if (f.status !== a.status) await auditStatus(tx, teamId, actor, a.id, a, f);
    return { object: 'automation' as const, id: a.id };
  });
}

export async function automationDuplicate(pool: Pool, teamId: string, id: string) {
  const a = await find(pool, teamId, id);
  const copy = await automationInsert(pool, teamId, {
    ...fieldsOf(a),
    name: `${a.name} (copy)`.slice(0, 256),
    status: 'disabled',
  });
  return { object: 'automation' as const, id: copy.id };
}

/** Disables the automation and cancels its running runs (their open steps are skipped, their jobs then find nothing to do). */
export async function automationStop(pool: Pool, teamId: string, id: string, actor: AuditActor = SYSTEM_ACTOR) {
  return withTx(pool, async (tx) => {
    const a = await find(tx, teamId, id, true);
    await automationUpdate(tx, teamId, a.id, { ...fieldsOf(a), status: 'disabled' });
    const canceled = await automationRunsCancelAll(tx, a.id);
    await auditStatus(tx, teamId, actor, a.id, a, { name: a.name, status: 'disabled' }, { runs_canceled: canceled });
    return { object: 'automation' as const, id: a.id, status: 'disabled' as const };
  });
}

export async function automationRemove(pool: Pool, teamId: string, id: string) {
  const a = await find(pool, teamId, id);
  await automationDelete(pool, teamId, a.id);
  return { object: 'automation' as const, id: a.id, deleted: true };
}

const runItem = (r: RunRow) => ({
  id: r.id,
  status: r.status,
  started_at: r.started_at,
  completed_at: r.completed_at,
  created_at: r.created_at,
  /** Mailroom extension, after Resend's fields: the contact's address (kept when the contact is deleted) */
  email: r.email,
});

export async function automationRuns(db: Queryable, teamId: string, id: string, page: PageQuery, status?: string) {
  const a = await find(db, teamId, id);
  const statuses = status ? status.split(',').map((s) => s.trim()) : null;
  for (const s of statuses ?? [])
    if (!RUN_STATUSES.includes(s)) throw invalidField('status', `must be among ${RUN_STATUSES.join(', ')}.`);
  const p = await automationRunList(db, teamId, a.id, page, statuses);
  return { object: 'list' as const, has_more: p.has_more, data: p.data.map(runItem) };
}

export async function automationRunGet(db: Queryable, teamId: string, id: string, runId: string) {
  const a = await find(db, teamId, id);
  const r = isUuid(runId) ? await automationRunFind(db, runId.toLowerCase()) : undefined;
  if (!r || r.automation_id !== a.id) throw notFound('Automation run');
  const steps = await runStepsOfRun(db, r.id);
  return {
    object: 'automation_run' as const,
    ...runItem(r),
    contact_id: r.contact_id,
    steps: steps.map((s) => ({
      key: s.key,
      type: s.type,
      status: s.status,
      output: s.output,
      error: s.error,
      started_at: s.started_at,
      completed_at: s.completed_at,
      created_at: s.created_at,
    })),
  };
}

/**
 * Mailroom extension (GET /automations/:id/counts): per step of the saved graph, the runs that
 * reached it, wait at it now, exited (ended) there and failed there, and for each send_email step
 * the emails it produced with how many were delivered, opened and clicked (ever). Steps no run
 * reached yet count zeros. See automationStepCounts for the cost.
 */
export async function automationCounts(pool: Pool, teamId: string, id: string) {
  const a = await find(pool, teamId, id);
  const { steps, emails } = await automationStepCounts(pool, a.id, a.connections);
  const byKey = new Map(steps.map((s) => [s.key, s]));
  const mail = new Map(emails.map((e) => [e.key, e]));
  return {
    object: 'automation_counts' as const,
    id: a.id,
    steps: a.steps.map((s) => {
      const c = byKey.get(s.key);
      const m = mail.get(s.key);
      return {
        key: s.key,
        type: s.type,
        reached: c?.reached ?? 0,
        waiting: c?.waiting ?? 0,
        exited: c?.exited ?? 0,
        failed: c?.failed ?? 0,
        ...(s.type === 'send_email'
          ? {
              emails: {
                sent: m?.emails ?? 0,
                delivered: m?.delivered ?? 0,
                opened: m?.opened ?? 0,
                clicked: m?.clicked ?? 0,
              },
            }
          : {}),
      };
    }),
  };
}
