// Scale-out (issue 26): the same database, more processes. Delivery of N queued emails by 1, 2 and
// 3 `worker` processes; POST /emails for a fixed time through 1 and 2 `api` processes; for each leg
// the rate, Mailroom's CPU per email (all processes together) and PostgreSQL's CPU per email
// (accepted, or delivered). The peer, in the same run: Postfix relaying N messages of the same size
// to the same sink. These numbers feed the capacity model in README (Operations).
// Usage: npm run build && node --import tsx bench/scaling.ts [N] [API_SECONDS]
import { execFileSync } from 'node:child_process';
import autocannon from 'autocannon';
import path from 'node:path';
import { startFakeDns } from '../test/helpers/fake-dns.js';
import { publishRecords, type WireRecord } from '../test/helpers/publish-records.js';
import {
  api,
  cpuSeconds,
  freshDb,
  KEY,
  loadAverage,
  machine,
  postgresCpuSeconds,
  ROOT,
  postfixRelay,
  sinkMessages,
  startService,
  waitForSink as waitForSinkOn,
  type Service,
} from './lib.js';

const N = Number(process.argv[2] ?? 10_000);
const API_SECONDS = Number(process.argv[3] ?? 15);
const SINK_PORT = 26036;
const PF_PORT = 26035;
const sinkSh = path.join(ROOT, 'bench/peers/smtp-sink.sh');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const BODY = `<p>${'Benchmark delivery body. '.repeat(60)}</p>`; // ~2 KB signed message, as bench/delivery.ts
const email = { from: 'Bench <bench@bench.example>', subject: 'Scaling benchmark', html: BODY, text: '' };

const waitForSink = (target: number, timeoutMs: number) => waitForSinkOn(SINK_PORT, target, timeoutMs);

const cpuOf = (svcs: Service[]) => svcs.reduce((s, x) => s + cpuSeconds(x.proc.pid!), 0);
const us = (seconds: number, n: number) => Math.round((seconds / n) * 1e6);

const dns = await startFakeDns();
dns.set('mx.mailroom.test', 'A', ['127.0.0.1']);
dns.set('sink.test', 'MX', [{ exchange: 'mx.sink.test', priority: 10 }]);
dns.set('mx.sink.test', 'A', ['127.0.0.1']);
const db = await freshDb();
const env = {
  MAILROOM_DATABASE_URL: db.url,
  MAILROOM_BOOTSTRAP_API_KEY: KEY,
  MAILROOM_RATE_LIMIT: '1000000',
  MAILROOM_RECIPIENT_RATE_LIMIT: '100000000',
  MAILROOM_SECRET_KEY: 'bench-secret',
  MAILROOM_DNS_SERVERS: dns.address,
  MAILROOM_MX_HOST: 'mx.mailroom.test',
  MAILROOM_OUTBOUND_PORT: String(SINK_PORT),
};
const result: Record<string, unknown> = { machine: machine(), messages: N, api_seconds: API_SECONDS };
execFileSync(sinkSh, ['start', String(SINK_PORT)]);
try {
  const setup = await startService({ ...env, MAILROOM_ROLES: 'api' });
  const dom = await api(setup.url, KEY, 'POST', '/domains', { name: 'bench.example' });
  publishRecords(dns, 'bench.example', dom.records as WireRecord[]);
  await api(setup.url, KEY, 'POST', `/domains/${dom.id}/verify`);
  await setup.stop();

  // 1. The API: POST /emails from 64 connections for API_SECONDS, spread over 1 or 2 api processes
  // (no worker: the accepted emails stay queued and are deleted before the next leg).
  const apiLegs: Record<string, unknown>[] = [];
  for (const k of [1, 2]) {
    const svcs = await Promise.all(Array.from({ length: k }, () => startService({ ...env, MAILROOM_ROLES: 'api' })));
    // Warm-up (JIT, pools), then 64 connections split over the processes (autocannon, as send-api.ts).
    const body = JSON.stringify({ ...email, to: 'a@sink.test' });
    const load = (url: string, connections: number, duration: number) =>
      autocannon({
        url: `${url}/emails`,
        method: 'POST',
        connections,
        duration,
        body,
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      });
    await Promise.all(svcs.map((s) => load(s.url, 4, 2)));
    const cpu0 = cpuOf(svcs);
    const pg0 = postgresCpuSeconds();
    const t0 = Date.now();
    const runs = await Promise.all(svcs.map((s) => load(s.url, 64 / k, API_SECONDS)));
    const accepted = runs.reduce((n, r) => n + r.requests.total - r.non2xx - r.errors, 0);
    const errors = runs.reduce((n, r) => n + r.non2xx + r.errors, 0);
    const seconds = (Date.now() - t0) / 1000;
    apiLegs.push({
      api_processes: k,
      accepted,
      errors,
      per_s: Math.round(accepted / seconds),
      mailroom_cpu_us_per_email: us(cpuOf(svcs) - cpu0, accepted),
      postgres_cpu_us_per_email: us(postgresCpuSeconds() - pg0, accepted),
      peak_rss_mb: svcs.map((s) => s.peakRssMb()),
      load: loadAverage(),
    });
    await Promise.all(svcs.map((s) => s.stop()));
    const c = new (await import('pg')).default.Client({ connectionString: db.url });
    await c.connect();
    await c.query('TRUNCATE jobs, email_events, emails CASCADE');
    await c.end();
  }
  result.api = apiLegs;

  // 2. Delivery: N emails queued (batch API), then delivered by 1, 2 or 3 worker processes.
  const deliveryLegs: Record<string, unknown>[] = [];
  for (const k of [1, 2, 3]) {
    const acceptor = await startService({ ...env, MAILROOM_ROLES: 'api' });
    for (let i = 0; i < N; i += 100)
      await api(
        acceptor.url,
        KEY,
        'POST',
        '/emails/batch',
        Array.from({ length: Math.min(100, N - i) }, (_, j) => ({ ...email, to: `r${k}-${i + j}@sink.test` })),
      );
    await acceptor.stop();
    const base = sinkMessages(SINK_PORT);
    const workers = await Promise.all(
      Array.from({ length: k }, () => startService({ ...env, MAILROOM_ROLES: 'worker' })),
    );
    // Counted from the processes' start-up done (their CPU) and from the first message at the sink
    // (the time): start-up is a fixed cost, not a cost per email.
    const cpu0 = cpuOf(workers);
    const pg0 = postgresCpuSeconds();
    await waitForSink(base + 1, 60_000);
    const first = sinkMessages(SINK_PORT) - base;
    const seconds = await waitForSink(base + N, 600_000);
    const cpu = cpuOf(workers) - cpu0;
    deliveryLegs.push({
      worker_processes: k,
      seconds,
      per_s: Math.round((N - first) / seconds),
      mailroom_cpu_us_per_email: us(cpu, N),
      postgres_cpu_us_per_email: us(postgresCpuSeconds() - pg0, N),
      peak_rss_mb: workers.map((w) => w.peakRssMb()),
      load: loadAverage(),
    });
    await Promise.all(workers.map((w) => w.stop()));
  }
  result.delivery = deliveryLegs;

  // 3. The peer: Postfix, same run, same sink, same count and size.
  result.postfix = await postfixRelay(N, 2000, PF_PORT, SINK_PORT, '/tmp/mr-scaling-postfix');
  console.log(JSON.stringify(result, null, 2));
} finally {
  execFileSync(sinkSh, ['stop', String(SINK_PORT)]);
  await dns.close();
  await db.drop();
}
