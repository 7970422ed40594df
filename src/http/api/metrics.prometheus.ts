// GET /metrics: Prometheus text exposition of this process (HTTP, SMTP, MX, delivery and webhook
// counters; memory, CPU and event-loop delay) and of the shared queue (depth and lag per job
// kind, read from the database on each scrape). Off unless MAILROOM_METRICS_TOKEN is set; then it
// takes `Authorization: Bearer <token>` (Prometheus `authorization` in the scrape config).
import { timingSafeEqual } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { AppError } from '../../errors.js';
import { Registry, registry } from '../../lib/metrics.js';
import { queueSummary } from '../../queue/stats.js';
import { reputationNow } from '../../reputation/guard.js';
import type { ApiApp, ApiDeps } from '../types.js';

const started = Date.now() / 1000;

/** The gauges read at scrape time, in their own registry (values replaced on every scrape). */
function scrapeGauges(deps: ApiDeps) {
  const r = new Registry();
  const g = {
    rss: r.gauge('process_resident_memory_bytes', 'Resident memory of this process.'),
    heap: r.gauge('nodejs_heap_used_bytes', 'V8 heap in use.'),
    heapTotal: r.gauge('nodejs_heap_size_total_bytes', 'V8 heap reserved (in use and garbage not yet collected).'),
    external: r.gauge(
      'nodejs_external_memory_bytes',
      'Memory outside the V8 heap held by JavaScript objects (Buffers too).',
    ),
    buffers: r.gauge('nodejs_array_buffers_bytes', 'Memory of ArrayBuffers and Buffers (part of the external memory).'),
    cpu: r.gauge('process_cpu_seconds_total', 'CPU time of this process (user + system), seconds.'),
    start: r.gauge('process_start_time_seconds', 'Start time of this process, Unix seconds.'),
    loop: r.gauge('nodejs_eventloop_delay_seconds', 'Event-loop delay since the previous scrape, by quantile.'),
    jobs: r.gauge('mailroom_jobs', 'Jobs in the queue (shared by every process), by kind and state.'),
    lag: r.gauge('mailroom_jobs_due_lag_seconds', 'How long the oldest due, unclaimed job of a kind has been waiting.'),
    bounce: r.gauge(
      'mailroom_domain_hard_bounce_rate',
      'Hard bounces / (delivered + bounced) of a sending domain over a window (1h, 7d); absent without mail.',
    ),
    complaint: r.gauge(
      'mailroom_domain_complaint_rate',
      'Complaints / (delivered + bounced) of a sending domain over a window (1h, 7d); absent without mail.',
    ),
    sample: r.gauge(
      'mailroom_domain_reputation_sample',
      'Delivered + bounced recipients of a sending domain over a window (1h, 7d).',
    ),
    guard: r.gauge(
      'mailroom_domain_reputation_state',
      'The reputation guard of a sending domain: 0 ok, 1 warning, 2 paused.',
    ),
  };
  const delay = monitorEventLoopDelay({ resolution: 20 });
  delay.enable();
  return async (): Promise<string> => {
    const mem = process.memoryUsage();
    const cpu = process.cpuUsage();
    g.rss.set({}, mem.rss);
    g.heap.set({}, mem.heapUsed);
    g.heapTotal.set({}, mem.heapTotal);
    g.external.set({}, mem.external);
    g.buffers.set({}, mem.arrayBuffers);
    g.cpu.set({}, (cpu.user + cpu.system) / 1e6);
    g.start.set({}, Math.round(started));
    for (const q of [0.5, 0.99]) g.loop.set({ quantile: q }, delay.percentile(q * 100) / 1e9);
    delay.reset();
    g.jobs.reset();
    g.lag.reset();
    for (const j of await queueSummary(deps.pool)) {
      g.jobs.set({ kind: j.kind, state: j.state }, j.n);
      if (j.state === 'pending') g.lag.set({ kind: j.kind }, j.lag_seconds ?? 0);
    }
    for (const f of [g.bounce, g.complaint, g.sample, g.guard]) f.reset();
    for (const d of await reputationNow(deps.pool)) {
      g.guard.set({ domain: d.name }, d.state === 'paused' ? 2 : d.state === 'warning' ? 1 : 0);
      for (const [window, c] of [
        ['1h', d.hour],
        ['7d', d.week],
      ] as const) {
        const sample = c.delivered + c.bounced;
        g.sample.set({ domain: d.name, window }, sample);
        if (!sample) continue;
        g.bounce.set({ domain: d.name, window }, c.hard_bounced / sample);
        g.complaint.set({ domain: d.name, window }, c.complained / sample);
      }
    }
    return r.render();
  };
}

function tokenMatches(header: string | undefined, token: string): boolean {
  const got = Buffer.from(/^Bearer (.+)$/i.exec(header ?? '')?.[1] ?? '');
  const want = Buffer.from(token);
  return got.length === want.length && timingSafeEqual(got, want);
}

export default function register(app: ApiApp, deps: ApiDeps): void {
  const gauges = scrapeGauges(deps);
  app.get('/metrics', { config: { public: true }, schema: { hide: true } }, async (req, reply) => {
    const token = deps.config.metricsToken;
    if (!token) throw new AppError('not_found');
    if (!req.headers.authorization)
      throw new AppError(
        'missing_api_key',
        'Missing metrics token. Send `Authorization: Bearer <MAILROOM_METRICS_TOKEN>`.',
      );
    if (!tokenMatches(req.headers.authorization, token))
      throw new AppError('invalid_api_key', 'The metrics token is not valid.');
    const text = registry.render() + (await gauges());
    return reply.type('text/plain; version=0.0.4; charset=utf-8').header('cache-control', 'no-store').send(text);
  });
}
