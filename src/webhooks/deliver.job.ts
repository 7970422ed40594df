// Delivery to one endpoint (job key = endpoint id, so one run per endpoint at a time, and a slow
// endpoint only ever holds its own job): read due messages in batches, POST them with up to
// MAILROOM_WEBHOOK_CONCURRENCY in flight, record the batch in one statement, repeat for a time
// slice (a busy endpoint's run waiting briefly for more once all due are sent), then finish: give
// the job's key up (later wake-ups make a new job), look once more, and leave a job for the next
// retry if one waits. 410 or 5 days without a success disable it.
// The job's lease is the only lease: a read writes nothing (it was a per-message lease, an update
// of every message before its request, ~40% of the webhooks' PostgreSQL time). A run that dies
// mid-request leaves its messages due; the process that takes the job sends them again (at least
// once, the same msg_ id, as Standard Webhooks receivers expect).
import { randomUUID } from 'node:crypto';
import type { Config } from '../config/schema.js';
import type { Sealer } from '../lib/crypto.js';
import type { Logger } from '../lib/log.js';
import type { Job, JobContext, JobOutcome } from '../queue/worker.js';
import type { Pool } from '../store/db.js';
import { jobReleaseKey } from '../store/jobs.js';
import {
  webhookAttemptsRecord,
  webhookMessagesFailOutstanding,
  webhookMessagesNextDue,
  webhookMessagesReadDue,
  type AttemptRecord,
  type DueKey,
  type DueMessage,
} from '../store/webhook-messages.js';
import { webhookEndpointsWake } from '../store/webhook-outbox.js';
import { webhookFindForDelivery, type WebhookRow } from '../store/webhooks.js';
import type { PostResult, WebhookHttp } from './http-post.js';
import { envelopeBodyFromJson } from './payload.js';
import { nextAttemptDelayMs, parseRetryAfter } from './retry.js';
import { secretKeyBytes, signedHeaders } from './signature.js';
import { counters } from '../lib/metrics.js';
import { sleep } from '../lib/time.js';

export interface DeliverDeps {
  pool: Pool;
  config: Config;
  sealer: Sealer;
  http: WebhookHttp;
  log: Logger;
}

const SLICE_MS = 5_000; // then the job goes to the back of the queue: endpoints take turns
// A busy endpoint's run waits this long for more messages once it has sent all that were due,
// instead of ending (see `linger` below); busy = its last batch held at least LINGER_MIN_BATCH.
const LINGER_MS = 50;
const LINGER_MIN_BATCH = 4;
export const DISABLE_AFTER_MS = 5 * 24 * 3_600_000;

/** The secrets that sign now: the current one, and the previous one during a rotation's overlap. */
export function signingKeys(w: WebhookRow, sealer: Sealer, now = Date.now()): Buffer[] {
  const keys = [secretKeyBytes(sealer.open(w.secret_sealed))];
  if (w.previous_secret_sealed && w.previous_secret_until && w.previous_secret_until.getTime() > now)
    keys.push(secretKeyBytes(sealer.open(w.previous_secret_sealed)));
  return keys;
}

/**
 * `fn` over `items` with at most `limit` in flight, in order of start; `allStarted` runs once the
 * last one has started. Once `stop()` is true no further item starts (its result stays undefined).
 */
async function mapLimit<T, R>(
  items: T[],
  limit: number,
  fn: (t: T) => Promise<R>,
  allStarted?: () => void,
  stop?: () => boolean,
): Promise<(R | undefined)[]> {
  const out: (R | undefined)[] = new Array(items.length).fill(undefined);
  let next = 0;
  const lane = async () => {
    while (next < items.length && !stop?.()) {
      const i = next++;
      if (next === items.length) allStarted?.();
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return out;
}

/** The record of one attempt (each object written out in full: see `attemptRecord`). */
interface Attempted {
  record: AttemptRecord;
  gone: boolean; // a 410: the endpoint asked to be disabled
}

/**
 * One attempt's record as one object literal. Not `{ ...base, more }`: on Node 20 (V8 11.3) every
 * property a literal adds after a spread is a runtime call that leaves a new hidden class in old
 * space (~1 µs each here, and a full collection every ~10,000 objects), 14 of them per attempt.
 */
function attemptRecord(
  m: DueMessage,
  endpoint: string,
  sentAt: Date,
  status: AttemptRecord['status'],
  next: string | null,
  headers: Record<string, string>,
  body: string,
  r: PostResult,
): AttemptRecord {
  return {
    message_id: m.id,
    attempt_id: `atmpt_${randomUUID().replace(/-/g, '')}`,
    status,
    next_attempt_at: next,
    sent_at: sentAt.toISOString(),
    endpoint,
    request_headers: headers,
    request_body: body,
    response_status: r.status,
    response_body: r.body,
    duration_ms: r.durationMs,
    error_type: r.error?.type ?? null,
    error_message: r.error?.message ?? null,
  };
}

const EVENT_GONE: PostResult = {
  status: null,
  body: null,
  durationMs: 0,
  error: { type: 'network', message: 'the event no longer exists' },
};

async function attempt(deps: DeliverDeps, w: WebhookRow, keys: Buffer[], m: DueMessage): Promise<Attempted> {
  const sentAt = new Date();
  if (!m.data_json || !m.event_created_at)
    return { record: attemptRecord(m, w.endpoint, sentAt, 'failed', null, {}, '', EVENT_GONE), gone: false };
  const body = envelopeBodyFromJson(m.event_id, m.type, m.event_created_at, m.data_json);
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'Mailroom-Webhooks/1.0',
    ...signedHeaders(keys, m.id, body, sentAt.getTime()), // the spread last, no property after it: fast
  };
  const r = await deps.http.post(w.id, w.endpoint, headers, body);
  const ok = r.status !== null && r.status >= 200 && r.status < 300;
  counters.webhookAttempts.inc({ result: ok ? 'success' : 'failure' });
  const gone = r.status === 410;
  let status: AttemptRecord['status'] = 'success';
  let next: string | null = null;
  if (!ok) {
    const retryAfter = r.status === 429 || r.status === 503 ? parseRetryAfter(r.retryAfter) : undefined;
    const delay = gone ? null : nextAttemptDelayMs(deps.config.webhookRetrySchedule, m.attempts, retryAfter);
    status = delay === null ? 'failed' : 'attempting';
    if (delay !== null) next = new Date(Date.now() + delay).toISOString();
  }
  return { record: attemptRecord(m, w.endpoint, sentAt, status, next, headers, body, r), gone };
}

export function webhookDeliverJob(deps: DeliverDeps) {
  const concurrency = deps.config.webhookConcurrency;
  // Batches start at 4 rounds of requests and double (up to 32 rounds) while every request of
  // the last one succeeded: an endpoint that keeps up costs fewer read and record statements per
  // delivery (each is a round trip and a commit); one that fails goes back to small batches.
  const minBatch = concurrency * 4;
  const maxBatch = concurrency * 32;
  // No request of a batch starts later than `startBudgetMs` after its read (the rest waits for the
  // next read), so a batch, however large, ends within budget + one timeout.
  const startBudgetMs = deps.config.webhookTimeoutMs * 4;
  return async (job: Job<{ webhook_id: string }>, ctx: JobContext): Promise<void | JobOutcome> => {
    const w = await webhookFindForDelivery(deps.pool, job.payload.webhook_id);
    if (!w) return;
    // Ending: give the key up first. It waits for a fan-out transaction that woke this running job
    // (WAKE_ENDPOINTS row-locks it), so its messages are seen below; later ones make a new job.
    const finish = async (disabled: boolean): Promise<void> => {
      if (job.key !== null) await jobReleaseKey(deps.pool, job.id, ctx.workerId);
      if (disabled) return void (await webhookMessagesFailOutstanding(deps.pool, w.id)); // replay brings them back
      const next = await webhookMessagesNextDue(deps.pool, w.id);
      if (next) await webhookEndpointsWake(deps.pool, [w.id], next); // due now, or the next retry
    };
    if (w.status !== 'enabled') return finish(true);
    const keys = signingKeys(w, deps.sealer);
    // Each batch's write overlaps the next batch's requests (one batch in flight on each side).
    let writing: Promise<{ status: string; disabled_now: boolean } | undefined> | undefined;
    const written = async (): Promise<'go' | 'disabled'> => {
      const state = await writing;
      writing = undefined;
      if (state === undefined) return 'go';
      return state.status === 'enabled' ? 'go' : 'disabled';
    };
    const until = Date.now() + SLICE_MS;
    let gone = false;
    let batchSize = minBatch;
    // Where the run's next read starts: past the last message it has taken (sent, being sent, or
    // being recorded). A message that becomes due behind it (a fan-out committed late) is read by
    // the next run, which starts over: this one ends within its slice, and its finish wakes the next.
    let after: DueKey | null = null;
    const read = async (n: number) => ({
      at: Date.now(),
      asked: n,
      messages: await webhookMessagesReadDue(deps.pool, w.id, n, after),
    });
    // The next batch is read once the last request of a full batch has started, so that the read's
    // round trip overlaps the batch's last requests instead of leaving every lane idle. A batch read
    // ahead and then not sent (the run stops or the endpoint goes) is dropped: it is still due.
    let ahead: Promise<{ at: number; asked: number; messages: DueMessage[] }> | undefined;
    const dropAhead = async () => {
      await ahead?.catch(() => undefined);
      ahead = undefined;
    };
    // A batch that was not full took every message due: the run does not read again at once (that
    // read found nothing nearly always). An endpoint that keeps receiving (that batch held several
    // messages) is likely to have more within a fan-out pass or two: the run waits LINGER_MS and
    // reads again, rather than ending and being claimed again for them; a quieter one ends, and its
    // finish looks once more (and wakes a new run for what came meanwhile). Measured
    // (bench/webhooks/fanout.ts, sustained phase): a run per endpoint per fan-out pass, each paying
    // ~9 statements (claim, the endpoint's row, two reads, record, key release, next due, end) for
    // ~12 messages. The read goes on past the run's last key (from the start it would walk the index
    // entries of every message just sent, not yet vacuumable), so a message that a late fan-out put
    // behind that key waits for the run's end, at most its slice, as within any run.
    const linger = async (batch: number): Promise<'again' | 'end' | 'disabled'> => {
      if (batch < LINGER_MIN_BATCH || gone || ctx.signal.aborted || Date.now() + LINGER_MS >= until) return 'end';
      if ((await written()) === 'disabled') return 'disabled';
      await sleep(LINGER_MS, ctx.signal);
      return 'again';
    };
    for (;;) {
      if (gone) {
        await dropAhead();
        break;
      }
      if (ctx.signal.aborted || (!ahead && Date.now() >= until)) {
        await dropAhead();
        if ((await written()) === 'disabled') return finish(true);
        return { retryAt: new Date() }; // others' turn; back at once
      }
      const { at: readAt, asked, messages: batch } = await (ahead ?? read(batchSize));
      ahead = undefined;
      if (!batch.length) break;
      const before: DueKey | null = after;
      after = batch[batch.length - 1].due_key;
      const full = batch.length === asked;
      const results = await mapLimit(
        batch,
        concurrency,
        (m) => attempt(deps, w, keys, m),
        () => {
          if (full && !gone && Date.now() < until && !ctx.signal.aborted) {
            ahead = read(batchSize);
            ahead.catch(() => undefined); // awaited (and thrown) at the loop's top
          }
        },
        // Not started within the budget (a slow endpoint), or the job's lease was lost: left due.
        () => Date.now() - readAt > startBudgetMs || ctx.signal.aborted,
      );
      // Requests start in order, so those not started are the batch's tail (and no batch was read
      // ahead: that happens only once the last one has started): the next read starts at them.
      const unstarted = results.findIndex((r) => r === undefined);
      if (unstarted >= 0) after = unstarted > 0 ? batch[unstarted - 1].due_key : before;
      const done = results.filter((r) => r !== undefined);
      if (!done.length) continue;
      const records = done.map((r) => r.record);
      if ((await written()) === 'disabled') return finish(true);
      const failures = records.filter((r) => r.status !== 'success');
      batchSize = failures.length ? minBatch : Math.min(maxBatch, batchSize * 2);
      gone = done.some((r) => r.gone); // a 410: no further batch
      writing = webhookAttemptsRecord(deps.pool, w.id, w.team_id, records, {
        anySuccess: failures.length < records.length,
        firstFailureAt: failures[0]?.sent_at ?? null,
        disable: gone ? 'gone' : null,
        disableAfterMs: DISABLE_AFTER_MS,
      }).then((state) => {
        if (state?.disabled_now)
          ctx.log.warn('webhook endpoint disabled', { webhookId: w.id, endpoint: w.endpoint, gone });
        return state ?? { status: 'deleted', disabled_now: false };
      });
      writing.catch(() => undefined); // awaited (and thrown) by the next written()
      if (!full && unstarted < 0) {
        const next = await linger(batch.length);
        if (next === 'disabled') return finish(true);
        if (next === 'end') break;
      }
    }
    return finish((await written()) === 'disabled');
  };
}
