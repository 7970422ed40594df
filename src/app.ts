// Composition root: config → database (embedded or URL) → migrations → modules → listeners and
// background work for the roles this process runs. Returns a handle whose close() shuts down in
// two phases: first, all at once, every listener and worker drains (stops accepting or claiming,
// finishes what it holds or gives it back) within MAILROOM_SHUTDOWN_TIMEOUT_MS; then buffers are
// flushed and the database closed. In parallel so that a rolling restart takes one timeout, not
// one per listener and worker.
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Config, HostPort, SmtpListener } from './config/schema.js';
import { ApiKeys } from './auth/api-keys.js';
import { Domains } from './domains/service.js';
import { deliveryJobs } from './delivery/deliver.job.js';
import { contactImportJob } from './contacts/import.job.js';
import { contactBulkJob } from './contacts/bulk.job.js';
import { EmailSender } from './emails/send.js';
import { EmailAcceptor, type RecipientBudget } from './emails/accept.js';
import { fileSent } from './inboxes/filing.js';
import { ComposeInsights } from './insights/compose-insights.js';
import { Broadcasts } from './broadcasts/service.js';
import { PauseCheck } from './reputation/pause-check.js';
import { secretKeyMatches } from './store/instance-settings.js';
import { buildServer } from './http/server.js';
import { Sealer } from './lib/crypto.js';
import { createLogger, type Logger } from './lib/log.js';
import { Pool as SmtpPool } from './mta/pool.js';
import { Worker } from './queue/worker.js';
import { resolveSecretKey } from './lib/secret.js';
import { createLimiter } from './ratelimit/limiter.js';
import { RequestLogRecorder } from './request-logs/recorder.js';
import { DownloadLinks } from './inbound/download-links.js';
import { AddressHasher } from './lib/address-hash.js';
import { privacyEraseJob } from './privacy/erase.job.js';
import { privacyExportJob } from './privacy/export.job.js';
import { agentJob } from './inboxes/agent-run.js';
import { TeamRetentionSettings } from './privacy/retention.js';
import { PrivacyRequests } from './privacy/service.js';
import { openDatabase, type Database } from './store/db.js';
import { checkSchema, migrate } from './store/migrate.js';
import { DELIVER_JOB } from './store/emails.js';
import {
  AUTOMATION_EVENT_JOB,
  AUTOMATION_STEP_JOB,
  AUTOMATION_WAKE_JOB,
  BROADCAST_EXPAND_JOB,
  CONTACT_IMPORT_JOB,
  CONTACT_BULK_JOB,
  DELIVER_BATCH_JOB,
  REPUTATION_CHECK_JOB,
  PRIVACY_ERASE_JOB,
  PRIVACY_EXPORT_JOB,
  INBOX_AGENT_JOB,
} from './store/jobs.js';
import { ReputationGuard } from './reputation/guard.js';
import { automationStepJob } from './automations/step.job.js';
import { automationEventJob } from './automations/event.job.js';
import { automationWakeJob } from './automations/wake.job.js';
import { broadcastExpandJob } from './broadcasts/expand.job.js';
import { BroadcastBodies } from './broadcasts/bodies.js';
import { teamEnsureDefault } from './store/teams.js';
import { AppError } from './errors.js';
import { mxHostProblem } from './config/checks.js';
import { TrackingRecorder } from './tracking/recorder.js';
import { TrackingSigner } from './tracking/tokens.js';
import { UnsubscribeSigner } from './tracking/unsubscribe-tokens.js';
import { Unsubscribes } from './contacts/unsubscribe.js';
import { WebhookLog } from './webhooks/message-log.js';
import { Webhooks } from './webhooks/service.js';
import { createDashboardAuth } from './dashboard-auth/index.js';
import { OAuthServer } from './oauth/index.js';
import { startWebhookWorker } from './webhooks/worker.js';
import { startMaintenanceWorker } from './maintenance/worker.js';
import { TemplateRenderer } from './templates/render.js';

export interface RunningApp {
  config: Config;
  log: Logger;
  db: Database;
  apiKeys: ApiKeys;
  domains: Domains;
  sender: EmailSender;
  /** THE way in for every email (emails/accept.ts) */
  accept: EmailAcceptor;
  defaultTeamId: string;
  http?: FastifyInstance;
  httpUrl?: string;
  /** SMTP submission listeners as bound (real ports when configured with port 0). */
  smtpListeners?: SmtpListener[];
  /** Inbound MX listeners as bound. */
  mxListeners?: HostPort[];
  /** The API request log's buffer (api and smtp roles). */
  requestLogs?: RequestLogRecorder;
  close(): Promise<void>;
}

export async function startApp(
  config: Config,
  opts: {
    log?: Logger /** false: refuse a database with pending migrations instead of applying them */;
    migrate?: boolean;
  } = {},
): Promise<RunningApp> {
  const log = opts.log ?? createLogger(config.logLevel);
  fs.mkdirSync(config.dataDir, { recursive: true });
  const mxProblem = mxHostProblem(config);
  if (mxProblem) log.warn(mxProblem);
  const secretKey = resolveSecretKey(config.secretKey, config.dataDir);
  const sealer = new Sealer(secretKey);
  const erased = new AddressHasher(secretKey); // keyed hashes of erased addresses (privacy/)
  const db = await openDatabase({
    url: config.databaseUrl,
    directUrl: config.databaseDirectUrl,
    dataDir: config.dataDir,
    poolSize: config.databasePoolSize,
    log,
  });
  const drains: (() => Promise<unknown>)[] = []; // phase 1, in parallel, each bounded by the shutdown timeout
  // The SMTP listeners' drains, held open (answering 421) until the other drains are over.
  const smtpDrains: ((hold: Promise<unknown>) => Promise<unknown>)[] = [];
  const closers: (() => Promise<unknown>)[] = []; // phase 2, in reverse order
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    const failed = (err: unknown) => log.error('shutdown step failed', { err });
    const others = Promise.all(drains.map((d) => d().catch(failed)));
    await Promise.all([others, ...smtpDrains.map((d) => d(others).catch(failed))]);
    for (const c of closers.reverse()) await c().catch((err) => log.error('shutdown step failed', { err }));
    await db.close();
    log.info('mailroom stopped');
  };
  try {
    if (opts.migrate === false) await checkSchema(db.pool);
    else {
      const applied = await migrate(db.pool);
      if (applied.length) log.info('migrations applied', { versions: applied });
    }
    if (!(await secretKeyMatches(db.pool, sealer)))
      throw new Error(
        'MAILROOM_SECRET_KEY is not the key this database was first started with: every process on one database needs the same key (the DKIM keys and webhook secrets in it are sealed with it). Set the same MAILROOM_SECRET_KEY on every process.',
      );
    const team = await teamEnsureDefault(db.pool);
    const apiKeys = new ApiKeys(db.pool);
    if (config.bootstrapApiKey && (await apiKeys.ensure(team.id, config.bootstrapApiKey, 'Bootstrap')))
      log.info('bootstrap API key created');
    const domains = new Domains(db.pool, config, sealer, log);
    const tracking = new TrackingSigner(secretKey);
    const unsubscribeSigner = new UnsubscribeSigner(secretKey, config.publicUrl);
    const unsubscribes = new Unsubscribes(db.pool, unsubscribeSigner);
    // The recipient rate (api and smtp roles) counts each send's recipients on the way in.
    const serving = config.roles.includes('api') || config.roles.includes('smtp');
    let recipientBudget: RecipientBudget | undefined;
    if (serving) {
      const recipients = await createLimiter({ limit: config.recipientRateLimit, redisUrl: config.redisUrl, log });
      closers.push(async () => {
        await recipients.close();
      });
      recipientBudget = async (teamId, n) => {
        const d = await recipients.consume(`rcpt:team:${teamId}`, n);
        if (!d.allowed)
          throw new AppError(
            'rate_limit_exceeded',
            `Too many recipients: a team may send to ${d.limit} recipients per second (MAILROOM_RECIPIENT_RATE_LIMIT); retry in ${d.reset} s.`,
          );
      };
    }
    // The pieces first, then what uses them: THE way in (the acceptor, with the guard's pause
    // check), the composing sender over it, then what sits above the send path.
    const pauses = new PauseCheck(db.pool, config); // a paused domain refuses list mail (and transactional, when so configured)
    const accept = new EmailAcceptor(db.pool, domains, {
      guard: pauses.check,
      recipientBudget,
      committed: (emails) =>
        fileSent(db.pool, emails).then(
          () => undefined,
          (err) => log.error('filing sent mail into an inbox failed', { err }),
        ),
    });
    const templates = new TemplateRenderer(db.pool);
    const renderTemplate = (teamId: string, ref: string, variables: unknown) =>
      templates.render(teamId, ref, variables);
    const sender = new EmailSender(accept, config, {
      tracking,
      unsubscribe: unsubscribeSigner,
      templates: renderTemplate,
    });
    const bodies = new BroadcastBodies(db.pool, sender);
    const insights = new ComposeInsights(config, tracking, unsubscribeSigner);
    const broadcasts = new Broadcasts(db.pool, sender, config);
    const webhooks = new Webhooks(db.pool, config, sealer);
    const guard = new ReputationGuard({ pool: db.pool, config, log, domains, pauses, broadcasts });
    const app: RunningApp = { config, log, db, apiKeys, domains, sender, accept, defaultTeamId: team.id, close };

    if (config.roles.includes('worker')) {
      // Upkeep (DNS re-checks, retention, expiry, the metrics rollup, the guard's re-look) is
      // recurring jobs: once per period across all worker processes, not once per process.
      const maintenance = await startMaintenanceWorker({ pool: db.pool, config, log, domains, guard });
      drains.push(() => maintenance.stop());
      // Postfix allows 20 concurrent connections per destination by default; so do we.
      const smtp = new SmtpPool({ maxPerHost: 20 });
      const delivery = deliveryJobs({
        pool: db.pool,
        domains,
        config,
        smtp,
        log,
        unsubscribe: unsubscribeSigner,
        bodies,
        insights,
        erased,
      });
      // Deliveries still running at the shutdown timeout: their SMTP connections are cut before
      // their jobs are given back, so none can still complete here once another process has it.
      const onStopTimeout = () => smtp.abortAll();
      const worker = new Worker({
        pool: db.pool,
        log,
        concurrency: 50,
        stopTimeoutMs: config.shutdownTimeoutMs,
        onStopTimeout,
        regions: config.regions,
        handlers: {
          [DELIVER_JOB]: delivery.single,
          [CONTACT_IMPORT_JOB]: contactImportJob({ pool: db.pool, log }),
          [CONTACT_BULK_JOB]: contactBulkJob({ pool: db.pool }),
          [BROADCAST_EXPAND_JOB]: broadcastExpandJob({ pool: db.pool, accept, config, log }),
          [AUTOMATION_STEP_JOB]: automationStepJob({ pool: db.pool, sender, templates: renderTemplate, log }),
          [AUTOMATION_EVENT_JOB]: automationEventJob({ pool: db.pool, log }),
          [REPUTATION_CHECK_JOB]: guard.job(),
          [PRIVACY_ERASE_JOB]: privacyEraseJob({ pool: db.pool, hasher: erased, sealer, log }),
          [PRIVACY_EXPORT_JOB]: privacyExportJob({
            pool: db.pool,
            sealer,
            log,
            zipMaxBytes: config.privacyExportMaxBytes,
          }),
          [INBOX_AGENT_JOB]: agentJob({
            pool: db.pool,
            sender,
            log,
            allowPrivateNetworks: config.allowPrivateNetworks,
            model: { url: config.agentModelUrl, key: config.agentModelKey, name: config.agentModel },
          }),
        },
      });
      await worker.start();
      // Automation timers (delays, wait timeouts) have their own worker: due wake-ups are claimed
      // in batches and each batch is resumed in one transaction (issue 15: >= 2,000 steps/s).
      const timers = new Worker({
        pool: db.pool,
        log,
        concurrency: 2,
        batchSize: 500,
        stopTimeoutMs: config.shutdownTimeoutMs,
        handlers: {},
        batchHandlers: { [AUTOMATION_WAKE_JOB]: automationWakeJob({ pool: db.pool, log }) },
      });
      await timers.start();
      drains.push(() => timers.stop());
      // Broadcast copies, in runs per destination domain (email.deliver_batch): their own slots, so
      // a broadcast's backlog never holds the slots transactional and automation mail is claimed into.
      const batches = new Worker({
        pool: db.pool,
        log,
        concurrency: 30,
        stopTimeoutMs: config.shutdownTimeoutMs,
        onStopTimeout,
        regions: config.regions,
        handlers: { [DELIVER_BATCH_JOB]: delivery.batch },
      });
      await batches.start();
      // After the drains: the workers finish their deliveries before the SMTP pool closes.
      closers.push(async () => {
        await smtp.closeAll();
      });
      drains.push(() => Promise.all([worker.stop(), batches.stop()]));
      // Its own worker: endpoints slow to answer never take the slots of email deliveries.
      const webhookWorker = await startWebhookWorker({ pool: db.pool, config, sealer, log });
      drains.push(() => webhookWorker.stop());
    }
    // One limiter and one request-log recorder for the API and SMTP submission: the same per-team limit.
    const limiter = serving
      ? await createLimiter({ limit: config.rateLimit, redisUrl: config.redisUrl, log })
      : undefined;
    const recorder = serving ? new RequestLogRecorder(db.pool, log) : undefined;
    app.requestLogs = recorder;
    if (limiter && recorder) {
      // Per process, a timer and not a recurring job: it writes THIS process's in-memory touches
      // (api keys used since the last flush), which no other process can see.
      const touches = setInterval(() => {
        apiKeys.flushTouches().catch((err) => log.error('api-key last-used flush failed', { err }));
      }, 10_000);
      touches.unref();
      // Closed after the listeners (closers run in reverse): the buffers behind them last.
      closers.push(async () => {
        await limiter.close();
      });
      closers.push(async () => {
        clearInterval(touches);
        await recorder.flush();
        await apiKeys.flushTouches();
      });
    }
    // Before HTTP, so that "http listening" (which tools wait for) means every listener is up.
    // The SMTP listeners are imported only by the roles that run them: the MX pulls in the inbound
    // pipeline (mailparser, libmime, fast-xml-parser, smtp-server, asn1), which an api or worker
    // process would otherwise hold in its heap for nothing (issue 27, memory).
    if (config.roles.includes('smtp') && limiter && recorder) {
      const { startSubmission } = await import('./smtp/submission.js');
      const submission = await startSubmission({ config, log, pool: db.pool, apiKeys, sender, limiter, recorder });
      app.smtpListeners = submission.listeners;
      smtpDrains.push((hold) => submission.close(hold));
    }
    if (config.roles.includes('mx')) {
      const { startMx } = await import('./smtp/mx.js');
      const mx = await startMx({ config, log, pool: db.pool, unsubscribes });
      app.mxListeners = mx.listeners;
      smtpDrains.push((hold) => mx.close(hold));
    }
    if (config.roles.includes('api') && limiter && recorder) {
      const hits = new TrackingRecorder(db.pool, log); // opens and clicks, flushed after the server closes
      closers.push(() => hits.flush());
      // Per client address, its own budget: a person on the preference page is not an API client.
      const unsubscribeLimiter = await createLimiter({
        limit: config.unsubscribeRateLimit,
        redisUrl: config.redisUrl,
        log,
      });
      closers.push(async () => {
        await unsubscribeLimiter.close();
      });
      const server = await buildServer({
        config,
        log,
        pool: db.pool,
        apiKeys,
        limiter,
        recorder,
        domains,
        sender,
        bodies,
        insights,
        broadcasts,
        reputationGuard: guard,
        webhooks,
        webhookLog: new WebhookLog(db.pool, webhooks),
        tracking: { signer: tracking, recorder: hits },
        unsubscribe: { service: unsubscribes, limiter: unsubscribeLimiter },
        downloads: new DownloadLinks(secretKey, config.publicUrl),
        oauth: new OAuthServer(db.pool),
        privacy: {
          requests: new PrivacyRequests(db.pool, erased, sealer),
          retention: new TeamRetentionSettings(db.pool, config),
        },
        dashboard: createDashboardAuth({
          pool: db.pool,
          config,
          sealer,
          secretKey,
          sender,
          defaultTeamId: team.id,
          log,
        }),
        isReady: async () => !closed && (await db.pool.query('SELECT 1'), true),
      });
      await server.listen({ host: config.httpListen.host, port: config.httpListen.port });
      const addr = server.server.address() as AddressInfo;
      app.http = server;
      app.httpUrl = `http://${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}`;
      drains.push(() => closeHttp(server, config.shutdownTimeoutMs));
      log.info('http listening', { url: app.httpUrl });
    }
    return app;
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * Stops accepting connections and lets the requests in flight finish (a request arriving on a
 * kept-alive connection meanwhile gets 503 and `Connection: close`, Fastify's return503OnClosing).
 * Connections that fall idle are closed as they do, so a client's keep-alive does not hold the
 * shutdown; at the deadline whatever is left is cut.
 */
async function closeHttp(server: FastifyInstance, timeoutMs: number): Promise<void> {
  const idle = setInterval(() => server.server.closeIdleConnections(), 100);
  const deadline = setTimeout(() => server.server.closeAllConnections(), timeoutMs);
  try {
    await server.close();
  } finally {
    clearInterval(idle);
    clearTimeout(deadline);
  }
}
