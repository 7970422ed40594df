// What one delivery attempt's answers become: each recipient's event (delivered, bounced, a
// deferral or its retry), the suppression of a hard bounce, the insight explaining the first reply
// that was not a success, and the job's outcome (a retry on the ladder, or its end).
import type { RecipientResult } from '../mta/deliver.js';
import { suppressesRecipient } from '../mta/classify.js';
import type { JobOutcome } from '../queue/worker.js';
import type { EventInsert } from '../store/emails.js';
import type { EmailForDelivery, EventGroup } from '../store/email-delivery.js';
import { suppressionAdd } from '../store/suppressions.js';
import { retryWhileUnavailable } from '../store/unavailable.js';
import { bounceExtra, makeEvent } from '../events/email-events.js';
import { counters } from '../lib/metrics.js';
import { inspectDelivery } from '../insights/inspect.js';
import { DELIVERY_RULE_IDS } from '../insights/rules.js';
import type { Config } from '../config/schema.js';
import type { Logger } from '../lib/log.js';
import type { Pool } from '../store/db.js';
import { GIVE_UP_AFTER_MS, nextRetryDelayMs } from './retry.js';

const smtpDetail = (r: RecipientResult, attempt: number) => ({
  response: r.response,
  code: r.code ?? null,
  enhanced: r.enhanced ?? null,
  mx_host: r.mxHost ?? null,
  tls: r.tls,
  attempt,
  ...(r.category ? { category: r.category } : {}),
});

export type JobEnd = NonNullable<EventGroup['endJob']>;

/** What recording needs of the delivery job's dependencies. */
export interface SettleDeps {
  pool: Pool;
  config: Config;
  log: Logger;
}

/** Where a job's results go: the shared recorder, or a wrapper adding the email's compose findings. */
export interface Ctx {
  deps: SettleDeps;
  record(group: EventGroup): Promise<void>;
}

/** Records each recipient's outcome; deferred recipients are retried on the ladder. */
export async function settle(
  ctx: Ctx,
  email: EmailForDelivery,
  results: RecipientResult[],
  attempt: number,
  end?: JobEnd,
): Promise<void | JobOutcome> {
  const { deps } = ctx;
  // Debug lines (off by default) that show how long answered results stay unwritten: a kill -9
  // sends again only what was answered and not yet written (test/flows/deliver-once.test.ts).
  const recipients = results.map((r) => r.recipient);
  deps.log.debug('delivery answered', { email_id: email.id, recipients });
  const record = async (group: EventGroup) => {
    await ctx.record(group);
    deps.log.debug('delivery recorded', { email_id: email.id, recipients });
  };
  const events: EventInsert[] = [];
  let lastEvent: string | undefined;
  const now = Date.now();
  const elapsed = now - email.created_at.getTime();
  const deferred = results.filter((r) => r.status === 'deferred');
  const expired = deferred.length > 0 && elapsed > GIVE_UP_AFTER_MS;

  for (const r of results) {
    counters.deliveries.inc({ result: r.status });
    const detail = smtpDetail(r, attempt);
    if (r.status === 'delivered') {
      events.push(makeEvent(email, 'email.delivered', { recipient: r.recipient, detail }));
      lastEvent = 'delivered';
    } else if (r.status === 'bounced' || expired) {
      const permanent = r.status === 'bounced';
      const diagnostic = `smtp; ${r.response}`;
      const message = permanent
        ? "The recipient's mail server permanently rejected the email."
        : 'Delivery was retried for 72 hours without success.';
      events.push(
        makeEvent(email, 'email.bounced', {
          recipient: r.recipient,
          extra: bounceExtra(
            permanent ? 'Permanent' : 'Transient',
            permanent ? (r.subType ?? 'General') : 'General',
            diagnostic,
            message,
          ),
          detail,
        }),
      );
      lastEvent = 'bounced';
      // A block of our sending IP says nothing about the address: do not suppress it.
      if (permanent && suppressesRecipient(r.category))
        await retryWhileUnavailable(
          () => suppressionAdd(deps.pool, email.team_id, r.recipient, 'bounce', email.id, r.response),
          { log: deps.log, what: 'suppressing a bounced recipient' },
        );
    }
  }
  const insight = deps.config.insights ? firstReplyInsight(email, results) : undefined;
  if (deferred.length && !expired) {
    const first = !email.delayed_once;
    for (const r of deferred) {
      events.push(
        makeEvent(email, first ? 'email.delivery_delayed' : 'email.delivery_attempt', {
          recipient: r.recipient,
          detail: smtpDetail(r, attempt),
        }),
      );
    }
    if (first) lastEvent = 'delivery_delayed';
    await record({ events, lastEvent, markDelayed: first, insight });
    const wait = Math.max(...deferred.map((r) => r.retryAfterSeconds ?? 0));
    return { retryAt: new Date(now + nextRetryDelayMs(elapsed, wait || undefined)) };
  }
  // No recipient left to retry: this is the job's last write, and ends it when it is the job's whole.
  await record({ events, lastEvent, insight, ...(end ? { endJob: end } : {}) });
  return end ? { ended: true } : undefined;
}

/**
 * The insight explaining the email's first reply that was not a success (bounce or deferral):
 * none once the email was deferred before (its first deferral was explained then); the store
 * keeps the first one when several destinations answer (insights/rules.ts, receiver-*).
 */
function firstReplyInsight(email: EmailForDelivery, results: RecipientResult[]): EventGroup['insight'] {
  const r =
    results.find((x) => x.status === 'bounced') ??
    (email.delayed_once ? undefined : results.find((x) => x.status === 'deferred'));
  if (!r || r.status === 'delivered') return undefined;
  const finding = inspectDelivery({
    status: r.status,
    response: r.response,
    code: r.code,
    enhanced: r.enhanced,
    category: r.category,
    recipient: r.recipient,
    sendingDomain: email.from_header
      .slice(email.from_header.lastIndexOf('@') + 1)
      .replace(/>$/, '')
      .toLowerCase(),
  });
  return finding ? { finding, onceAmong: DELIVERY_RULE_IDS } : undefined;
}
