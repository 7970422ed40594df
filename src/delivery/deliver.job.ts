// The delivery job: one email to the recipients on one destination domain, as named steps
// (load; skip what is done; check the domain; hold suppressed recipients; sign; send; record);
// or a run of a broadcast's one-recipient copies to one domain, each through the same steps.
// Recipients that already reached an end are skipped, so a re-run after a crash does not
// deliver twice what was recorded. Expected outcomes are events, never exceptions.
import type { Config, Region } from '../config/schema.js';
import type { Domains } from '../domains/service.js';
import type { Logger } from '../lib/log.js';
import { dkimSign } from '../mta/dkim.js';
import { deliver, type RecipientResult, type Route } from '../mta/deliver.js';
import type { Pool as SmtpPool } from '../mta/pool.js';
import type { Job, JobContext, JobOutcome } from '../queue/worker.js';
import { DELIVERY_PRIORITY, deliverJobsInsert } from '../store/jobs.js';
import type { Pool } from '../store/db.js';
import type { DeliverBatchPayload, DeliverPayload } from '../store/emails.js';
import {
  emailEventsInsertMany,
  emailsLoadForDelivery,
  type DeliveryLoad,
  type DeliveryState,
  type EmailForDelivery,
  type EventGroup,
} from '../store/email-delivery.js';
import { retryWhileUnavailable } from '../store/unavailable.js';
import { Batcher } from '../queue/batcher.js';
import { cachedLoad, TtlCache } from '../lib/ttl-cache.js';
import { failedExtra, makeEvent, suppressedExtra } from '../events/email-events.js';
import { distinctRecipients, type UnsubscribeSigner } from '../tracking/unsubscribe-tokens.js';
import { withListHeaders } from '../mime/list-headers.js';
import { isDeferred, type DeferredBodies } from './deferred.js';
import { settle, type Ctx, type JobEnd } from './settle.js';
import type { ComposeInsights } from '../insights/compose-insights.js';
import type { AddressHasher } from '../lib/address-hash.js';

export interface DeliverDeps {
  pool: Pool;
  domains: Domains;
  config: Config;
  smtp: SmtpPool;
  log: Logger;
  /** signs the per-recipient List-Unsubscribe links of list mail */
  unsubscribe: UnsubscribeSigner;
  /** renders the body of an email that keeps none (a broadcast's), here at delivery */
  bodies?: DeferredBodies;
  /** the compose findings of an email not analyzed yet (EmailSender.insights): run here, off the request path */
  insights: ComposeInsights;
  /** keyed hashes of recipients: an erased address (privacy/, erased_addresses) is held like a suppressed one */
  erased?: AddressHasher;
}

/** The VERP return path: bounces come back to an address that names the email. */
export const returnPath = (emailId: string, returnPathHost: string) =>
  `bounces+${emailId.replace(/-/g, '')}@${returnPathHost}`;

const DOMAIN_CACHE_MS = 5_000;
const BROADCAST_FINDINGS_MS = 60_000;
const BATCH_SENDS = 3; // a batch's copies in flight at once
const BATCH_FAILURE_RETRY_MS = 30_000; // a copy whose attempt threw, retried alone (then with the worker's backoff)
const RECORDS_IN_FLIGHT = 8; // delivery results' statements at once (the recorder below)
const RECORD_LINGER_MS = 5; // how long a result may wait for others to share its statement
const RECORD_LINGER_MAX = 100; // results that go at once, lingering or not

/** The delivery jobs' handlers, sharing their group commits and caches. */
export function deliveryJobs(deps: DeliverDeps) {
  // Deliveries started together load their emails in one statement and their results share one
  // statement (group commit), and a domain's row and keys are reused for a few seconds:
  // measured, six round trips per message made the worker spend most of its time writing to
  // PostgreSQL's socket; with one load query per message PostgreSQL still spent ~830 us of CPU
  // per delivered message (~500 us with the loads shared).
  const loader = new Batcher<DeliveryLoad, DeliveryState | undefined>((loads) =>
    emailsLoadForDelivery(deps.pool, loads),
  );
  // A result goes to PostgreSQL within RECORD_LINGER_MS of its answer (issue 26): a kill -9 then
  // sends again only what was on the wire or answered in those last milliseconds, not results
  // waiting in this process's memory behind others (a statement already sent is finished by
  // PostgreSQL). So it does not wait behind the group in flight: up to RECORDS_IN_FLIGHT statements
  // at once (of the pool's 20); past that, results wait and go together. Measured with two worker
  // processes on a loaded 2-core box (load 15-20), a statement took p50 ~110 ms from answer to
  // commit with either, and one at a time left results read 0-8 ms before a kill -9 unsent, which
  // were then delivered twice. The linger (issue 27): sent the moment they were read, results came
  // one every 1-2 ms and a statement carried 1.6 of them, each paying its ~800 µs of PostgreSQL
  // CPU; 5 ms gathers ~10 (bench/pg-cost.ts: PostgreSQL per delivered email -27 to -44%).
  // And the results wait for a database that is restarting or failing over: failing the job instead made it run again after its lease, which
  // delivered every in-flight message a second time (33 of 33 in test/flows/db-outage.test.ts).
  const recorder = new Batcher<EventGroup, void>(
    async (groups) => {
      await retryWhileUnavailable(() => emailEventsInsertMany(deps.pool, groups), {
        log: deps.log,
        what: 'recording delivery results',
      });
      return groups.map(() => undefined);
    },
    RECORDS_IN_FLIGHT,
    { lingerMs: RECORD_LINGER_MS, lingerMax: RECORD_LINGER_MAX },
  );
  const domainCache = new TtlCache<Promise<Awaited<ReturnType<Domains['sendingDomainById']>>>>(DOMAIN_CACHE_MS, 10_000);
  const domainFor = (teamId: string, id: string) =>
    cachedLoad(domainCache, id, () => deps.domains.sendingDomainById(teamId, id));
  // A broadcast's copies are one message with each recipient's values: its compose findings are
  // computed from the first copy this process delivers and stored with every copy (measured: the
  // rules and the render they need were ~100 us of a copy's ~1.4 ms, run again for every copy).
  const broadcastFindings = new TtlCache<unknown[]>(BROADCAST_FINDINGS_MS, 1_000);
  const base: Ctx = { deps, record: (g) => recorder.add(g) };

  const load = (p: DeliverPayload) =>
    loader.add({
      emailId: p.email_id,
      recipients: p.recipients,
      hashes: deps.erased ? p.recipients.map((r) => deps.erased!.hash(r)) : undefined,
    });
  // `end`: the job this delivery is the whole of (email.deliver): its last write also deletes it
  // (EventGroup.endJob), one commit fewer per job (issue 27). Not for a broadcast run's copies
  // (their job ends after the run) nor list mail (several writes, one per copy).
  const one = async (p: DeliverPayload, loaded?: Loaded, end?: JobEnd): Promise<void | JobOutcome> => {
    const state = await (loaded ?? load(p));
    // A broadcast copy read `canceled` was not handed over to us (the load claims the others under
    // their row lock, and its broadcast's cancel then leaves them to us): nothing is sent.
    if (!state || state.email.last_event === 'canceled') return;
    const { email } = state;
    let pending = p.recipients.filter((r) => !state.done.has(r));
    if (!pending.length) return;
    const attempt = state.deferrals + 1;
    const domain = email.domain_id ? await domainFor(email.team_id, email.domain_id) : undefined;
    // An email's compose findings are computed at its first attempt (the send path leaves them to
    // this job) and stored with whatever the attempt records: suppressed, failed or a result.
    // A broadcast's email keeps no body: rendered here for the rules (then reused for the send).
    const analyze = deps.config.insights && email.unanalyzed;
    const findingsKey = email.broadcast_id ? `${email.broadcast_id}/${email.domain_id}` : undefined;
    const shared = analyze && findingsKey ? broadcastFindings.get(findingsKey) : undefined;
    const rendered =
      analyze && !shared && isDeferred(email) && !email.raw ? await deps.bodies?.render(email) : undefined;
    const composed =
      shared ??
      (analyze && (rendered || !isDeferred(email))
        ? composeFindings(
            deps,
            rendered ? Object.assign({}, email, { html: rendered.html, text_body: rendered.text }) : email,
            domain?.row,
          )
        : undefined);
    if (composed && findingsKey && !shared) broadcastFindings.set(findingsKey, composed);
    // Object.assign, not `{ ...g, composed }`: on Node 20 a property added to an object a spread
    // made is a new hidden class each time (~1-2 µs; webhooks/deliver.job.ts's attemptRecord).
    const ctx: Ctx = composed ? { deps, record: (g) => base.record(Object.assign({}, g, { composed })) } : base;
    // The job's last write, carrying its end when there is one.
    const last = async (g: EventGroup): Promise<void | JobOutcome> => {
      await ctx.record(end ? Object.assign({}, g, { endJob: end }) : g);
      return end ? { ended: true } : undefined;
    };

    const purged = () =>
      last(
        failAll(
          email,
          pending,
          'message_purged',
          'The message body was purged by retention before it could be delivered.',
        ),
      );
    if (!email.raw && !isDeferred(email)) return purged();
    if (!domain)
      return last(failAll(email, pending, 'domain_not_verified', 'The sending domain is no longer verified.'));

    const held = pending
      .filter((r) => state.suppressed.has(r))
      .map((r) =>
        makeEvent(email, 'email.suppressed', {
          recipient: r,
          extra: suppressedExtra(state.suppressed.get(r)!),
          detail: { origin: state.suppressed.get(r)! },
        }),
      );
    pending = pending.filter((r) => !state.suppressed.has(r));
    if (held.length) await ctx.record({ events: held, lastEvent: 'suppressed' });
    if (!pending.length) return;

    if (deps.config.deliveryMode === 'capture') {
      const events = pending.map((r) =>
        makeEvent(email, 'email.delivered', {
          recipient: r,
          detail: { mode: 'capture', response: 'captured: stored locally, nothing sent', attempt },
        }),
      );
      return last({ events, lastEvent: 'delivered' });
    }

    // A broadcast's email is rendered here, from its broadcast and its recipient's values.
    const raw = email.raw ?? (rendered ?? (await deps.bodies?.render(email)))?.raw;
    if (!raw) return purged();
    const { row } = domain;
    const returnPathHost = `${row.custom_return_path}.${row.name}`;
    const egress = deps.config.regionEgress[row.region as Region] ?? {};
    const relayUrl = egress.relayUrl ?? (deps.config.deliveryMode === 'relay' ? deps.config.relayUrl : undefined);
    const route: Route = relayUrl
      ? { mode: 'relay', url: relayUrl }
      : { mode: 'mx', domain: p.domain, port: deps.config.outboundPort, dns: deps.config.dnsServers };
    const send = (recipients: string[], raw: Buffer) =>
      deliver({ mailFrom: returnPath(email.id, returnPathHost), recipients, raw, tls: row.tls }, route, {
        heloName: egress.heloName ?? deps.config.heloName,
        localAddress: egress.sourceAddress,
        pool: deps.smtp,
      });
    if (!email.list_unsubscribe)
      return settle(ctx, email, await send(pending, await dkimSign(raw, domain.keys)), attempt, end);
    // List mail: each recipient its own copy with its own unsubscribe token, signed after the
    // headers are added (one signature per recipient, not per message: only for list mail).
    // Each copy's end (delivered, bounced) is recorded as soon as it is answered, not after the
    // last copy: a crash then sends again only the copy on the wire. Deferrals are settled together.
    const order = distinctRecipients(email.to_addrs, email.cc_addrs, email.bcc_addrs);
    const deferred: RecipientResult[] = [];
    const recorded: Promise<void | JobOutcome>[] = [];
    try {
      for (const r of pending) {
        const ordinal = order.indexOf(r);
        if (ordinal < 0) throw new Error(`delivery: ${r} is not a recipient of email ${email.id}`);
        const copy = withListHeaders(raw, deps.unsubscribe.headers(email.id, ordinal, returnPathHost, email.list_id));
        const results = await send([r], await dkimSign(copy, domain.keys));
        const ended = results.filter((x) => x.status !== 'deferred');
        if (ended.length) recorded.push(settle(ctx, email, ended, attempt));
        deferred.push(...results.filter((x) => x.status === 'deferred'));
      }
    } finally {
      await Promise.allSettled(recorded); // what was answered is written, even when a later copy threw
    }
    for (const r of await Promise.allSettled(recorded)) if (r.status === 'rejected') throw r.reason;
    if (deferred.length) return settle(ctx, email, deferred, attempt);
  };

  return {
    /** email.deliver: one email (its job ended by its results' statement) */
    single: (job: Job<DeliverPayload>, jc: JobContext): Promise<void | JobOutcome> =>
      one(job.payload, undefined, { id: job.id, workerId: jc.workerId }),
    /** email.deliver_batch: a run of a broadcast's copies (its own worker: app.ts) */
    batch: (job: Job<DeliverBatchPayload>, jc: JobContext): Promise<void> => deliverBatch(deps, { load, one }, job, jc),
  };
}

/**
 * A run of a broadcast's copies to one destination domain: loaded in one statement, then sent
 * BATCH_SENDS at a time. The batches have a worker of their own (app.ts), so transactional mail
 * never waits for their worker slots, and at a destination's connections behind at most
 * BATCH_SENDS sends per running batch. A copy deferred, or whose attempt failed, gets an
 * email.deliver job of its own (retried on the ladder, found by its broadcast on pause), queued
 * before this job ends. A re-run of the job (lease lost, crash) skips the copies that already
 * reached an end.
 */
type Loaded = Promise<DeliveryState | undefined>;
interface DeliverOne {
  load(p: DeliverPayload): Loaded;
  one(p: DeliverPayload, loaded?: Loaded): Promise<void | JobOutcome>;
}

async function deliverBatch(
  deps: DeliverDeps,
  d: DeliverOne,
  job: Job<DeliverBatchPayload>,
  jc: JobContext,
): Promise<void> {
  const { team_id, domain, broadcast_id, emails } = job.payload;
  const copies = emails.map(
    ([emailId, recipient]) =>
      ({ team_id, domain, broadcast_id, email_id: emailId, recipients: [recipient] }) satisfies DeliverPayload,
  );
  const loads = copies.map((p) => d.load(p)); // one tick: one statement (the loader's group commit)
  for (const l of loads) l.catch(() => undefined); // awaited by each copy's delivery
  const later: Parameters<typeof deliverJobsInsert>[1] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(BATCH_SENDS, copies.length) }, async () => {
      for (let i = next++; i < copies.length; i = next++) {
        if (jc.signal.aborted) throw jc.signal.reason ?? new Error('aborted');
        let retryAt: Date | undefined;
        try {
          const outcome = await d.one(copies[i], loads[i]);
          if (outcome && 'retryAt' in outcome) retryAt = outcome.retryAt;
        } catch (err) {
          deps.log.warn('delivery of a broadcast copy failed; it is retried alone', {
            email_id: copies[i].email_id,
            err,
          });
          retryAt = new Date(Date.now() + BATCH_FAILURE_RETRY_MS);
        }
        if (retryAt)
          later.push({
            payload: copies[i],
            run_at: retryAt.toISOString(),
            region: job.region,
            priority: DELIVERY_PRIORITY.broadcast,
          });
      }
    }),
  );
  if (later.length) await deliverJobsInsert(deps.pool, later);
}

function composeFindings(
  deps: DeliverDeps,
  email: EmailForDelivery,
  domain: Parameters<ComposeInsights['of']>[1],
): unknown[] | undefined {
  try {
    return deps.insights.of(email, domain);
  } catch (err) {
    deps.log.warn('insights: compose rules failed', { email_id: email.id, err }); // advice, never worth a failed delivery
    return undefined;
  }
}

function failAll(email: EmailForDelivery, recipients: string[], reason: string, message: string) {
  return {
    events: recipients.map((r) =>
      makeEvent(email, 'email.failed', {
        recipient: r,
        extra: failedExtra(reason, message),
        detail: { reason, message },
      }),
    ),
    lastEvent: 'failed',
  };
}
