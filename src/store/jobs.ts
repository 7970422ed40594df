// The jobs table's one owner: every job kind registered here, and every statement that touches job
// rows (the queue's enqueue, claim and finish; the holds, wake-ups and key releases other modules
// call; and the fragments other statements embed so that a fact and its job commit in one round
// trip: the send statement, a scheduled email's reschedule and cancel, the webhook wake-ups). Every
// write that ends a run is guarded by `locked_by = worker` so that a worker whose lease was taken
// over cannot undo the new owner's work.
// Job rows are also written in SQL, outside this file (each names its kind as a literal):
// webhooks_wake_dispatcher (0005: webhooks.dispatch, trigger email_events_wake_webhooks),
// email_events_count_rates (0034, was reputation_count_events of 0024: reputation.check),
// automations_wake (0025, 0037: automations.event), mailroom_jobs_claim (0033, 0037: the claim's UPDATE),
// mailroom_jobs_end_leased (0078, 0079: the delivery results' job end, leasedJobsEndSql) and
// mailroom_jobs_end (0080: the worker's job end, jobsDeleteMany).
import { prepared, type Queryable } from './db.js';

export const JOBS_CHANNEL = 'mailroom_jobs';

/** Every job kind, once. A worker refuses a handler for a kind not listed here. */
export const JOB_KINDS = {
  'email.deliver':
    'delivers one email to the recipients of one destination domain (payload: email_id, domain, recipients)',
  'email.deliver_batch':
    "delivers a run of a broadcast's one-recipient copies to one destination domain, one after another (payload: broadcast_id, domain, emails: [[email_id, recipient]]); claimed by a worker of its own",
  'webhooks.dispatch':
    'turns new outbox events into one message per subscribed endpoint (key "wake"; also queued by the trigger of 0005_webhooks.sql)',
  'webhooks.deliver': 'delivers the due messages of one endpoint (key = endpoint id: one running per endpoint)',
  'webhooks.sweep': 'recurring: repairs wake-ups lost to races',
  'webhooks.retention': 'recurring: drops old webhook messages and attempts',
  'broadcasts.expand':
    "turns a broadcast's segment into emails, one page per transaction with its cursor (key = broadcast id; paced behind delivery)",
  'automations.event':
    'starts and resumes the runs of the queued events (automation_event_queue), in order, one job at a time (key "wake", armed by automations_wake of 0025_automation_system_events.sql; re-armed while it runs, it keeps its lease and runs again after: 0037)',
  'automations.step':
    'runs one step of one automation run (payload: run_id, key; key = run_id:key); a legacy wake-up (payload wake: true, key run_id:key:wake) is resumed as automations.wake is',
  'automations.wake':
    'a delay elapsed or a wait timed out (payload: run_id, key; key = run_id:key:wake; run_at = when): claimed in batches by the timer worker, many resumed per transaction',
  'reputation.check':
    "judges one sending domain's bounce and complaint rates (key = domain id; queued by the trigger of 0024_reputation_guard.sql on a hard bounce or complaint)",
  'contacts.import':
    'parses one uploaded contact CSV and merges it into contacts (payload: import_id); a re-run starts over from the stored file',
  'contacts.bulk':
    'runs one large bulk operation on contacts in batches of 500, one transaction each, from its saved cursor (payload: operation_id; contacts/bulk.job.ts)',
  'privacy.erase':
    'erases one address from one team in short batches (payload: request_id, team_id, email_sealed; privacy/erase.job.ts); idempotent',
  'privacy.export':
    'writes the JSON document of everything one team holds about one address (payload: request_id, team_id, email_sealed)',
  // The maintenance worker's recurring jobs (maintenance/worker.ts): one row each, run by one process per period.
  'domains.recheck': 'recurring (1 min): re-checks the DNS records of the domains that are due',
  'request_logs.retention': 'recurring (1 h): drops API request logs older than MAILROOM_LOG_RETENTION_DAYS',
  'emails.retention': 'recurring (1 h): drops raw messages older than MAILROOM_RETENTION_DAYS',
  'received_emails.retention': 'recurring (1 h): drops received raw messages older than MAILROOM_RETENTION_DAYS',
  'idempotency.expiry': 'recurring (1 h): drops expired idempotency keys',
  'email_metrics.rollup': 'recurring (1 min): rolls closed hours of email events up into the hourly metrics',
  'reputation.sweep': 'recurring (1 min): looks again at the domains with a reputation warning',
  'reputation.retention': 'recurring (1 h): drops old reputation counters',
  'sessions.expiry':
    'recurring (1 h): drops expired dashboard sessions, stale login throttles, and OAuth codes and tokens a day past expiry',
  'inboxes.agent_run':
    "runs an inbox's agent on one new inbound email (payload: team_id, inbox_id, thread_id, email_id; key = email id): the operator's model proposes, allowed actions are applied, replies and forwards become drafts",
  'inboxes.sweep':
    'recurring (1 min): files received mail for inbox addresses that missed its filing (a crash between the two commits)',
  'privacy.purge':
    "recurring (1 h): purges each team's tracking data, events, automation runs and webhook payloads past its team_retention",
} as const;
export type JobKind = keyof typeof JOB_KINDS;

declare const declaredKind: unique symbol;
/** A kind registered at run time by registerJobKinds (a test's, a benchmark's): never one of production's. */
export type DeclaredJobKind<K extends string = string> = K & { readonly [declaredKind]: true };
/** What may be enqueued and run: a registered kind, production's or declared. */
export type KnownJobKind = JobKind | DeclaredJobKind;

const declared = new Map<string, string>();

/**
 * Registers kinds that are not production's (tests, benchmarks declare theirs, each with what it
 * is for); returns them typed, for enqueue. src/ never calls it (test/house): a kind production
 * runs is in JOB_KINDS.
 */
export function registerJobKinds<const K extends string>(
  kinds: Record<K, string>,
): { readonly [P in K]: DeclaredJobKind<P> } {
  for (const [k, what] of Object.entries<string>(kinds)) {
    if (Object.hasOwn(JOB_KINDS, k))
      throw new Error(`job kind ${k} is production's (JOB_KINDS): it cannot be declared again`);
    declared.set(k, what);
  }
  return Object.fromEntries(Object.keys(kinds).map((k) => [k, k])) as { readonly [P in K]: DeclaredJobKind<P> };
}

/** Whether `k` is registered (JOB_KINDS, or declared by registerJobKinds): a worker refuses any other. */
export const isJobKind = (k: string): k is KnownJobKind => Object.hasOwn(JOB_KINDS, k) || declared.has(k);

export const DELIVER_JOB = 'email.deliver' satisfies JobKind;
export const DELIVER_BATCH_JOB = 'email.deliver_batch' satisfies JobKind;
/** jobs.priority (0031): due jobs are claimed lowest first, so transactional mail overtakes list mail. */
export const DELIVERY_PRIORITY = { transactional: 0, automation: 1, broadcast: 2 } as const;
export const WEBHOOK_DISPATCH_JOB = 'webhooks.dispatch' satisfies JobKind;
export const WEBHOOK_DELIVER_JOB = 'webhooks.deliver' satisfies JobKind;
export const WEBHOOK_SWEEP_JOB = 'webhooks.sweep' satisfies JobKind;
export const WEBHOOK_RETENTION_JOB = 'webhooks.retention' satisfies JobKind;
export const CONTACT_IMPORT_JOB = 'contacts.import' satisfies JobKind;
export const CONTACT_BULK_JOB = 'contacts.bulk' satisfies JobKind;
export const BROADCAST_EXPAND_JOB = 'broadcasts.expand' satisfies JobKind;
export const AUTOMATION_STEP_JOB = 'automations.step' satisfies JobKind;
export const REPUTATION_CHECK_JOB = 'reputation.check' satisfies JobKind;
export const AUTOMATION_EVENT_JOB = 'automations.event' satisfies JobKind;
export const AUTOMATION_WAKE_JOB = 'automations.wake' satisfies JobKind;
export const DOMAIN_RECHECK_JOB = 'domains.recheck' satisfies JobKind;
export const REQUEST_LOG_RETENTION_JOB = 'request_logs.retention' satisfies JobKind;
export const EMAIL_RETENTION_JOB = 'emails.retention' satisfies JobKind;
export const RECEIVED_EMAIL_RETENTION_JOB = 'received_emails.retention' satisfies JobKind;
export const IDEMPOTENCY_EXPIRY_JOB = 'idempotency.expiry' satisfies JobKind;
export const METRICS_ROLLUP_JOB = 'email_metrics.rollup' satisfies JobKind;
export const REPUTATION_SWEEP_JOB = 'reputation.sweep' satisfies JobKind;
export const REPUTATION_RETENTION_JOB = 'reputation.retention' satisfies JobKind;
export const SESSION_EXPIRY_JOB = 'sessions.expiry' satisfies JobKind;
export const INBOX_SWEEP_JOB = 'inboxes.sweep' satisfies JobKind;
export const INBOX_AGENT_JOB = 'inboxes.agent_run' satisfies JobKind;
export const PRIVACY_ERASE_JOB = 'privacy.erase' satisfies JobKind;
export const PRIVACY_EXPORT_JOB = 'privacy.export' satisfies JobKind;
export const PRIVACY_RETENTION_JOB = 'privacy.purge' satisfies JobKind;

/**
 * For the automation run statements' data-modifying CTEs (store/automations.ts): the step job of
 * every row of relation `rows` (columns run_id, key), due now, as stepJobEnqueue inserts it one at
 * a time (key run_id:key, deduplicated while pending; attempts counted by the handler). RETURNING kind.
 */
export const automationStepJobsInsertSql = (rows: string) => `
  INSERT INTO jobs (kind, payload, run_at, key)
  SELECT '${AUTOMATION_STEP_JOB}', jsonb_build_object('run_id', r.run_id, 'key', r.key), now(), r.run_id || ':' || r.key FROM ${rows} AS r
  ${CONFLICT} DO NOTHING
  RETURNING kind`;

/** The same for wake-ups: an automations.wake job per row of `rows` (columns run_id, key, run_at), as stepJobEnqueue(..., wake) inserts it. */
export const automationWakeJobsInsertSql = (rows: string) => `
  INSERT INTO jobs (kind, payload, run_at, key)
  SELECT '${AUTOMATION_WAKE_JOB}', jsonb_build_object('run_id', r.run_id, 'key', r.key, 'wake', true), r.run_at, r.run_id || ':' || r.key || ':wake' FROM ${rows} AS r
  ${CONFLICT} DO NOTHING
  RETURNING kind`;

/**
 * For the send statement's data-modifying CTE (store/emails.ts): inserts the delivery jobs given
 * as a JSON array `[{payload, run_at, region}]` in parameter `param`. One round trip per email
 * (DESIGN 8) is why this is a fragment rather than a call.
 */
export const deliverJobsInsertSql = (param: string) => `
  INSERT INTO jobs (kind, payload, run_at, region, priority)
  SELECT '${DELIVER_JOB}', p.payload, p.run_at, p.region, coalesce(p.priority, 0) FROM jsonb_to_recordset(${param}::jsonb) AS p (payload jsonb, run_at timestamptz, region text, priority smallint)
  RETURNING id`;

/**
 * For the delivery results' statement (store/email-delivery.ts emailEventsInsertMany): an expression
 * that deletes the jobs given as a JSON array `[{id, worker}]` in parameter `param`, each only while
 * it is still leased to that worker and not re-armed, so that results and the job's end commit
 * together (issue 27: one statement and commit fewer per job). A job another worker has taken is
 * left to it. A function (0078, 0079) so that each job is found by its key (`id = ANY`): as a join
 * to the JSON set (taken for 100 rows) the planner read the whole queue, by a sequential scan or by
 * walking an index, in plans made while the queue was small and kept for the session.
 */
export const leasedJobsEndSql = (param: string) => `mailroom_jobs_end_leased(${param}::json)`;

/** Broadcast copies one delivery job carries (DeliverBatchPayload), all to one destination domain. */
export const DELIVERY_BATCH = 10;

/**
 * The delivery jobs of a broadcast page, from a relation `rows` with columns id (a one-recipient
 * email), address and rcpt_domain: one job per DELIVERY_BATCH copies to one destination domain
 * (store/emails.ts emailsInsertPage). A job per copy cost a job row, a share of a claim (~60-75 us of
 * PostgreSQL with 50 in flight) and a delete for each copy.
 */
export const deliverBatchJobsSql = (
  rows: string,
  teamId: string,
  broadcastId: string,
  runAt: string,
  region: string,
) => `
  INSERT INTO jobs (kind, payload, run_at, region, priority)
  SELECT '${DELIVER_BATCH_JOB}', jsonb_build_object('team_id', ${teamId}::uuid, 'domain', b.rcpt_domain, 'broadcast_id', ${broadcastId}::uuid, 'emails', b.emails),
         ${runAt}::timestamptz, ${region}, ${DELIVERY_PRIORITY.broadcast}
  FROM (SELECT x.rcpt_domain, jsonb_agg(jsonb_build_array(x.id, lower(x.address)) ORDER BY x.n) AS emails
        FROM (SELECT r.id, r.address, r.rcpt_domain, row_number() OVER (PARTITION BY r.rcpt_domain ORDER BY r.id) AS n FROM ${rows} AS r) x
        GROUP BY x.rcpt_domain, (x.n - 1) / ${DELIVERY_BATCH}) b`;

/** Inserts delivery jobs (`deliverJobsInsertSql`'s rows) and wakes the workers at commit. */
export async function deliverJobsInsert(
  db: Queryable,
  jobs: { payload: unknown; run_at: string; region: string | null; priority?: number }[],
): Promise<void> {
  await db.query(`WITH j AS (${deliverJobsInsertSql('$1')}) SELECT pg_notify($2, '${DELIVER_JOB}')`, [
    JSON.stringify(jobs),
    JOBS_CHANNEL,
  ]);
}

/**
 * For a scheduled email's reschedule and cancel statements (store/emails.ts), whose CTE moves the
 * email first: its pending delivery jobs (payload `scheduled`), moved to `runAt` or deleted only
 * when relation `moved` (that CTE) has a row. One statement, so that the email and its jobs never
 * disagree: a job a worker already holds is not moved (it finds the email rescheduled or canceled).
 */
export const deliverJobsRescheduleScheduledSql = (emailId: string, runAt: string, moved: string) =>
  `UPDATE jobs SET run_at = ${runAt} WHERE kind = '${DELIVER_JOB}' AND payload ? 'scheduled' AND payload->>'email_id' = ${emailId}::text AND state = 'pending' AND locked_by IS NULL AND EXISTS (SELECT 1 FROM ${moved}) RETURNING id`;

export const deliverJobsDeleteScheduledSql = (emailId: string, moved: string) =>
  `DELETE FROM jobs WHERE kind = '${DELIVER_JOB}' AND payload ? 'scheduled' AND payload->>'email_id' = ${emailId}::text AND EXISTS (SELECT 1 FROM ${moved}) RETURNING id`;

/**
 * Wakes the delivery jobs of these webhook endpoints at `at` (default now): creates the pending
 * one, or pulls one that waits for a later retry forward (new messages must not wait behind an
 * old one's backoff). A running job is left alone, but ON CONFLICT DO UPDATE row-locks it until
 * this transaction commits, and a finishing job gives its key up with an UPDATE of that row
 * before its last look for due messages (jobReleaseKey): so that look sees these messages.
 */
export const webhookJobsWakeSql = (ids: string, at = 'now()') => `
  INSERT INTO jobs (kind, key, payload, run_at)
  SELECT '${WEBHOOK_DELIVER_JOB}', w::text, jsonb_build_object('webhook_id', w), ${at} FROM unnest(${ids}::uuid[]) AS w
  ON CONFLICT (kind, key) WHERE key IS NOT NULL AND state = 'pending'
  DO UPDATE SET run_at = EXCLUDED.run_at WHERE jobs.run_at > EXCLUDED.run_at AND jobs.locked_by IS NULL`;

/**
 * A finishing webhook run (dispatch or endpoint delivery) gives its dedupe key up, so that the next
 * wake-up creates a new job instead of being absorbed by this one. Waits for transactions that
 * row-locked the job (webhookJobsWakeSql).
 */
export async function jobReleaseKey(db: Queryable, jobId: string, workerId: string): Promise<void> {
  await db.query(
    prepared(db, 'mr_job_release_key', 'UPDATE jobs SET key = NULL WHERE id = $1 AND locked_by = $2', [
      jobId,
      workerId,
    ]),
  );
}

/**
 * After the dispatcher released its key: every transaction whose trigger (webhooks_wake_dispatcher)
 * found that key, and so did not enqueue a job, got its xid before now, so it is below this
 * snapshot's xmax. Saved in the job's payload; the dispatcher finishes only once all of those
 * transactions have ended (store/webhook-outbox.ts webhookDispatchFinishState).
 */
export async function webhookDispatchJobHorizonSave(db: Queryable, jobId: string, workerId: string): Promise<void> {
  await db.query(
    `UPDATE jobs SET payload = jsonb_build_object('horizon', pg_snapshot_xmax(pg_current_snapshot())::text) WHERE id = $1 AND locked_by = $2`,
    [jobId, workerId],
  );
}

/** For webhookDispatchFinishState's one statement: whether a newer dispatcher holds the key (a boolean expression). */
export const webhookDispatchJobPendingSql = `EXISTS (SELECT 1 FROM jobs WHERE kind = '${WEBHOOK_DISPATCH_JOB}' AND key = 'wake' AND state = 'pending')`;

/**
 * The team's automation send steps held by the reputation guard (a pending step job due later,
 * not a wake-up: they retry on their own) are due at once: the domain was resumed (reputation/guard.ts).
 * Returns how many.
 */
export async function automationStepJobsWakeForTeam(db: Queryable, teamId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `WITH w AS (
       UPDATE jobs j SET run_at = now() FROM automation_runs r
       WHERE j.kind = '${AUTOMATION_STEP_JOB}' AND j.state = 'pending' AND j.locked_by IS NULL AND j.run_at > now() AND NOT (j.payload ? 'wake')
         AND r.id = (j.payload->>'run_id')::uuid AND r.team_id = $1
       RETURNING j.id),
     woken AS (SELECT pg_notify($2, '${AUTOMATION_STEP_JOB}') FROM (SELECT 1 FROM w LIMIT 1) x)
     SELECT (SELECT count(*) FROM w)::int AS n, (SELECT count(*) FROM woken) AS woken`,
    [teamId, JOBS_CHANNEL],
  );
  return rows[0].n;
}

export interface JobRow {
  id: string; // bigint, as text
  kind: string;
  payload: unknown;
  key: string | null;
  region: string | null;
  run_at: Date;
  attempts: number;
  max_attempts: number | null;
  every_ms: number | null;
  created_at: Date;
}

export interface JobInsert {
  kind: KnownJobKind;
  payload: unknown;
  runAt?: Date;
  key?: string;
  region?: string;
  maxAttempts?: number | null;
}

/** Which jobs a worker may take: its kinds, and its regions (undefined: all) plus region-less jobs. */
export interface JobFilter {
  kinds: string[];
  regions?: string[];
}

const CONFLICT = "ON CONFLICT (kind, key) WHERE key IS NOT NULL AND state = 'pending'";

/**
 * Inserts a job and notifies workers in the same statement (the notification is delivered at the
 * caller's commit). Returns the id, or undefined when a pending job with the same kind and key exists.
 */
export async function jobInsert(db: Queryable, j: JobInsert): Promise<string | undefined> {
  const { rows } = await db.query<{ id: string }>(
    `WITH ins AS (
       INSERT INTO jobs (kind, payload, run_at, key, region, max_attempts)
       VALUES ($1, $2::jsonb, coalesce($3::timestamptz, now()), $4, $5, $6)
       ${CONFLICT} DO NOTHING
       RETURNING id, kind)
     SELECT id, pg_notify($7, kind) FROM ins`,
    [
      j.kind,
      JSON.stringify(j.payload ?? {}),
      j.runAt ?? null,
      j.key ?? null,
      j.region ?? null,
      j.maxAttempts ?? null,
      JOBS_CHANNEL,
    ],
  );
  return rows[0]?.id;
}

/** One statement for many jobs; identical notifications collapse into one at commit. */
export async function jobsInsertMany(db: Queryable, jobs: JobInsert[]): Promise<string[]> {
  if (!jobs.length) return [];
  const { rows } = await db.query<{ id: string }>(
    `WITH ins AS (
       INSERT INTO jobs (kind, payload, run_at, key, region, max_attempts)
       SELECT k, p, coalesce(r, now()), ky, rg, m
       FROM unnest($1::text[], $2::jsonb[], $3::timestamptz[], $4::text[], $5::text[], $6::int[]) AS t (k, p, r, ky, rg, m)
       ${CONFLICT} DO NOTHING
       RETURNING id, kind)
     SELECT id, pg_notify($7, kind) FROM ins`,
    [
      jobs.map((j) => j.kind),
      jobs.map((j) => JSON.stringify(j.payload ?? {})),
      jobs.map((j) => j.runAt ?? null),
      jobs.map((j) => j.key ?? null),
      jobs.map((j) => j.region ?? null),
      jobs.map((j) => j.maxAttempts ?? null),
      JOBS_CHANNEL,
    ],
  );
  return rows.map((r) => r.id);
}

/**
 * Creates the one row of a recurring job (key 'recurring'), or updates its interval and payload.
 * Its schedule is kept across restarts unless the interval changes. Safe when many processes start
 * at once: the unique index jobs_kind_key (0003) makes a concurrent second INSERT wait for the
 * first and take the DO UPDATE branch, so there is never a second row (a recurring row stays
 * 'pending': the worker reschedules it rather than marking it failed).
 */
export async function jobUpsertRecurring(
  db: Queryable,
  j: { kind: KnownJobKind; everyMs: number; maxAttempts: number; payload: unknown; region?: string; firstRunAt?: Date },
): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `WITH up AS (
       INSERT INTO jobs (kind, payload, run_at, key, region, every_ms, max_attempts)
       VALUES ($1, $2::jsonb, coalesce($3::timestamptz, now()), 'recurring', $4, $5, $7)
       ${CONFLICT} DO UPDATE SET
         payload = EXCLUDED.payload, region = EXCLUDED.region, every_ms = EXCLUDED.every_ms, max_attempts = EXCLUDED.max_attempts,
         run_at = CASE WHEN jobs.every_ms IS DISTINCT FROM EXCLUDED.every_ms
                       THEN least(jobs.run_at, now() + EXCLUDED.every_ms * interval '1 millisecond')
                       ELSE jobs.run_at END
       RETURNING id, kind)
     SELECT id, pg_notify($6, kind) FROM up`,
    [
      j.kind,
      JSON.stringify(j.payload ?? {}),
      j.firstRunAt ?? null,
      j.region ?? null,
      j.everyMs,
      JOBS_CHANNEL,
      j.maxAttempts,
    ],
  );
  return rows[0].id;
}

/**
 * Leases up to `limit` due jobs to `workerId`: the lowest priority first, then the oldest run_at.
 * The statement is mailroom_jobs_claim (0033, 0080): per kind of the filter, an ordered walk of
 * jobs_due_kind (kind, priority, run_at) that stops at the LIMIT whatever the table's statistics
 * say; a backlog of kinds this worker does not run is not walked.
 */
export async function jobsClaimDue(
  db: Queryable,
  workerId: string,
  filter: JobFilter,
  limit: number,
  leaseMs: number,
): Promise<JobRow[]> {
  const { rows } = await db.query<JobRow>(
    'SELECT * FROM mailroom_jobs_claim($1::text[], $2::text[], $3::int, $4::text, $5::float8)',
    [filter.kinds, filter.regions ?? null, limit, workerId, leaseMs],
  );
  return rows;
}

/**
 * Milliseconds until the next job this worker could take (0: one is due now), or undefined when
 * none. Jobs under a lease do not count; a due job does, so that a timer that fired a hair before
 * its job was due (the claim found nothing) is followed by another claim, not by maxIdleMs.
 */
export async function jobsNextRunIn(db: Queryable, filter: JobFilter): Promise<number | undefined> {
  // Not greatest(0, ...): greatest ignores NULL, so "no job" became 0 ms and an idle worker
  // claimed in a loop (measured: ~200 empty claims a second, each ~0.5-1.7 ms of PostgreSQL).
  // A function (0080): each kind's first due row in jobs_next_kind (kind, run_at), whatever the
  // statistics were when its plan was made (as a statement over all kinds, one made on a nearly
  // empty queue read the whole table at every call, and any plan walked other kinds' backlogs).
  const { rows } = await db.query<{ ms: number | null }>(
    prepared(db, 'mr_jobs_next_run_in', 'SELECT mailroom_jobs_next_run_in($1::text[], $2::text[]) AS ms', [
      filter.kinds,
      filter.regions ?? null,
    ]),
  );
  const ms = rows[0]?.ms;
  return ms === null || ms === undefined ? undefined : Math.max(0, ms);
}

/** Extends the leases still held; returns the ids whose lease was kept (the others were lost). */
export async function jobsRenewLeases(
  db: Queryable,
  workerId: string,
  ids: string[],
  leaseMs: number,
): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `UPDATE jobs SET locked_until = now() + $3::float8 * interval '1 millisecond'
     WHERE id = ANY($1::bigint[]) AND locked_by = $2 RETURNING id`,
    [ids, workerId, leaseMs],
  );
  return rows.map((r) => r.id);
}

/** Gives jobs back unrun (worker stopping): due at once, and the interrupted run is not counted. */
export async function jobsReleaseLeases(db: Queryable, workerId: string, ids: string[]): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE jobs SET locked_by = NULL, locked_until = NULL, attempts = greatest(attempts - 1, 0)
     WHERE id = ANY($1::bigint[]) AND locked_by = $2`,
    [ids, workerId],
  );
  return rowCount ?? 0;
}

/**
 * Finished one-off jobs, deleted in one statement; returns the ids ended (still leased to us). A job
 * re-armed while it ran (`rearmed`, 0037: automations_wake) is not deleted but due again at once,
 * its lease given up and the workers woken: what was queued after its last look gets a run.
 */
export async function jobsDeleteMany(db: Queryable, workerId: string, ids: string[]): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    // The rows are locked first (FOR UPDATE waits for a re-arm in flight and reads its committed
    // mark): read from the statement's snapshot instead, a mark committed meanwhile made the job
    // neither deleted nor due, but left leased to this worker for its whole lease.
    // A function (0080, the statement of 0037): its plan, kept per session, finds each job by its
    // key whatever the statistics were when it was made.
    prepared(db, 'mr_jobs_delete_many', 'SELECT mailroom_jobs_end($1::bigint[], $2) AS id', [ids, workerId]),
  );
  return rows.map((r) => r.id);
}

/** Runs the job again at `runAt` without counting this run as a failed attempt. */
export async function jobReschedule(db: Queryable, workerId: string, id: string, runAt: Date): Promise<boolean> {
  const { rowCount } = await db.query(
    prepared(
      db,
      'mr_job_reschedule',
      `UPDATE jobs SET run_at = $3, locked_by = NULL, locked_until = NULL, attempts = greatest(attempts - 1, 0)
       WHERE id = $1 AND locked_by = $2`,
      [id, workerId, runAt],
    ),
  );
  return Boolean(rowCount);
}

/** A failed run with attempts left: due again after `delayMs`. */
export async function jobRetryLater(
  db: Queryable,
  workerId: string,
  id: string,
  delayMs: number,
  error: string,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE jobs SET run_at = now() + $3::float8 * interval '1 millisecond', last_error = $4, locked_by = NULL, locked_until = NULL
     WHERE id = $1 AND locked_by = $2`,
    [id, workerId, delayMs, error],
  );
  return Boolean(rowCount);
}

/** A job out of attempts: kept, with its last error, and never claimed again. */
export async function jobMarkFailed(db: Queryable, workerId: string, id: string, error: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE jobs SET state = 'failed', last_error = $3, locked_by = NULL, locked_until = NULL
     WHERE id = $1 AND locked_by = $2`,
    [id, workerId, error],
  );
  return Boolean(rowCount);
}

/**
 * A recurring job's run is over (succeeded, or failed out of attempts when `error` is set): due at
 * the first slot of its interval after now, so slots missed while nothing ran are skipped.
 */
export async function jobRescheduleRecurring(
  db: Queryable,
  workerId: string,
  id: string,
  error: string | null,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE jobs SET
       run_at = run_at + every_ms * (floor(greatest(0, extract(epoch FROM now() - run_at) * 1000) / every_ms) + 1) * interval '1 millisecond',
       attempts = 0, last_error = $3, locked_by = NULL, locked_until = NULL
     WHERE id = $1 AND locked_by = $2`,
    [id, workerId, error],
  );
  return Boolean(rowCount);
}

/** Queue depth per kind and state, and how late the oldest due pending job of each kind is. */
export async function jobsSummary(
  db: Queryable,
): Promise<{ kind: string; state: string; n: number; lag_seconds: number | null }[]> {
  const { rows } = await db.query(
    `SELECT kind, state, count(*)::int AS n,
            extract(epoch FROM now() - min(run_at) FILTER (WHERE state = 'pending' AND run_at <= now() AND (locked_until IS NULL OR locked_until < now())))::float8 AS lag_seconds
     FROM jobs GROUP BY kind, state`,
  );
  return rows;
}

/**
 * Creates a broadcast's expansion job due at `at`, or pulls its pending one forward to `at` (a
 * resumed broadcast must not wait for the paused job's next look). A running job is left alone:
 * it re-reads the broadcast's status before each page.
 */
export async function broadcastJobWake(db: Queryable, broadcastId: string, at: Date | null): Promise<void> {
  await db.query(
    `WITH up AS (
       INSERT INTO jobs (kind, key, payload, run_at) VALUES ('${BROADCAST_EXPAND_JOB}', $1, jsonb_build_object('broadcast_id', $1::text), coalesce($2::timestamptz, now()))
       ${CONFLICT} DO UPDATE SET run_at = EXCLUDED.run_at WHERE jobs.locked_by IS NULL
       RETURNING kind)
     SELECT pg_notify($3, kind) FROM up`,
    [broadcastId, at, JOBS_CHANNEL],
  );
}

/**
 * Pause: the broadcast's delivery jobs not yet started wait (run_at 'infinity') until resumed.
 * Rare and bounded (the expansion keeps at most a window of undelivered emails): its jobs carry
 * the broadcast's id (batches, and the retries they queue); older single-copy jobs are found
 * through the emails index.
 */
const BROADCAST_DELIVERIES = (broadcastId: string, emailCond: string) => `
  j.kind IN ('${DELIVER_JOB}', '${DELIVER_BATCH_JOB}') AND j.state = 'pending'
  AND (j.payload->>'broadcast_id' = ${broadcastId}::uuid::text
       OR j.payload->>'email_id' IN (SELECT id::text FROM emails WHERE broadcast_id = ${broadcastId}::uuid${emailCond}))`;

// Hold and release run in the transaction that moved the broadcast (its row locked first), after
// any change to its emails, and lock the jobs in id order: one order for every pause, resume and
// cancel, the automatic ones included (issue 24). A job a worker holds is left to it (the claim
// skips the rows locked here).
export async function deliverJobsHoldForBroadcast(db: Queryable, broadcastId: string): Promise<number> {
  const { rowCount } = await db.query(
    `WITH l AS MATERIALIZED (
       SELECT j.id FROM jobs j WHERE ${BROADCAST_DELIVERIES('$1', " AND handed_over_at IS NULL AND last_event = 'sent'")} AND j.locked_by IS NULL AND j.run_at <> 'infinity'
       ORDER BY j.id FOR NO KEY UPDATE)
     UPDATE jobs j SET run_at = 'infinity' FROM l WHERE j.id = l.id`,
    [broadcastId],
  );
  return rowCount ?? 0;
}

/** Resume (or cancel: the jobs then find their email canceled): held deliveries are due now. */
export async function deliverJobsReleaseForBroadcast(db: Queryable, broadcastId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `WITH l AS MATERIALIZED (
       SELECT j.id FROM jobs j WHERE ${BROADCAST_DELIVERIES('$1', '')} AND j.run_at = 'infinity' ORDER BY j.id FOR NO KEY UPDATE),
     r AS (
       UPDATE jobs j SET run_at = now() FROM l WHERE j.id = l.id
       RETURNING j.kind),
     woken AS (SELECT pg_notify($2, k) FROM (SELECT DISTINCT kind AS k FROM r) x)
     SELECT (SELECT count(*) FROM r)::int AS n, (SELECT count(*) FROM woken) AS woken`,
    [broadcastId, JOBS_CHANNEL],
  );
  return rows[0].n;
}

/**
 * An erasure's pass over pending jobs (privacy/erase.job.ts): the address (`re`, a PostgreSQL
 * pattern) replaced by `replacement` in the payloads of the team's jobs and of deliveries of its
 * emails, so a delivery not yet made goes nowhere. `selfId`: the erasure's own job, left alone.
 */
export async function jobsRedactPending(
  db: Queryable,
  teamId: string,
  re: string,
  replacement: string,
  selfId: string,
): Promise<number> {
  const redacted = `regexp_replace(t.payload::text, $2, $3, 'gi')::jsonb`;
  const { rowCount } = await db.query(
    `UPDATE jobs t SET payload = ${redacted}
     WHERE t.payload::text ~* $2 AND t.id <> $4::bigint AND (t.payload->>'team_id' = $1::text
       OR (t.kind = '${DELIVER_JOB}'
         AND t.payload->>'email_id' IN (SELECT id::text FROM emails WHERE team_id = $1::text::uuid)))`,
    [teamId, re, replacement, selfId],
  );
  return rowCount ?? 0;
}
