// The `automations.step` job: runs one step of one run, then commits the step's result with the
// jobs of the steps that follow (run.ts). `delay` and `wait_for_event` park the step as `waiting`
// with a wake-up job due later (run_at), never a sleep. `send_email` is sent exactly once: the
// email (its id derived from run id + step key) and the step's completion commit in one
// transaction that first re-reads the step under a row lock; a re-run finds it completed.
import { createHash } from 'node:crypto';
import { AppError } from '../errors.js';
import { parseAddress, parseAddressList } from '../mime/addresses.js';
import type { EmailSender, SendContext, TemplateRender } from '../emails/send.js';
import type { Logger } from '../lib/log.js';
import type { Job, JobOutcome } from '../queue/worker.js';
import { guardHoldUntil } from '../emails/send-guard.js';
import { contactRemove, contactSegmentJoin, contactUpdateFields } from '../contacts/service.js';
import { automationFind, type AutomationRow } from '../store/automations.js';
import {
  automationRunEnd,
  automationRunFind,
  runStepFind,
  runStepSet,
  type RunRow,
  type RunStepRow,
} from '../store/automation-runs.js';
import { contactFind, type ContactRow } from '../store/contacts.js';
import { withTx, type Pool, type Tx } from '../store/db.js';
import { suppressionsFind } from '../store/suppressions.js';
import { durationMs, type Step } from './graph.js';
import { wakeUpMany } from './wake.job.js';
import {
  conditionSubject,
  receivedType,
  ruleHolds,
  runsCompleteAndAdvance,
  stepJobEnqueue,
  type StepJob,
} from './run.js';

export interface StepDeps {
  pool: Pool;
  sender: EmailSender;
  templates: TemplateRender;
  log: Logger;
}
const FINAL = new Set(['completed', 'failed', 'skipped']);

/** The email id of a run's send_email step: the same on every attempt (a UUID shape from a hash). */
export function automationEmailId(runId: string, key: string): string {
  const h = createHash('sha256').update(`automation-email:${runId}:${key}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${((parseInt(h[16], 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Runs `fn` under the run's and the step's row locks, only while the run runs and the step is open. */
async function locked(
  pool: Pool,
  runId: string,
  key: string,
  fn: (tx: Tx, status: string, step: RunStepRow) => Promise<void>,
): Promise<void> {
  await withTx(pool, async (tx) => {
    const run = await automationRunFind(tx, runId, true);
    const s = await runStepFind(tx, runId, key, true);
    if (!run || run.status !== 'running' || !s || FINAL.has(s.status)) return;
    await fn(tx, s.status, s);
  });
}

/** A `{var: "event.x" | "contact.x"}` or a literal, resolved for this run. */
function resolve(v: unknown, run: RunRow, contact: ContactRow | undefined): unknown {
  if (typeof v !== 'object' || v === null || !('var' in v)) return v;
  return conditionSubject(run, contact as never)[(v as { var: string }).var] ?? null;
}

async function sendEmail(
  deps: StepDeps,
  a: AutomationRow,
  run: RunRow,
  step: Step,
  contact: ContactRow | undefined,
): Promise<void> {
  const skip = (reason: string) =>
    locked(deps.pool, run.id, step.key, async (tx) => {
      await runsCompleteAndAdvance(tx, [
        { a, runId: run.id, key: step.key, status: 'skipped', output: { reason }, type: 'default' },
      ]);
    });
  if (!contact) return skip('contact_deleted');
  if (contact.unsubscribed) return skip('unsubscribed');
  if ((await suppressionsFind(deps.pool, run.team_id, [contact.email.toLowerCase()])).size) return skip('suppressed');
  const c = step.config;
  const variables: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(c.template.variables ?? {})) variables[k] = resolve(v, run, contact) ?? '';
  const t = await deps.templates(run.team_id, c.template.id, variables);
  const from = c.from ?? t.from;
  if (!from)
    throw new AppError('validation_error', 'Invalid `from` field: neither the step nor the template gives a sender.');
  const replyTo = c.reply_to ?? t.replyTo;
  const id = automationEmailId(run.id, step.key);
  const fromAddr = parseAddress(from, 'from');
  const ctx: SendContext = { teamId: run.team_id, apiKeyId: null, keyDomainId: null, source: 'automation' };
  const email = await deps.sender.prepareValidated(
    ctx,
    {
      from: fromAddr,
      to: [parseAddress(contact.email)],
      cc: [],
      bcc: [],
      replyTo: replyTo ? parseAddressList(replyTo, 'reply_to') : [],
      subject: (c.subject ?? t.subject ?? '').replace(/[\r\n]+/g, ' '),
      html: t.html,
      ...(t.text !== null ? { text: t.text } : {}),
      headers: { 'Feedback-ID': `${a.id}:${run.team_id}:automation:mailroom` },
      attachments: [],
      tags: [],
      ...(c.topic_id ? { topicId: c.topic_id } : {}),
    },
    new Date(),
    undefined,
    { id, listId: `<${a.id.replace(/-/g, '')}.${fromAddr.domain}>`, automationId: a.id },
  );
  await locked(deps.pool, run.id, step.key, async (tx) => {
    await deps.sender.commitIn(tx, [email]);
    await runsCompleteAndAdvance(tx, [{ a, runId: run.id, key: step.key, output: { email_id: id }, type: 'default' }]);
  });
}

/** Steps that act on the contact through the contacts module, then complete. */
async function contactStep(deps: StepDeps, run: RunRow, step: Step, contact: ContactRow | undefined): Promise<unknown> {
  if (!contact) return { reason: 'contact_deleted' };
  const c = step.config;
  if (step.type === 'contact_delete') {
    await contactRemove(deps.pool, run.team_id, contact.id);
    return { deleted: true };
  }
  if (step.type === 'add_to_segment') {
    await contactSegmentJoin(deps.pool, run.team_id, contact.id, c.segment_id);
    return { segment_id: c.segment_id };
  }
  const body: Record<string, unknown> = {};
  for (const f of ['first_name', 'last_name', 'unsubscribed'] as const)
    if (c[f] !== undefined) body[f] = resolve(c[f], run, contact);
  if (c.properties)
    body.properties = Object.fromEntries(Object.entries(c.properties).map(([k, v]) => [k, resolve(v, run, contact)]));
  await contactUpdateFields(deps.pool, run.team_id, contact.id, body);
  return { updated: Object.keys(body) };
}

async function runStep(deps: StepDeps, job: Job<StepJob>): Promise<void> {
  const { run_id: runId, key, wake } = job.payload;
  if (wake) return wakeUpMany(deps.pool, [{ run_id: runId, key }]); // a wake-up queued as automations.step by an earlier version
  const run = await automationRunFind(deps.pool, runId);
  if (!run || run.status !== 'running') return;
  const a = await automationFind(deps.pool, run.team_id, run.automation_id);
  const step = a?.steps.find((s) => s.key === key) as Step | undefined;
  const rs = await runStepFind(deps.pool, runId, key);
  if (!rs || FINAL.has(rs.status)) return;
  if (!a || !step) {
    await withTx(deps.pool, async (tx) => {
      await runStepSet(tx, runId, key, {
        status: 'failed',
        error: { message: 'the automation or step no longer exists' },
      });
      await automationRunEnd(tx, runId, 'failed');
    });
    return;
  }
  if (rs.status === 'waiting') return;
  const contact = run.contact_id ? await contactFind(deps.pool, run.team_id, { id: run.contact_id }) : undefined;
  if (step.type === 'send_email' || step.type.startsWith('contact_') || step.type === 'add_to_segment') {
    // Steps with side effects show `running` while they act (and while a failing one is retried).
    await locked(deps.pool, runId, key, async (tx, status) => {
      if (status === 'pending') await runStepSet(tx, runId, key, { status: 'running' });
    });
  }
  switch (step.type) {
    case 'send_email':
      return sendEmail(deps, a, run, step, contact);
    case 'delay':
    case 'wait_for_event': {
      const ms =
        step.type === 'delay'
          ? durationMs(step.config.duration, 'duration')
          : step.config.timeout
            ? durationMs(step.config.timeout, 'timeout')
            : 0;
      return locked(deps.pool, runId, key, async (tx, _status, s) => {
        // An event that came while the run was on its way here (remembered on the step) ends the wait at once.
        const early =
          step.type === 'wait_for_event'
            ? (s.output as { early_event?: Record<string, unknown> } | null)?.early_event
            : undefined;
        if (early) return runsCompleteAndAdvance(tx, [{ a, runId, key, output: early, type: receivedType(a, key) }]);
        const until = ms ? new Date(Date.now() + ms) : null;
        await runStepSet(tx, runId, key, {
          status: 'waiting',
          output: { until },
          waitEvent: step.type === 'wait_for_event' ? step.config.event_name : null,
        });
        if (until) await stepJobEnqueue(tx, runId, key, until, true);
      });
    }
    case 'condition': {
      const met = ruleHolds(step.config, conditionSubject(run, contact as never));
      return locked(deps.pool, runId, key, async (tx) => {
        await runsCompleteAndAdvance(tx, [
          { a, runId, key, output: { result: met }, type: met ? 'condition_met' : 'condition_not_met' },
        ]);
      });
    }
    default: {
      const output = await contactStep(deps, run, step, contact);
      return locked(deps.pool, runId, key, async (tx) => {
        await runsCompleteAndAdvance(tx, [
          { a, runId, key, status: contact ? 'completed' : 'skipped', output, type: 'default' },
        ]);
      });
    }
  }
}

const MAX_ATTEMPTS = 5;

/** The handler: an AppError (no retry can fix it) or the last attempt fails the step and the run, visibly. */
export function automationStepJob(deps: StepDeps) {
  return async (job: Job<StepJob>): Promise<void | JobOutcome> => {
    try {
      await runStep(deps, job);
    } catch (err) {
      // The reputation guard paused the sending domain: the step waits (not counted as an attempt) until a person resumes it.
      const held = guardHoldUntil(err);
      if (held) return { retryAt: held };
      const last = err instanceof AppError || job.attempt >= (job.maxAttempts ?? MAX_ATTEMPTS);
      if (!last) throw err;
      deps.log.warn('automation step failed', {
        run_id: job.payload.run_id,
        key: job.payload.key,
        err: (err as Error).message,
      });
      await locked(deps.pool, job.payload.run_id, job.payload.key, async (tx) => {
        await runStepSet(tx, job.payload.run_id, job.payload.key, {
          status: 'failed',
          error: { message: (err as Error).message },
        });
        await automationRunEnd(tx, job.payload.run_id, 'failed');
      });
    }
  };
}
