// Periodic upkeep as recurring jobs on the queue (DNS re-checks, retention, expiry, the metrics
// rollup, the reputation guard's re-look, the inboxes' filing sweep): one row per task
// (store/jobs.ts, key 'recurring'), so that however many worker processes run, each period's run
// happens once, in whichever process claims it, and a dead process's turn is taken by another
// when its lease runs out. Process-local upkeep (an in-memory buffer's flush) is not here: it
// stays a timer in the process (app.ts).
import type { Config } from '../config/schema.js';
import type { Domains } from '../domains/service.js';
import type { Logger } from '../lib/log.js';
import { scheduleRecurring } from '../queue/enqueue.js';
import { Worker, type Handler } from '../queue/worker.js';
import type { ReputationGuard } from '../reputation/guard.js';
import type { Pool, Queryable } from '../store/db.js';
import { emailMetricsRollup } from '../store/email-metrics.js';
import { emailsPurgeRaw } from '../store/emails.js';
import { idempotencyDeleteExpired } from '../store/idempotency.js';
import { oauthDeleteExpired } from '../store/oauth.js';
import {
  DOMAIN_RECHECK_JOB,
  EMAIL_RETENTION_JOB,
  IDEMPOTENCY_EXPIRY_JOB,
  METRICS_ROLLUP_JOB,
  PRIVACY_RETENTION_JOB,
  RECEIVED_EMAIL_RETENTION_JOB,
  REPUTATION_RETENTION_JOB,
  REPUTATION_SWEEP_JOB,
  REQUEST_LOG_RETENTION_JOB,
  SESSION_EXPIRY_JOB,
  INBOX_SWEEP_JOB,
  type JobKind,
} from '../store/jobs.js';
import {
  retentionPurgeAutomationRuns,
  retentionPurgeEvents,
  retentionPurgeTracking,
} from '../store/privacy-retention.js';
import { receivedEmailsPurge } from '../store/received-emails.js';
import { fileMissedReceived } from '../inboxes/filing.js';
import { rateCountsFold, reputationCountsPurge } from '../store/reputation.js';
import { requestLogDeleteOlderThan } from '../store/request-logs.js';
import { sessionsDeleteExpired, throttleDeleteStale } from '../store/sessions.js';

const MINUTE = 60_000;
const HOUR = 3_600_000;

/**
 * Each task's period and, for a row created now (a new database), its first run after start: spread
 * over the first minutes so that a fresh start does not run everything at once. A row that exists
 * keeps its schedule across restarts.
 */
export const MAINTENANCE_SCHEDULE: Record<MaintenanceKind, { everyMs: number; firstDelayMs: number }> = {
  [DOMAIN_RECHECK_JOB]: { everyMs: MINUTE, firstDelayMs: 5_000 },
  [METRICS_ROLLUP_JOB]: { everyMs: MINUTE, firstDelayMs: 20_000 },
  [REPUTATION_SWEEP_JOB]: { everyMs: MINUTE, firstDelayMs: 30_000 },
  [REQUEST_LOG_RETENTION_JOB]: { everyMs: HOUR, firstDelayMs: 60_000 },
  [EMAIL_RETENTION_JOB]: { everyMs: HOUR, firstDelayMs: 90_000 },
  [RECEIVED_EMAIL_RETENTION_JOB]: { everyMs: HOUR, firstDelayMs: 100_000 },
  [IDEMPOTENCY_EXPIRY_JOB]: { everyMs: HOUR, firstDelayMs: 120_000 },
  [REPUTATION_RETENTION_JOB]: { everyMs: HOUR, firstDelayMs: 130_000 },
  [SESSION_EXPIRY_JOB]: { everyMs: HOUR, firstDelayMs: 150_000 },
  [INBOX_SWEEP_JOB]: { everyMs: MINUTE, firstDelayMs: 40_000 },
  [PRIVACY_RETENTION_JOB]: { everyMs: HOUR, firstDelayMs: 160_000 },
};

type MaintenanceKind =
  | typeof DOMAIN_RECHECK_JOB
  | typeof METRICS_ROLLUP_JOB
  | typeof REPUTATION_SWEEP_JOB
  | typeof REQUEST_LOG_RETENTION_JOB
  | typeof EMAIL_RETENTION_JOB
  | typeof RECEIVED_EMAIL_RETENTION_JOB
  | typeof IDEMPOTENCY_EXPIRY_JOB
  | typeof REPUTATION_RETENTION_JOB
  | typeof SESSION_EXPIRY_JOB
  | typeof INBOX_SWEEP_JOB
  | typeof PRIVACY_RETENTION_JOB;

/**
 * Runs a purge batch after batch (each its own short statement) until one finds nothing, at most
 * MAX_BATCHES per run: a backlog is worked off over the next runs, never in one long transaction.
 */
const MAX_BATCHES = 200;
export async function drain(batch: () => Promise<number>): Promise<number> {
  let total = 0;
  for (let i = 0; i < MAX_BATCHES; i++) {
    const n = await batch();
    total += n;
    if (n === 0) break;
  }
  return total;
}

export const MAINTENANCE_KINDS = Object.keys(MAINTENANCE_SCHEDULE) as MaintenanceKind[] satisfies JobKind[];

/** Creates the recurring row of every task, or leaves it be: any number of processes may call it at once. */
export async function scheduleMaintenance(db: Queryable): Promise<void> {
  for (const kind of MAINTENANCE_KINDS) {
    const { everyMs, firstDelayMs } = MAINTENANCE_SCHEDULE[kind];
    await scheduleRecurring(db, kind, everyMs, { firstRunAt: new Date(Date.now() + firstDelayMs) });
  }
}

export interface MaintenanceWorker {
  stop(): Promise<void>;
}

/**
 * Its own queue Worker with a few slots: a slow DNS re-check or a long retention delete never holds
 * a delivery's slot, and a delivery backlog never delays the upkeep.
 */
export async function startMaintenanceWorker(deps: {
  pool: Pool;
  config: Config;
  log: Logger;
  domains: Pick<Domains, 'recheckDue'>;
  guard: Pick<ReputationGuard, 'sweep'>;
}): Promise<MaintenanceWorker> {
  const { pool, config, domains, guard } = deps;
  const log = deps.log.child({ component: 'maintenance' });
  const tasks: Record<MaintenanceKind, () => Promise<unknown>> = {
    [DOMAIN_RECHECK_JOB]: () => domains.recheckDue(),
    // The striped delivery-result counters (0067) are folded with the metrics, once a minute.
    [METRICS_ROLLUP_JOB]: async () => {
      await emailMetricsRollup(pool);
      await rateCountsFold(pool);
    },
    [REPUTATION_SWEEP_JOB]: () => guard.sweep(),
    // The global settings, or a team's shorter one (team_retention: privacy/retention.ts).
    [REQUEST_LOG_RETENTION_JOB]: () => drain(() => requestLogDeleteOlderThan(pool, config.logRetentionDays)),
    [EMAIL_RETENTION_JOB]: () => drain(() => emailsPurgeRaw(pool, config.retentionDays)),
    [RECEIVED_EMAIL_RETENTION_JOB]: () => drain(() => receivedEmailsPurge(pool, config.retentionDays)),
    [IDEMPOTENCY_EXPIRY_JOB]: () => idempotencyDeleteExpired(pool),
    [REPUTATION_RETENTION_JOB]: () => reputationCountsPurge(pool),
    [SESSION_EXPIRY_JOB]: () =>
      Promise.all([sessionsDeleteExpired(pool), throttleDeleteStale(pool, 3600), oauthDeleteExpired(pool)]),
    [INBOX_SWEEP_JOB]: () => fileMissedReceived(pool),
    [PRIVACY_RETENTION_JOB]: async () => {
      await drain(() => retentionPurgeTracking(pool));
      await drain(() => retentionPurgeEvents(pool));
      await drain(() => retentionPurgeAutomationRuns(pool));
    },
  };
  // The debug line names the slot (the row's due time) it ran for: how a test sees that no slot ran twice.
  const handler =
    (kind: MaintenanceKind): Handler =>
    async (job) => {
      await tasks[kind]();
      log.debug('maintenance task ran', { kind, slot: job.runAt.toISOString(), worker: worker.id });
    };
  const worker = new Worker({
    pool,
    log,
    concurrency: 3,
    stopTimeoutMs: config.shutdownTimeoutMs,
    handlers: Object.fromEntries(MAINTENANCE_KINDS.map((k) => [k, handler(k)])),
  });
  await scheduleMaintenance(pool);
  await worker.start();
  return { stop: () => worker.stop() };
}
