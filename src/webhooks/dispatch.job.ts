// Fan-out: new email events become one webhook message per subscribed, enabled endpoint, and
// those endpoints' delivery jobs are woken, in the transaction that moves the outbox cursor. The
// job is started by the trigger on email_events (webhooks_wake_dispatcher, migration 0005); while
// events flow it keeps itself scheduled (so the trigger's insert stays a no-op). After an empty
// pass it gives its key up and ends only once every transaction that may have seen the key (and
// so enqueued nothing) has ended.
import { randomUUID } from 'node:crypto';
import type { Job, JobContext, JobOutcome } from '../queue/worker.js';
import { withTx, type Pool } from '../store/db.js';
import { jobReleaseKey, webhookDispatchJobHorizonSave } from '../store/jobs.js';
import {
  webhookDispatchFinishState,
  webhookMessagesInsertDispatched,
  webhookOutboxHasWaiting,
  webhookOutboxReadEmailEvents,
  type NewMessage,
} from '../store/webhook-outbox.js';
import { webhooksEnabledForTeams, type EndpointSubscription } from '../store/webhooks.js';

const PASS_LIMIT = 2_000; // events per transaction
const MAX_PASSES = 25; // per run, so that a backlog does not hold a worker slot for long

// Recorded for the email's timeline (GET /emails/:id/events) but not webhook events.
const INTERNAL_TYPES = new Set([
  'email.delivery_attempt',
  'email.canceled',
  'email.auto_replied',
  'email.report_ignored',
]);

// Random, 128 bits; from randomUUID, whose entropy Node draws in bulk (a randomBytes call per id cost 2% CPU at 2,000 deliveries/s).
export const newMessageId = (): string => `msg_${randomUUID().replace(/-/g, '')}`;

/** One transaction: read the next events, insert their messages, wake endpoints, move the cursor. */
export async function dispatchPass(pool: Pool): Promise<number> {
  return withTx(pool, async (tx) => {
    const events = await webhookOutboxReadEmailEvents(tx, PASS_LIMIT);
    if (!events.length) return 0;
    const relevant = events.filter((e) => !INTERNAL_TYPES.has(e.type));
    const endpoints = await webhooksEnabledForTeams(tx, [...new Set(relevant.map((e) => e.team_id))]);
    const byTeam = new Map<string, EndpointSubscription[]>();
    for (const w of endpoints) byTeam.set(w.team_id, [...(byTeam.get(w.team_id) ?? []), w]);
    const messages: NewMessage[] = [];
    for (const e of relevant) {
      for (const w of byTeam.get(e.team_id) ?? []) {
        // An endpoint hears of what happens after it was created, never of older events.
        if (!w.events.includes(e.type) || e.created_at < w.created_at) continue;
        messages.push({
          id: newMessageId(),
          webhook_id: w.id,
          team_id: e.team_id,
          event_id: e.id,
          event_seq: e.seq,
          type: e.type,
          created_at: e.created_at,
        });
      }
    }
    const last = events[events.length - 1];
    await webhookMessagesInsertDispatched(tx, messages, { txid: last.txid, seq: last.seq });
    return events.length;
  });
}

/** Passes until caught up. Returns how many events were read. */
export async function dispatchAll(pool: Pool): Promise<number> {
  let total = 0;
  for (let i = 0; i < MAX_PASSES; i++) {
    const n = await dispatchPass(pool);
    total += n;
    if (n < PASS_LIMIT) break;
  }
  return total;
}

const soon = (ms: number): JobOutcome => ({ retryAt: new Date(Date.now() + ms) });

export function webhookDispatchJob(deps: { pool: Pool }) {
  return async (job: Job<{ horizon?: string }>, ctx: JobContext): Promise<void | JobOutcome> => {
    const { pool } = deps;
    if ((await dispatchAll(pool)) > 0) return soon(10);
    if (job.key !== null) {
      await jobReleaseKey(pool, job.id, ctx.workerId);
      await webhookDispatchJobHorizonSave(pool, job.id, ctx.workerId);
      return soon(10);
    }
    if (!job.payload.horizon) return; // a keyless job this code did not leave: nothing to finish
    const { newer, passed } = await webhookDispatchFinishState(pool, job.payload.horizon);
    if (newer) return; // a later dispatcher holds the key and will wait at least as long
    if (!passed) return soon(50);
    if ((await dispatchAll(pool)) > 0) return soon(10);
    // Committed events behind a transaction still running: look again shortly.
    if (await webhookOutboxHasWaiting(pool)) return soon(100);
  };
}
