// The system-event job (automations.event): a `resend:` event recorded by the trigger of migration
// 0025 in the happening's transaction starts and resumes runs here, in one transaction, as
// POST /events/send does for custom events. A repeat (the worker died after committing) starts
// nothing twice: a run names its trigger event (automation_runs_trigger_event), and a completed
// wait no longer waits.
import type { Job } from '../queue/worker.js';
import { customEventFindById } from '../store/custom-events.js';
import { withTx, type Pool } from '../store/db.js';
import { automationsOnEvent } from './run.js';

export function automationEventJob(deps: { pool: Pool }) {
  return async (job: Job<{ event_id: string }>): Promise<void> => {
    await withTx(deps.pool, async (tx) => {
      const e = await customEventFindById(tx, job.payload.event_id);
      if (e) await automationsOnEvent(tx, e.team_id, e);
    });
  };
}
