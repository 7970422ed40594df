// The `contacts.bulk` job: a large bulk operation (contacts/bulk.ts) walked from its saved cursor in
// batches; a re-run (lease lost, crash) resumes after the last committed batch. A selection that can
// no longer be evaluated (its segment was deleted) ends the operation as failed.
import { AppError } from '../errors.js';
import type { Job, JobContext } from '../queue/worker.js';
import { bulkFind, bulkProgress } from '../store/contact-bulk.js';
import { withTx, type Pool } from '../store/db.js';
import { bulkRun, storedMatch } from './bulk.js';

export interface BulkPayload {
  operation_id: string;
}

export function contactBulkJob(deps: { pool: Pool }) {
  const { pool } = deps;
  return async (job: Job<BulkPayload>, ctx: JobContext): Promise<void> => {
    const op = await bulkFind(pool, null, job.payload.operation_id);
    if (!op || op.status === 'completed' || op.status === 'failed') return;
    let match;
    try {
      match = await storedMatch(pool, op);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      await withTx(pool, (tx) =>
        bulkProgress(tx, op.id, { processed: 0, changed: 0, cursor: null, status: 'failed', error: err.message }),
      );
      return;
    }
    const started = Date.now();
    try {
      await bulkRun(pool, op, match, ctx.signal);
    } catch (err) {
      // retried from the saved cursor; on the last attempt the operation says it failed
      if (job.maxAttempts !== null && job.attempt >= job.maxAttempts) {
        await withTx(pool, (tx) =>
          bulkProgress(tx, op.id, {
            processed: 0,
            changed: 0,
            cursor: null,
            status: 'failed',
            error: 'The operation could not be completed (an internal error; see the server log).',
          }),
        );
        ctx.log.error('contact bulk operation failed', { operationId: op.id, err });
        return;
      }
      throw err;
    }
    ctx.log.info('contact bulk operation completed', {
      operationId: op.id,
      action: op.action,
      ms: Date.now() - started,
    });
  };
}
