// The automations.wake job: a delay elapsed or a wait timed out. The timer worker claims due
// wake-ups in batches (up to a few hundred) and resumes a whole batch in one transaction: the runs
// locked (by id), then their steps (by run, key), each automation read once, and one statement
// completes the waiting steps, makes the following steps pending with their jobs and completes
// the runs left with nothing to do. A wake-up whose run ended or whose step is no longer waiting
// (the event came first, or the run was stopped) does nothing: run again after a crash, a batch
// repeats nothing. Should a batch fail as a whole, its wake-ups are taken one per transaction, so
// one bad wake-up cannot hold the others back.
import type { Logger } from '../lib/log.js';
import type { BatchHandler, Job, JobOutcome } from '../queue/worker.js';
import { automationsByIds, type AutomationRow } from '../store/automations.js';
import {
  automationRunEnd,
  automationRunFind,
  automationRunsLock,
  runStepFind,
  runStepSet,
  runStepsLock,
} from '../store/automation-runs.js';
import { withTx, type Pool } from '../store/db.js';
import { runsCompleteAndAdvance, type Completion, type StepJob } from './run.js';

/** Resumes these waiting steps (delays elapsed, waits timed out) in one transaction. */
export async function wakeUpMany(pool: Pool, wakes: Pick<StepJob, 'run_id' | 'key'>[]): Promise<void> {
  const seen = new Set<string>();
  const items = wakes.filter((w) => !seen.has(`${w.run_id}:${w.key}`) && seen.add(`${w.run_id}:${w.key}`));
  if (!items.length) return;
  await withTx(pool, async (tx) => {
    const runs = new Map(
      (await automationRunsLock(tx, [...new Set(items.map((w) => w.run_id))])).map((r) => [r.id, r]),
    );
    const open = items.filter((w) => runs.get(w.run_id)?.status === 'running');
    const waiting = (await runStepsLock(tx, open)).filter((s) => s.status === 'waiting');
    if (!waiting.length) return;
    const automations = new Map<string, AutomationRow>(
      (await automationsByIds(tx, [...new Set(waiting.map((s) => runs.get(s.run_id)!.automation_id))])).map((a) => [
        a.id,
        a,
      ]),
    );
    const resumed: Completion[] = [];
    for (const s of waiting) {
      const run = runs.get(s.run_id)!;
      const a = automations.get(run.automation_id);
      const step = a?.team_id === run.team_id ? a.steps.find((x) => x.key === s.key) : undefined;
      if (!a || !step) {
        // rare: one at a time
        await runStepSet(tx, s.run_id, s.key, {
          status: 'failed',
          error: { message: 'the automation or step no longer exists' },
        });
        await automationRunEnd(tx, s.run_id, 'failed');
        continue;
      }
      const timedOut = step.type === 'wait_for_event';
      resumed.push({
        a,
        runId: s.run_id,
        key: s.key,
        output: timedOut ? { timed_out: true } : { delayed: step.config.duration },
        type: timedOut && a.connections.some((c) => c.from === s.key && c.type === 'timeout') ? 'timeout' : 'default',
      });
    }
    await runsCompleteAndAdvance(tx, resumed);
  });
}

const MAX_ATTEMPTS = 5; // as automations.step: then the step and its run fail, visibly

/** A wake-up that failed on its last attempt: its step and run fail (if the step still waits). */
async function wakeFailed(pool: Pool, w: Pick<StepJob, 'run_id' | 'key'>, err: unknown): Promise<void> {
  await withTx(pool, async (tx) => {
    const run = await automationRunFind(tx, w.run_id, true);
    const s = await runStepFind(tx, w.run_id, w.key, true);
    if (!run || run.status !== 'running' || s?.status !== 'waiting') return;
    await runStepSet(tx, w.run_id, w.key, { status: 'failed', error: { message: (err as Error).message } });
    await automationRunEnd(tx, w.run_id, 'failed');
  });
}

/**
 * The batch handler: the whole batch at once; on failure, each wake-up alone: a failing one is
 * retried with backoff, and on its last attempt fails its step and run (as automations.step does).
 */
export function automationWakeJob(deps: { pool: Pool; log: Logger }): BatchHandler<StepJob> {
  const failed = async (j: Job<StepJob>, error: unknown): Promise<{ error: unknown } | void> => {
    if (j.attempt < (j.maxAttempts ?? MAX_ATTEMPTS)) return { error };
    deps.log.warn('automation wake-up failed', {
      run_id: j.payload.run_id,
      key: j.payload.key,
      err: (error as Error).message,
    });
    try {
      await wakeFailed(deps.pool, j.payload, error);
    } catch (err) {
      return { error: err };
    }
  };
  return async (jobs: Job<StepJob>[]): Promise<(void | JobOutcome | { error: unknown })[] | void> => {
    try {
      await wakeUpMany(
        deps.pool,
        jobs.map((j) => j.payload),
      );
      return;
    } catch (err) {
      if (jobs.length === 1) return [await failed(jobs[0], err)];
      deps.log.warn('automations: a batch of wake-ups failed as a whole; taking them one at a time', {
        jobs: jobs.length,
        err: (err as Error).message,
      });
    }
    const out: ({ error: unknown } | void)[] = [];
    for (const j of jobs) {
      try {
        await wakeUpMany(deps.pool, [j.payload]);
        out.push(undefined);
      } catch (error) {
        out.push(await failed(j, error));
      }
    }
    return out;
  };
}
