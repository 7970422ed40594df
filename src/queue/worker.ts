// Runs jobs: claims due jobs in batches, runs their handlers with at most `concurrency` in flight,
// keeps their leases alive, and records each outcome. Knows no job kinds: the composition root
// passes the handlers, each for a kind registered in store/jobs.ts (any other is refused at
// construction), and claims only those kinds. A kind with a batch handler is handed the claimed jobs of that kind together,
// as one unit (one slot); a worker whose kinds all have batch handlers claims up to `batchSize`
// jobs per unit. SQL is in store/jobs.ts.
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { sessionConfig, type Pool } from '../store/db.js';
import type { Logger } from '../lib/log.js';
import {
  isJobKind,
  JOBS_CHANNEL,
  jobsDeleteMany,
  jobMarkFailed,
  jobReschedule,
  jobRescheduleRecurring,
  jobRetryLater,
  jobsClaimDue,
  jobsNextRunIn,
  jobsReleaseLeases,
  jobsRenewLeases,
  type JobFilter,
  type JobRow,
} from '../store/jobs.js';
import { backoffMs, type BackoffOptions } from './backoff.js';
import { retryWhileUnavailable } from '../store/unavailable.js';
import { type JobListener, type JobSubscriber, sharedJobListener } from './listener.js';
import { Batcher } from './batcher.js';

export interface Job<P = unknown> {
  id: string;
  kind: string;
  payload: P;
  key: string | null;
  region: string | null;
  runAt: Date;
  attempt: number; // 1 on the first run; runs ended by { retryAt } are not counted
  maxAttempts: number | null;
  recurring: boolean;
  createdAt: Date;
}

/**
 * What a handler may return instead of nothing (done). Throwing is a failure, retried with backoff.
 * `ended`: the handler deleted its job itself, in the transaction of its last write (a one-off job
 * only; delivery: store/emails.ts `endJob`), so the worker writes nothing for it.
 */
export type JobOutcome = { retryAt: Date } | { done: true } | { ended: true };

export interface JobContext {
  workerId: string;
  log: Logger;
  signal: AbortSignal; // aborted when the lease was lost or the worker stopped without waiting
}

// `any` so that a handler can declare its payload type and still sit in one handlers record.
export type Handler<P = any> = (job: Job<P>, ctx: JobContext) => Promise<void | JobOutcome>;
/**
 * Many jobs of one kind at once. Returns nothing (all done), or one result per job in order: its
 * outcome, or `{ error }` (that job failed, retried with backoff). Throwing fails every job.
 */
export type BatchHandler<P = any> = (
  jobs: Job<P>[],
  ctx: JobContext,
) => Promise<void | (void | JobOutcome | { error: unknown })[]>;

export interface WorkerOptions {
  pool: Pool;
  log: Logger;
  id?: string;
  handlers: Record<string, Handler>;
  batchHandlers?: Record<string, BatchHandler>; // kinds whose claimed jobs are handed over together
  concurrency?: number; // handlers (or batch units) in flight at most (default 10)
  batchSize?: number; // jobs per claim at most (default: concurrency; a worker of batch kinds only: per unit)
  refillAt?: number; // while more jobs are due than slots, claim again once this many slots are free (default batchSize / 4)
  leaseMs?: number; // default 60 s; renewed every leaseMs/3 while a handler runs
  regions?: string[]; // undefined: jobs of any region; otherwise these and region-less jobs
  kinds?: string[]; // default: every kind in handlers
  maxIdleMs?: number; // longest wait between claims when no job is due (default min(5 s, leaseMs))
  stopTimeoutMs?: number; // how long stop() waits for handlers (default 30 s)
  /** At stop, when handlers are still running at the timeout: after their signals are aborted, before their leases are given back (cut what they may still do). */
  onStopTimeout?: () => void;
  backoff?: BackoffOptions;
}

interface Running {
  abort: AbortController;
  settling: boolean; // the handler returned and freed its slot; its outcome is being written
  released: boolean; // stop() gave the lease back; the outcome must not be written
  done: Promise<void>;
}

export class Worker {
  readonly id: string;
  private readonly pool: Pool;
  private readonly log: Logger;
  private readonly handlers: Record<string, Handler>;
  private readonly batchHandlers: Record<string, BatchHandler>;
  private readonly onlyBatches: boolean; // every kind has a batch handler: a claim is one unit per kind
  private readonly filter: JobFilter;
  private readonly concurrency: number;
  private readonly batchSize: number;
  private readonly refillAt: number;
  private readonly leaseMs: number;
  private readonly maxIdleMs: number;
  private readonly stopTimeoutMs: number;
  private readonly onStopTimeout: (() => void) | undefined;
  private readonly backoff: BackoffOptions;
  private readonly listener: JobListener;
  private readonly doorbell: JobSubscriber;
  private readonly running = new Map<string, Running>(); // until the outcome is written
  private busy = 0; // handlers executing: what `concurrency` bounds
  // Finished jobs are deleted in batches, and a handler's slot is freed before its delete, so the
  // next claim overlaps it. 2,000 no-op jobs, 2 workers x 10, 2-core machine: one DELETE per job and
  // slot held until written, 600-1,200 jobs/s (claims of ~4 jobs); as here, 2,600-3,900 jobs/s.
  private readonly deletes = new Batcher<string, boolean>(async (ids) => {
    const deleted = new Set(await jobsDeleteMany(this.pool, this.id, ids));
    return ids.map((id) => deleted.has(id));
  });
  private started = false;
  private wanted = false; // a claim may find something: woken, or the last claim was full
  // The last claim was full: more jobs are due than slots. Claims then wait for `refillAt` free
  // slots instead of taking one job per finished one. Measured on the 2-core box, delivery with
  // concurrency 50: claims of ~2 jobs, each ~1.7 ms of PostgreSQL time (it steps over the leased
  // rows), were 45% of the database's time per message.
  private backlog = false;
  private loop: Promise<void> | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private idleUntil = 0; // when idleTimer fires
  private renewTimer: NodeJS.Timeout | undefined;

  constructor(opts: WorkerOptions) {
    this.id = opts.id ?? `${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
    this.pool = opts.pool;
    this.log = opts.log.child({ worker: this.id });
    this.handlers = opts.handlers;
    this.batchHandlers = opts.batchHandlers ?? {};
    const kinds = opts.kinds ?? [...Object.keys(opts.handlers), ...Object.keys(this.batchHandlers)];
    const missing = kinds.filter(
      (k) => typeof opts.handlers[k] !== 'function' && typeof this.batchHandlers[k] !== 'function',
    );
    if (missing.length) throw new Error(`no handler for job kinds: ${missing.join(', ')}`);
    const unregistered = [
      ...new Set([...kinds, ...Object.keys(opts.handlers), ...Object.keys(this.batchHandlers)]),
    ].filter((k) => !isJobKind(k));
    if (unregistered.length)
      throw new Error(`job kinds not registered (store/jobs.ts JOB_KINDS): ${unregistered.join(', ')}`);
    this.onlyBatches = kinds.length > 0 && kinds.every((k) => typeof this.batchHandlers[k] === 'function');
    this.filter = { kinds, regions: opts.regions };
    this.concurrency = opts.concurrency ?? 10;
    this.batchSize = opts.batchSize ?? this.concurrency;
    this.refillAt = this.onlyBatches
      ? 1
      : Math.min(this.concurrency, Math.max(1, opts.refillAt ?? Math.floor(this.batchSize / 4)));
    this.leaseMs = opts.leaseMs ?? 60_000;
    this.maxIdleMs = opts.maxIdleMs ?? Math.min(5_000, this.leaseMs);
    this.stopTimeoutMs = opts.stopTimeoutMs ?? 30_000;
    this.onStopTimeout = opts.onStopTimeout;
    this.backoff = opts.backoff ?? {};
    // LISTEN needs a session of its own: PostgreSQL itself, never a transaction-mode pooler. One
    // per process (per pool), shared by its workers, each of which filters the kinds it runs.
    this.listener = sharedJobListener(this.pool, () => ({
      config: { ...sessionConfig(this.pool), application_name: 'mailroom-jobs-listener' },
      channel: JOBS_CHANNEL,
      log: this.log,
    }));
    this.doorbell = {
      onNotify: (kind) => {
        if (!kind || this.filter.kinds.includes(kind)) this.wake();
      },
      onConnect: () => this.wake(),
    };
  }

  /** Resolves once LISTENing (or, if the database is unreachable, once a reconnect is scheduled). */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.renewTimer = setInterval(() => void this.renewLeases(), Math.max(50, this.leaseMs / 3));
    await this.listener.subscribe(this.doorbell);
    this.wake();
    this.log.info('worker started', {
      kinds: this.filter.kinds,
      regions: this.filter.regions,
      concurrency: this.concurrency,
    });
  }

  /**
   * Stops claiming, waits up to `timeoutMs` for running handlers, then gives the leases of those still
   * running back (they are due again at once, elsewhere) and aborts their signals.
   */
  async stop(timeoutMs = this.stopTimeoutMs): Promise<void> {
    if (!this.started) return;
    this.started = false;
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    const listenerClosed = this.listener.unsubscribe(this.doorbell);
    await this.loop;
    let timer: NodeJS.Timeout | undefined;
    const drained = Promise.all([...this.running.values()].map((r) => r.done)).then(() => true);
    const inTime = await Promise.race([
      drained,
      new Promise<boolean>((r) => {
        timer = setTimeout(() => r(false), timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    clearInterval(this.renewTimer);
    if (!inTime) {
      const ids = [...this.running].filter(([, r]) => !r.settling).map(([id]) => id);
      for (const id of ids) {
        const r = this.running.get(id)!;
        r.released = true;
        r.abort.abort(new Error('worker stopped'));
      }
      try {
        this.onStopTimeout?.();
      } catch (err) {
        this.log.error('stop-timeout hook failed', { err });
      }
      await jobsReleaseLeases(this.pool, this.id, ids).catch((err) =>
        this.log.error('could not release leases; they will expire', { err, ids }),
      );
      this.log.warn('worker stopped with handlers still running; their jobs were released', { jobIds: ids });
    }
    await listenerClosed;
    this.log.info('worker stopped');
  }

  private wake(): void {
    this.wanted = true;
    if (!this.started || this.loop || !this.hasRoom()) return;
    this.loop = this.claimLoop().finally(() => {
      this.loop = undefined;
      if (this.wanted && this.started && this.hasRoom()) this.wake();
    });
  }

  /** Free slots enough for a claim: one, or `refillAt` while jobs are known to be waiting. */
  private hasRoom(): boolean {
    return this.concurrency - this.busy >= (this.backlog ? this.refillAt : 1);
  }

  private async claimLoop(): Promise<void> {
    while (this.started && this.wanted && this.hasRoom()) {
      this.wanted = false;
      const limit = this.onlyBatches ? this.batchSize : Math.min(this.batchSize, this.concurrency - this.busy);
      let rows: JobRow[];
      try {
        rows = await jobsClaimDue(this.pool, this.id, this.filter, limit, this.leaseMs);
      } catch (err) {
        this.log.error('could not claim jobs', { err });
        this.wanted = false;
        this.sleep(Math.min(1_000, this.maxIdleMs));
        return;
      }
      if (!this.started) {
        // stop() was called while claiming: hand these straight back rather than start them.
        await jobsReleaseLeases(
          this.pool,
          this.id,
          rows.map((r) => r.id),
        ).catch((err) => this.log.warn('could not release leases; they will expire', { err }));
        return;
      }
      const units = new Map<string, JobRow[]>();
      const foreign: JobRow[] = [];
      for (const row of rows) {
        if (this.batchHandlers[row.kind]) units.set(row.kind, [...(units.get(row.kind) ?? []), row]);
        else if (this.handlers[row.kind]) this.run(row);
        else foreign.push(row);
      }
      if (foreign.length) this.giveBack(foreign);
      for (const unit of units.values()) this.runBatch(unit);
      this.backlog = rows.length === limit;
      if (this.backlog) this.wanted = true; // a full batch: there may be more
    }
    if (!this.wanted) void this.sleepUntilNextDue();
  }

  /**
   * Jobs of a kind this worker has no handler for (one a newer version writes, say) are left to a
   * process that knows them: the claim takes only this worker's kinds, so this is a defence, not a
   * path. Given back unrun, due at once; this worker's claims never match them again.
   */
  private giveBack(rows: JobRow[]): void {
    this.log.error('claimed jobs of a kind this worker does not run; giving them back unrun', {
      jobIds: rows.map((r) => r.id),
      kinds: [...new Set(rows.map((r) => r.kind))],
    });
    void jobsReleaseLeases(
      this.pool,
      this.id,
      rows.map((r) => r.id),
    ).catch((err) => this.log.warn('could not release leases; they will expire', { err }));
  }

  /** Nothing due now: wake when the next scheduled job is, or after maxIdleMs (expired leases). */
  private async sleepUntilNextDue(): Promise<void> {
    let ms = this.maxIdleMs;
    try {
      const next = await jobsNextRunIn(this.pool, this.filter);
      if (next !== undefined) ms = Math.min(ms, next);
    } catch (err) {
      this.log.warn('could not read the next due time', { err });
    }
    this.sleep(ms);
  }

  /** Wakes after `ms`, unless an earlier wake-up is already set (a longer sleep never hides it). */
  private sleep(ms: number): void {
    if (!this.started) return;
    const until = Date.now() + ms;
    if (this.idleTimer && this.idleUntil <= until) return;
    clearTimeout(this.idleTimer);
    this.idleUntil = until;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      this.wake();
    }, ms);
  }

  private run(row: JobRow): void {
    const r: Running = { abort: new AbortController(), settling: false, released: false, done: Promise.resolve() };
    this.running.set(row.id, r);
    this.busy++;
    r.done = this.execute(row, r).finally(() => this.running.delete(row.id));
  }

  private async execute(row: JobRow, r: Running): Promise<void> {
    const log = this.log.child({ jobId: row.id, kind: row.kind, attempt: row.attempts });
    let outcome: void | JobOutcome = undefined;
    let failure: { err: unknown } | undefined;
    try {
      outcome = await this.handlers[row.kind](toJob(row), { workerId: this.id, log, signal: r.abort.signal });
    } catch (err) {
      failure = { err };
    }
    if (this.freeSlot(r)) await this.settle(row, failure, outcome, log);
  }

  /** One unit of jobs of one batch kind: one slot, one handler call, every job's outcome written. */
  private runBatch(rows: JobRow[]): void {
    const r: Running = { abort: new AbortController(), settling: false, released: false, done: Promise.resolve() };
    for (const row of rows) this.running.set(row.id, r);
    this.busy++;
    r.done = this.executeBatch(rows, r).finally(() => {
      for (const row of rows) this.running.delete(row.id);
    });
  }

  private async executeBatch(rows: JobRow[], r: Running): Promise<void> {
    const log = this.log.child({ kind: rows[0].kind, jobs: rows.length });
    let results: void | (void | JobOutcome | { error: unknown })[] = undefined;
    let failure: { err: unknown } | undefined;
    try {
      results = await this.batchHandlers[rows[0].kind](rows.map(toJob), {
        workerId: this.id,
        log,
        signal: r.abort.signal,
      });
    } catch (err) {
      failure = { err };
    }
    if (!this.freeSlot(r)) return;
    await Promise.all(
      rows.map((row, i) => {
        const res = results?.[i];
        const failed = failure ?? (res && 'error' in res ? { err: res.error } : undefined);
        return this.settle(
          row,
          failed,
          failed ? undefined : (res as void | JobOutcome),
          this.log.child({ jobId: row.id, kind: row.kind, attempt: row.attempts }),
        );
      }),
    );
  }

  /** The handler returned: frees its slot before the outcome is written (the next claim overlaps the write); false when released. */
  private freeSlot(r: Running): boolean {
    r.settling = true;
    this.busy--;
    if (this.wanted) this.wake();
    return !r.released;
  }

  private async settle(
    row: JobRow,
    failure: { err: unknown } | undefined,
    outcome: void | JobOutcome,
    log: Logger,
  ): Promise<void> {
    try {
      const kept = failure ? await this.recordFailure(row, failure.err, log) : await this.recordOutcome(row, outcome);
      if (!kept) log.warn("the job's lease was taken over before it finished; it may have run twice");
    } catch (err) {
      log.error("could not record the job's outcome; it will run again when its lease expires", { err });
    }
  }

  /**
   * Writes an outcome, waiting through a database restart or failover: a job whose outcome is not
   * written runs again once its lease ends, repeating what it did.
   */
  private write(fn: () => Promise<boolean>): Promise<boolean> {
    return retryWhileUnavailable(fn, { log: this.log, what: "recording a job's outcome", maxMs: this.leaseMs * 2 });
  }

  private recordOutcome(row: JobRow, outcome: void | JobOutcome): Promise<boolean> {
    if (outcome && 'retryAt' in outcome) {
      // Not notified: without this, a job due again in 10 ms could wait out a whole idle sleep.
      return this.write(() => jobReschedule(this.pool, this.id, row.id, outcome.retryAt)).finally(() =>
        this.sleep(outcome.retryAt.getTime() - Date.now()),
      );
    }
    if (row.every_ms !== null) return this.rescheduleRecurring(row, null);
    if (outcome && 'ended' in outcome) return Promise.resolve(true);
    return this.write(() => this.deletes.add(row.id));
  }

  private recordFailure(row: JobRow, err: unknown, log: Logger): Promise<boolean> {
    const error = errorText(err);
    if (row.max_attempts === null || row.attempts < row.max_attempts) {
      const delayMs = backoffMs(row.attempts, this.backoff);
      log.warn('job failed; will retry', { err, retryInMs: delayMs });
      // Not notified either: wake for it (nothing else would before maxIdleMs).
      return this.write(() => jobRetryLater(this.pool, this.id, row.id, delayMs, error)).finally(() =>
        this.sleep(delayMs),
      );
    }
    if (row.every_ms !== null) {
      log.error('recurring job failed on every attempt; skipping to its next run', {
        err,
        maxAttempts: row.max_attempts,
      });
      return this.rescheduleRecurring(row, error);
    }
    log.error('job failed on every attempt; kept in state failed', { err, maxAttempts: row.max_attempts });
    return this.write(() => jobMarkFailed(this.pool, this.id, row.id, error));
  }

  /** The next run is a slot of the job's interval: wake for whichever job is due first. */
  private rescheduleRecurring(row: JobRow, error: string | null): Promise<boolean> {
    return this.write(() => jobRescheduleRecurring(this.pool, this.id, row.id, error)).finally(
      () => void this.sleepUntilNextDue(),
    );
  }

  /** One statement for every running handler; a lease found lost aborts its handler's signal. */
  private async renewLeases(): Promise<void> {
    const ids = [...this.running].filter(([, r]) => !r.settling && !r.abort.signal.aborted).map(([id]) => id);
    if (!ids.length) return;
    try {
      const kept = new Set(await jobsRenewLeases(this.pool, this.id, ids, this.leaseMs));
      for (const id of ids) {
        const r = this.running.get(id);
        if (kept.has(id) || !r || r.settling) continue;
        this.log.warn('lost the lease of a running job; aborting it', { jobId: id });
        r.abort.abort(new Error('lease lost'));
      }
    } catch (err) {
      this.log.warn('could not renew leases', { err });
    }
  }
}

function toJob(row: JobRow): Job {
  return {
    id: row.id,
    kind: row.kind,
    payload: row.payload,
    key: row.key,
    region: row.region,
    runAt: row.run_at,
    attempt: row.attempts,
    maxAttempts: row.max_attempts,
    recurring: row.every_ms !== null,
    createdAt: row.created_at,
  };
}

function errorText(err: unknown): string {
  const text = err instanceof Error ? (err.stack ?? `${err.name}: ${err.message}`) : String(err);
  return text.slice(0, 4_000);
}
