// Putting work on the queue. Takes the caller's transaction (or the pool) so that a fact and its job
// commit together; workers are notified at that commit and not before.
import type { Queryable } from '../store/db.js';
import { jobInsert, jobsInsertMany, jobUpsertRecurring, type KnownJobKind } from '../store/jobs.js';

export { JOB_KINDS, registerJobKinds, type JobKind, type KnownJobKind } from '../store/jobs.js';

/** Attempts a job gets unless it says otherwise; with the default backoff about 10 hours of retries. */
export const DEFAULT_MAX_ATTEMPTS = 25;

/** A recurring run that fails this many times is logged and left for its next slot. */
export const RECURRING_MAX_ATTEMPTS = 5;

export interface NewJob<P = unknown> {
  kind: KnownJobKind; // registered in store/jobs.ts JOB_KINDS (or, in a test, declared by registerJobKinds)
  payload: P;
  runAt?: Date; // default: now
  key?: string; // while a job of this kind and key is pending or running, enqueueing another is a no-op
  region?: string; // only workers serving this region run it; undefined: any worker
  maxAttempts?: number | null; // null: retried until it succeeds
}

const row = (j: NewJob) => ({ ...j, maxAttempts: j.maxAttempts === undefined ? DEFAULT_MAX_ATTEMPTS : j.maxAttempts });

/** Returns the new job's id, or undefined when deduplicated by `key`. */
export function enqueue<P>(db: Queryable, job: NewJob<P>): Promise<string | undefined> {
  return jobInsert(db, row(job));
}

/** One statement; returns the ids of the jobs inserted (those not deduplicated by `key`). */
export function enqueueMany(db: Queryable, jobs: NewJob[]): Promise<string[]> {
  return jobsInsertMany(db, jobs.map(row));
}

/**
 * Makes `kind` run every `everyMs` on one worker at a time: call it at every start-up, from any
 * number of processes (there is one row per kind, key 'recurring'). The first run is at `firstRunAt`
 * (default now); after each run the job is due at the next multiple of `everyMs` from its previous
 * due time, skipping slots missed while nothing ran. A run that throws is retried with backoff up to
 * RECURRING_MAX_ATTEMPTS times, then logged and left for its next slot. The handler is registered
 * with a worker like any other.
 */
export function scheduleRecurring(
  db: Queryable,
  kind: KnownJobKind,
  everyMs: number,
  opts: { payload?: unknown; region?: string; firstRunAt?: Date } = {},
): Promise<string> {
  if (!Number.isInteger(everyMs) || everyMs <= 0)
    throw new RangeError(`everyMs must be a positive integer, got ${everyMs}`);
  return jobUpsertRecurring(db, {
    kind,
    everyMs,
    maxAttempts: RECURRING_MAX_ATTEMPTS,
    payload: opts.payload ?? {},
    region: opts.region,
    firstRunAt: opts.firstRunAt,
  });
}
