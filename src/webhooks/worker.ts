// The webhook worker: its own queue Worker (so that endpoints that are slow to answer can never
// take the slots of email deliveries) running fan-out, per-endpoint delivery, the sweep and the
// retention of the webhook log. The composition root starts it in the worker role.
import type { Config } from '../config/schema.js';
import type { Sealer } from '../lib/crypto.js';
import type { Logger } from '../lib/log.js';
import { scheduleRecurring } from '../queue/enqueue.js';
import { Worker } from '../queue/worker.js';
import type { Pool } from '../store/db.js';
import { webhookMessagesDeleteOlderThan } from '../store/webhook-messages.js';
import {
  WEBHOOK_DELIVER_JOB,
  WEBHOOK_DISPATCH_JOB,
  WEBHOOK_RETENTION_JOB,
  WEBHOOK_SWEEP_JOB,
  webhookEndpointsWakeDue,
} from '../store/webhook-outbox.js';
import { webhookDeliverJob } from './deliver.job.js';
import { dispatchAll, webhookDispatchJob } from './dispatch.job.js';
import { WebhookHttp } from './http-post.js';

const SWEEP_MS = 5_000; // the longest a message can wait when a wake-up was lost to a race
const CONCURRENCY = 100; // endpoints served at once (each job is one endpoint)

export interface WebhookWorker {
  stop(): Promise<void>;
}

export async function startWebhookWorker(deps: {
  pool: Pool;
  config: Config;
  sealer: Sealer;
  log: Logger;
}): Promise<WebhookWorker> {
  const { pool, config } = deps;
  const log = deps.log.child({ component: 'webhooks' });
  const http = new WebhookHttp({
    allowPrivateNetworks: config.allowPrivateNetworks,
    timeoutMs: config.webhookTimeoutMs,
    maxSockets: config.webhookConcurrency,
  });
  const worker = new Worker({
    pool,
    log,
    concurrency: CONCURRENCY,
    stopTimeoutMs: config.shutdownTimeoutMs,
    // Requests still running at the shutdown timeout are cut before their jobs are given back, so
    // none is still being sent from here once another process has the job.
    onStopTimeout: () => http.close(),
    handlers: {
      [WEBHOOK_DISPATCH_JOB]: webhookDispatchJob({ pool }),
      [WEBHOOK_DELIVER_JOB]: webhookDeliverJob({ pool, config, sealer: deps.sealer, http, log }),
      [WEBHOOK_SWEEP_JOB]: async () => {
        await dispatchAll(pool);
        await webhookEndpointsWakeDue(pool);
      },
      [WEBHOOK_RETENTION_JOB]: async () => {
        // A team's shorter setting (team_retention.webhook_payloads_days) too; batch after batch.
        for (let i = 0; i < 200 && (await webhookMessagesDeleteOlderThan(pool, config.logRetentionDays)) > 0; i++);
      },
    },
  });
  await scheduleRecurring(pool, WEBHOOK_SWEEP_JOB, SWEEP_MS);
  await scheduleRecurring(pool, WEBHOOK_RETENTION_JOB, 3_600_000, { firstRunAt: new Date(Date.now() + 150_000) });
  await worker.start();
  return {
    async stop() {
      await worker.stop();
      http.close();
    },
  };
}
