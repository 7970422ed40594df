// Starting, advancing and resuming automation runs, always inside the caller's transaction so that
// a step's result and the job for the next step commit together (a crash loses or repeats nothing).
// One way in each, set-based: automationsOnEvents (events) and runsCompleteAndAdvance (steps); a
// single event or step is a list of one. Re-entry: a contact starts a new run of an automation only
// when its previous run of it has ended (the unique index automation_runs_one_running).
import { matches } from '../contacts/filter.js';
import { recordCreatedMany } from '../contacts/service.js';
import { uuid } from '../lib/ids.js';
import type { CustomEventRow } from '../store/custom-events.js';
import { contactIdsByEmail, contactsByIds, contactsInsertBare, type ContactRow } from '../store/contacts.js';
import type { Tx } from '../store/db.js';
import { AUTOMATION_STEP_JOB, AUTOMATION_WAKE_JOB, jobInsert } from '../store/jobs.js';
import { automationsByIds, automationsEnabledByTriggers, type AutomationRow } from '../store/automations.js';
import {
  automationRunsEndIfDone,
  automationRunsStart,
  runStepRememberEvent,
  runStepsCompleteAndAdvance,
  runStepsWaitingForMany,
  type RunRow,
  type RunStart,
  type RunStepNew,
  type StepDone,
  type StepNext,
} from '../store/automation-runs.js';
import { conditionRule, durationMs } from './graph.js';

/** When a delay step reached now is due. */
export const delayUntil = (step: { config: Record<string, any> }) =>
  new Date(Date.now() + durationMs(step.config.duration, 'duration'));

export interface StepJob {
  run_id: string;
  key: string;
  wake?: boolean;
}

/** The job that runs one step, or, with `wake`, the wake-up (automations.wake) that resumes it at `at`. */
export async function stepJobEnqueue(tx: Tx, runId: string, key: string, at?: Date, wake = false): Promise<void> {
  await jobInsert(tx, {
    kind: wake ? AUTOMATION_WAKE_JOB : AUTOMATION_STEP_JOB,
    payload: { run_id: runId, key, ...(wake ? { wake: true } : {}) } satisfies StepJob,
    runAt: at,
    key: `${runId}:${key}${wake ? ':wake' : ''}`,
  });
}

/** Flattens what a condition may name: `event.<key>` and `contact.<key>` (properties too). */
export function conditionSubject(
  run: Pick<RunRow, 'event'>,
  contact: Record<string, any> | undefined,
  event?: Record<string, unknown>,
) {
  const flat: Record<string, unknown> = { email: contact?.email ?? '' };
  for (const [k, v] of Object.entries(event ?? run.event ?? {})) flat[`event.${k}`] = v;
  if (contact) {
    for (const k of ['email', 'first_name', 'last_name', 'unsubscribed', 'created_at'])
      flat[`contact.${k}`] = contact[k];
    for (const [k, v] of Object.entries(contact.properties ?? {})) flat[`contact.${k}`] = v;
  }
  return flat;
}

export const ruleHolds = (raw: unknown, subject: Record<string, unknown>) =>
  matches(conditionRule(raw, 'rule'), subject as never);

type Graph = Pick<AutomationRow, 'steps' | 'connections'>;

/**
 * The steps that follow `from` through connections of `type`: pending (with their step jobs), or a
 * delay waiting at once until its time (with its wake-up: what its step job would do, one job fewer).
 */
function following(a: Graph, runId: string, from: string, type: string): StepNext[] {
  return a.connections
    .filter((c) => c.from === from && c.type === type)
    .map((c) => {
      const step = a.steps.find((s) => s.key === c.to)!;
      const base = {
        run_id: runId,
        key: step.key,
        type: step.type,
        wait_event: step.type === 'wait_for_event' ? String(step.config.event_name) : null,
      };
      return step.type === 'delay'
        ? { ...base, status: 'waiting' as const, output: { until: delayUntil(step) } }
        : { ...base, status: 'pending' as const, output: null };
    });
}

/** What finishes one open step of a locked run (completed unless `status` says skipped), and the connection type its run follows from it. */
export interface Completion {
  a: Graph;
  runId: string;
  key: string;
  output: unknown;
  type: string;
  status?: 'completed' | 'skipped';
}

/**
 * THE way a step finishes and its run moves on, for one step (a step job) or many (a batch of
 * wake-ups, a wave of events), in one statement: each step completed (or skipped) with its output,
 * the steps that follow made pending with their jobs (a step the run reached already is left
 * alone), and each run left with nothing to do completed. The caller holds the runs' and steps'
 * locks and checked every step is open.
 */
export async function runsCompleteAndAdvance(tx: Tx, items: Completion[]): Promise<void> {
  if (!items.length) return;
  const done: StepDone[] = [];
  const next: StepNext[] = [];
  const moving = new Set<string>();
  for (const it of items) {
    done.push({ run_id: it.runId, key: it.key, output: it.output, status: it.status ?? 'completed' });
    const n = following(it.a, it.runId, it.key, it.type);
    if (n.length) moving.add(it.runId);
    next.push(...n);
  }
  const endIfDone = [...new Set(items.map((it) => it.runId))].filter((id) => !moving.has(id));
  await runStepsCompleteAndAdvance(tx, done, next, endIfDone);
}

/** A wait_for_event step's connection when its event came: event_received, or default. */
export const receivedType = (a: Graph, key: string) =>
  a.connections.some((c) => c.from === key && c.type === 'event_received') ? 'event_received' : 'default';

export type QueuedEvent = CustomEventRow & { team_id: string };

/**
 * THE automation side of recorded events (POST /events/send, system events), one or many, in the
 * caller's transaction: starts a run of every enabled automation an event triggers (creating the
 * contact from its address when needed) and resumes the runs of its address waiting for it (whose
 * filter, if any, its payload passes); a few statements per wave (one at a time took ~11 per event).
 * A wave holds at most one event per (team, address), the first wave the first event of each, the
 * second the second, and so on: the events of one address (which is all that starts, refuses or
 * resumes its runs) take effect in the order they were recorded, as one at a time, while the waves'
 * other events are independent of them. Throws on anything unexpected (the event job then retries
 * the events one at a time, a list of one each).
 */
export async function automationsOnEvents(tx: Tx, events: QueuedEvent[]): Promise<void> {
  if (!events.length) return;
  const k2 = (a: string, b: string) => `${a}\u0000${b}`;
  const pairs = new Map<string, { team_id: string; name: string }>();
  for (const e of events) pairs.set(k2(e.team_id, e.name), { team_id: e.team_id, name: e.name });
  const byTrigger = new Map<string, AutomationRow[]>();
  const automations = new Map<string, AutomationRow | undefined>();
  for (const a of await automationsEnabledByTriggers(tx, [...pairs.values()])) {
    const k = k2(a.team_id, a.trigger_event);
    byTrigger.set(k, [...(byTrigger.get(k) ?? []), a]);
    automations.set(a.id, a);
  }
  const waves: QueuedEvent[][] = [];
  const seen = new Map<string, number>();
  for (const e of events) {
    const k = k2(e.team_id, e.email);
    const n = seen.get(k) ?? 0;
    seen.set(k, n + 1);
    (waves[n] ??= []).push(e);
  }
  for (const wave of waves) await onWave(tx, wave, (e) => byTrigger.get(k2(e.team_id, e.name)) ?? [], automations);
}

async function onWave(
  tx: Tx,
  wave: QueuedEvent[],
  triggeredBy: (e: QueuedEvent) => AutomationRow[],
  automations: Map<string, AutomationRow | undefined>,
): Promise<void> {
  // The contacts the runs need: created from the address (with their contact.created events) or found.
  const contactOf = new Map<QueuedEvent, string>();
  const need = wave.filter((e) => triggeredBy(e).length && !e.contact_id);
  if (need.length) {
    const key = (team: string, email: string) => `${team}\u0000${email}`;
    const ids = new Map<string, string>();
    const created = await contactsInsertBare(
      tx,
      need.map((e) => ({ team_id: e.team_id, email: e.email })),
    );
    if (created.length) await recordCreatedMany(tx, created); // their webhooks, as for any new contact
    for (const c of created) ids.set(key(c.team_id, c.email), c.id);
    const rest = need.filter((e) => !ids.has(key(e.team_id, e.email)));
    for (const c of await contactIdsByEmail(
      tx,
      rest.map((e) => ({ team_id: e.team_id, email: e.email })),
    ))
      ids.set(key(c.team_id, c.email), c.id);
    for (const e of need) {
      const id = ids.get(key(e.team_id, e.email));
      if (!id) throw new Error(`the contact ${e.email} could neither be created nor found`);
      contactOf.set(e, id);
    }
  }
  // The runs the events start (re-entry decided by the statement), with their trigger and next steps.
  const runs: RunStart[] = [];
  const steps: RunStepNew[] = [];
  const ends = new Set<string>();
  for (const e of wave) {
    for (const a of triggeredBy(e)) {
      const id = uuid();
      runs.push({
        id,
        automationId: a.id,
        teamId: e.team_id,
        contactId: (e.contact_id ?? contactOf.get(e))!,
        email: e.email,
        event: e.payload,
        reentry: a.reentry,
        eventId: e.id,
      });
      const trigger = a.steps.find((s) => s.type === 'trigger')!;
      steps.push({
        run_id: id,
        key: trigger.key,
        type: 'trigger',
        status: 'completed',
        output: { event: e.name, event_id: e.id },
        wait_event: null,
      });
      const next = following(a, id, trigger.key, 'default');
      steps.push(...next);
      if (!next.length) ends.add(id);
    }
  }
  const started = await automationRunsStart(tx, runs, steps);
  const ending = [...ends].filter((id) => started.has(id));
  if (ending.length) await automationRunsEndIfDone(tx, ending);
  // The runs of the wave's addresses that wait for its events (one query; usually none).
  const waiting = await runStepsWaitingForMany(
    tx,
    wave.map((e) => ({ team_id: e.team_id, email: e.email, name: e.name })),
  );
  if (!waiting.length) return;
  const unknown = [...new Set(waiting.map((w) => w.run.automation_id))].filter((id) => !automations.has(id));
  for (const id of unknown) automations.set(id, undefined);
  for (const a of await automationsByIds(tx, unknown)) automations.set(a.id, a);
  const stepOf = (w: (typeof waiting)[number]) =>
    automations.get(w.run.automation_id)?.steps.find((s) => s.key === w.key);
  const contactIds = [
    ...new Set(waiting.filter((w) => stepOf(w)?.config.filter_rule && w.run.contact_id).map((w) => w.run.contact_id!)),
  ];
  const contacts = new Map<string, ContactRow>((await contactsByIds(tx, contactIds)).map((c) => [c.id, c]));
  const resumed: Completion[] = [];
  for (const w of waiting) {
    const e = wave[w.at];
    const a = automations.get(w.run.automation_id);
    const step = stepOf(w);
    if (!a || !step || a.team_id !== e.team_id || started.has(w.run_id)) continue; // a run this event started waits for the next one
    if (step.config.filter_rule) {
      const contact = w.run.contact_id ? contacts.get(w.run.contact_id) : undefined;
      if (!ruleHolds(step.config.filter_rule, conditionSubject(w.run, contact, e.payload))) continue;
    }
    const received = { event_received: e.name, event_id: e.id, payload: e.payload };
    if (w.status !== 'waiting') {
      // on its way into the wait: the step job takes it when it gets there
      await runStepRememberEvent(tx, w.run_id, w.key, received);
      continue;
    }
    resumed.push({ a, runId: w.run_id, key: w.key, output: received, type: receivedType(a, w.key) });
  }
  await runsCompleteAndAdvance(tx, resumed);
}
