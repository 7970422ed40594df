// Starting, advancing and resuming automation runs, always inside the caller's transaction so that
// a step's result and the job for the next step commit together (a crash loses or repeats nothing).
// Re-entry: a contact starts a new run of an automation only when its previous run of it has ended
// (the unique index automation_runs_one_running); a trigger event meanwhile starts nothing.
import { matches } from '../contacts/filter.js';
import { recordEvent } from '../contacts/service.js';
import type { CustomEventRow } from '../store/custom-events.js';
import { contactFind, contactInsert } from '../store/contacts.js';
import type { Tx } from '../store/db.js';
import { AUTOMATION_STEP_JOB, jobInsert } from '../store/jobs.js';
import {
  automationFind, automationRunEnd, automationRunInsert, automationsEnabledByTrigger, runStepInsertPending, runStepRememberEvent, runStepSet,
  runStepsUnfinished, runStepsWaitingFor, type AutomationRow, type RunRow,
} from '../store/automations.js';
import { conditionRule } from './graph.js';

export interface StepJob { run_id: string; key: string; wake?: boolean }

/** The job that runs (or, with `wake`, resumes) one step, due at `at`. */
export async function stepJobEnqueue(tx: Tx, runId: string, key: string, at?: Date, wake = false): Promise<void> {
  await jobInsert(tx, { kind: AUTOMATION_STEP_JOB, payload: { run_id: runId, key, ...(wake ? { wake: true } : {}) } satisfies StepJob, runAt: at, key: `${runId}:${key}${wake ? ':wake' : ''}` });
}

/**
 * Follows the connections of type `type` out of step `from`: each target step becomes pending with
 * its job. When nothing follows and no step is left unfinished, the run is completed.
 */
export async function runAdvance(tx: Tx, a: Pick<AutomationRow, 'steps' | 'connections'>, runId: string, from: string, type: string): Promise<void> {
  const next = a.connections.filter((c) => c.from === from && c.type === type);
  for (const c of next) {
    const step = a.steps.find((s) => s.key === c.to)!;
    const waitEvent = step.type === 'wait_for_event' ? String(step.config.event_name) : null;
    if (await runStepInsertPending(tx, runId, step.key, step.type, waitEvent)) await stepJobEnqueue(tx, runId, step.key);
  }
  if (!next.length && (await runStepsUnfinished(tx, runId)) === 0) await automationRunEnd(tx, runId, 'completed');
}

/** Flattens what a condition may name: `event.<key>` and `contact.<key>` (properties too). */
export function conditionSubject(run: Pick<RunRow, 'event'>, contact: Record<string, any> | undefined, event?: Record<string, unknown>) {
  const flat: Record<string, unknown> = { email: contact?.email ?? '' };
  for (const [k, v] of Object.entries(event ?? run.event ?? {})) flat[`event.${k}`] = v;
  if (contact) {
    for (const k of ['email', 'first_name', 'last_name', 'unsubscribed', 'created_at']) flat[`contact.${k}`] = contact[k];
    for (const [k, v] of Object.entries(contact.properties ?? {})) flat[`contact.${k}`] = v;
  }
  return flat;
}

export const ruleHolds = (raw: unknown, subject: Record<string, unknown>) => matches(conditionRule(raw, 'rule'), subject as never);

/**
 * THE automation side of POST /events/send, in the event's transaction: starts a run of every
 * enabled automation the event triggers (creating the contact from `email` when needed), then
 * resumes every run of this contact waiting for this event (whose filter, if any, the payload passes).
 */
export async function automationsOnEvent(tx: Tx, teamId: string, e: CustomEventRow): Promise<void> {
  const triggered = await automationsEnabledByTrigger(tx, teamId, e.name);
  let contactId = e.contact_id;
  if (triggered.length && !contactId) {
    const created = await contactInsert(tx, teamId, { email: e.email, first_name: null, last_name: null, unsubscribed: false, properties: {} });
    if (created) await recordEvent(tx, 'contact.created', created); // its webhook, as for any new contact
    contactId = (created ?? (await contactFind(tx, teamId, { email: e.email })))!.id;
  }
  const started = new Set<string>();
  for (const a of triggered) {
    const run = await automationRunInsert(tx, { automationId: a.id, teamId, contactId: contactId!, email: e.email, event: e.payload, reentry: a.reentry, eventId: e.id });
    if (!run) continue; // re-entry refused (a run of this contact has not ended, or `never` and one ran), or this event started it already
    started.add(run.id);
    const trigger = a.steps.find((s) => s.type === 'trigger')!;
    await runStepInsertPending(tx, run.id, trigger.key, 'trigger');
    await runStepSet(tx, run.id, trigger.key, { status: 'completed', output: { event: e.name, event_id: e.id } });
    await runAdvance(tx, a, run.id, trigger.key, 'default');
  }
  const waiting = await runStepsWaitingFor(tx, teamId, e.email, e.name);
  const cache = new Map<string, AutomationRow | undefined>();
  for (const w of waiting) {
    if (!cache.has(w.run.automation_id)) cache.set(w.run.automation_id, await automationFind(tx, teamId, w.run.automation_id));
    const a = cache.get(w.run.automation_id);
    const step = a?.steps.find((s) => s.key === w.key);
    if (!a || !step || started.has(w.run_id)) continue; // a run this event started waits for the next one
    if (step.config.filter_rule) {
      const contact = w.run.contact_id ? await contactFind(tx, teamId, { id: w.run.contact_id }) : undefined;
      if (!ruleHolds(step.config.filter_rule, conditionSubject(w.run, contact, e.payload))) continue;
    }
    const received = { event_received: e.name, event_id: e.id, payload: e.payload };
    if (w.status !== 'waiting') { // on its way into the wait: the step job takes it when it gets there
      await runStepRememberEvent(tx, w.run_id, w.key, received);
      continue;
    }
    await runWaitReceived(tx, a, w.run_id, w.key, received);
  }
}

/** A wait_for_event step completes with the event it received and follows event_received (or default). */
export async function runWaitReceived(tx: Tx, a: Pick<AutomationRow, 'steps' | 'connections'>, runId: string, key: string, received: Record<string, unknown>): Promise<void> {
  await runStepSet(tx, runId, key, { status: 'completed', output: received });
  const type = a.connections.some((c) => c.from === key && c.type === 'event_received') ? 'event_received' : 'default';
  await runAdvance(tx, a, runId, key, type);
}
