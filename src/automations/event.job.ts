// The automations.event job (one at a time: key 'wake', armed by automations_wake of migration 0025):
// takes the queued events (automation_event_queue) in the order they were recorded and starts and
// resumes the runs they concern, then they leave the queue, in one transaction per batch. Two writers
// fill the queue in SQL, not through this module: custom events from customEventsInsertBatch
// (store/custom-events.ts, POST /events/send), and system events from the trigger
// email_events_automations on email_events (function automations_record_system_events, migration 0025).
// A batch is handled set-based (automationsOnEvents); should that fail, it is rolled back (a
// savepoint) and its events are taken one at a time, each a list of one in its own savepoint: an
// event whose handling fails is rolled back alone, logged and dropped, so it cannot block the queue.
// A batch repeated after a crash repeats nothing: its queue rows left with its effects.
import type { Logger } from '../lib/log.js';
import type { Job } from '../queue/worker.js';
import { withTx, type Pool } from '../store/db.js';
import { automationEventQueueDelete, automationEventQueueHead } from '../store/automations.js';
import { automationsOnEvents, type QueuedEvent } from './run.js';

/** Events per transaction: 200 → 500 took the set-based consumer from ~1,970 to ~2,270 events/s (2-core box, load 4.5). */
export const AUTOMATION_EVENT_BATCH = 500;
/** Serializes handlers (a run whose lease expired may overlap the next): the queue is taken in order, by one at a time. */
const QUEUE_LOCK = 7_317_015;

export function automationEventJob(deps: { pool: Pool; log: Logger }) {
  return async (_job: Job<unknown>): Promise<void> => {
    for (let round = 0; round < 1000; round++) {
      const n = await withTx(deps.pool, async (tx) => {
        await tx.query('SELECT pg_advisory_xact_lock($1)', [QUEUE_LOCK]);
        const head = await automationEventQueueHead(tx, AUTOMATION_EVENT_BATCH);
        if (!head.length) return 0;
        const events = head.filter((e): e is QueuedEvent & { seq: string } => e.id !== null);
        await tx.query('SAVEPOINT batch');
        try {
          await automationsOnEvents(tx, events);
          await tx.query('RELEASE SAVEPOINT batch');
          await automationEventQueueDelete(
            tx,
            head.map((e) => e.seq),
          );
          return head.length;
        } catch (err) {
          await tx.query('ROLLBACK TO SAVEPOINT batch');
          deps.log.warn('automations: a batch of events failed as a whole; taking its events one at a time', {
            events: events.length,
            err: (err as Error).message,
          });
        }
        for (const e of events) {
          await tx.query('SAVEPOINT ev');
          try {
            await automationsOnEvents(tx, [e]);
            await tx.query('RELEASE SAVEPOINT ev');
          } catch (err) {
            await tx.query('ROLLBACK TO SAVEPOINT ev');
            deps.log.warn('automations: an event could not be handled; dropped', {
              event_id: e.id,
              name: e.name,
              err: (err as Error).message,
            });
          }
        }
        await automationEventQueueDelete(
          tx,
          head.map((e) => e.seq),
        );
        return head.length;
      });
      if (n < AUTOMATION_EVENT_BATCH) return;
    }
  };
}
