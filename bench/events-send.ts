// POST /events/send throughput and latency with an automation listening (issue 15 target: >= 2,000
// events/s at 64 connections, p99 < 50 ms), every event for a new address (so each one creates the
// contact and starts a run: trigger → delay, the worst case), with POST /emails at 64 connections
// against the same service in the same run as the peer (the send path, issue 3). The service runs
// the api role only, as bench/send-api.ts does. Then the automation's side: a worker-only process on
// the same database takes the queued events (the automations.event job starts a run per event:
// contact created, run, trigger step, the delay step and its wake-up job) and the time until the
// queue is empty gives the rate runs start at, with the API idle. Usage: npm run build && node --import tsx bench/events-send.ts [seconds]
import autocannon from 'autocannon';
import pg from 'pg';
import {
  allAnswered,
  api,
  cpuSeconds,
  freshDb,
  KEY,
  loadAverage,
  machine,
  postgresCpuSeconds,
  startService,
} from './lib.js';

const seconds = Number(process.argv[2] ?? 15);

async function load(url: string, path: string, connections: number, body: () => string, secs = seconds) {
  const r = await autocannon({
    url: url + path,
    method: 'POST',
    connections,
    duration: secs,
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    requests: [{ setupRequest: (req) => ({ ...req, body: body() }) }],
  });
  allAnswered(`POST ${path} at ${connections} connections`, r);
  return r;
}

async function measured<T>(pid: number, fn: () => Promise<T>) {
  const a0 = cpuSeconds(pid);
  const p0 = postgresCpuSeconds();
  const result = await fn();
  return { result, apiCpu: cpuSeconds(pid) - a0, pgCpu: postgresCpuSeconds() - p0, load: loadAverage() };
}

const db = await freshDb();
const svc = await startService({
  MAILROOM_DATABASE_URL: db.url,
  MAILROOM_BOOTSTRAP_API_KEY: KEY,
  MAILROOM_ROLES: 'api',
  MAILROOM_DELIVERY_MODE: 'capture',
  MAILROOM_RATE_LIMIT: '1000000',
  MAILROOM_RECIPIENT_RATE_LIMIT: '100000000', // the peer's emails, beside the events
  MAILROOM_SECRET_KEY: 'bench-secret', // the drain's worker shares the database, so the secret too
});
const client = new pg.Client({ connectionString: db.url });
await client.connect();
try {
  const dom = await api(svc.url, KEY, 'POST', '/domains', { name: 'bench.example' });
  await api(svc.url, KEY, 'POST', `/domains/${dom.id}/verify`);
  await api(svc.url, KEY, 'POST', '/automations', {
    name: 'Bench listener',
    status: 'enabled',
    steps: [
      { key: 't', type: 'trigger', config: { event_name: 'user.created' } },
      { key: 'd', type: 'delay', config: { duration: '1 day' } },
    ],
    connections: [{ from: 't', to: 'd' }],
  });
  let n = 0;
  const event = () =>
    JSON.stringify({ event: 'user.created', email: `u${n++}@bench.test`, payload: { plan: 'pro', n } });
  const email = JSON.stringify({
    from: 'Bench <bench@bench.example>',
    to: 'sink@sink.test',
    subject: 'Benchmark',
    html: '<p>Hello <b>there</b>, a small benchmark email.</p>',
  });
  await load(svc.url, '/events/send', 8, event, 5); // warm-up (JIT, pool)
  await load(svc.url, '/emails', 8, () => email, 5);
  const ev = await measured(svc.proc.pid!, () => load(svc.url, '/events/send', 64, event));
  const em = await measured(svc.proc.pid!, () => load(svc.url, '/emails', 64, () => email));
  const ok = (r: autocannon.Result) => r.requests.total - r.non2xx - r.errors;
  const per = (cpu: number, k: number) => Math.round((cpu / k) * 1e6);
  const row = (m: Awaited<ReturnType<typeof measured<autocannon.Result>>>) => ({
    per_s: Math.round(ok(m.result) / seconds),
    p50_ms: m.result.latency.p50,
    p99_ms: m.result.latency.p99,
    non2xx: m.result.non2xx,
    errors: m.result.errors,
    api_cpu_us_each: per(m.apiCpu, ok(m.result)),
    postgres_cpu_us_each: per(m.pgCpu, ok(m.result)),
    load: m.load,
  });
  const events = Number(
    (await client.query(`SELECT count(*) FROM custom_events WHERE name = 'user.created'`)).rows[0].count,
  );
  const queued = Number((await client.query('SELECT count(*) FROM automation_event_queue')).rows[0].count);
  // The peer's emails are not part of this measurement: their delivery jobs go, so the worker only starts runs.
  await client.query(`DELETE FROM jobs WHERE kind = 'email.deliver'`);
  const worker = await startService({
    MAILROOM_DATABASE_URL: db.url,
    MAILROOM_ROLES: 'worker',
    MAILROOM_DELIVERY_MODE: 'capture',
    MAILROOM_SECRET_KEY: 'bench-secret',
  });
  let drain: Record<string, unknown>;
  try {
    const c0 = cpuSeconds(worker.proc.pid!);
    const p0 = postgresCpuSeconds();
    const t0 = Date.now();
    const atStart = Number((await client.query('SELECT count(*) FROM automation_event_queue')).rows[0].count); // the worker may have begun while starting
    let left = atStart;
    for (let i = 0; i < 3600 && left > 0; i++) {
      await new Promise((r) => setTimeout(r, 250));
      left = Number((await client.query('SELECT count(*) FROM automation_event_queue')).rows[0].count);
    }
    const secs = (Date.now() - t0) / 1000;
    drain = {
      events_queued: queued,
      left_in_queue: left,
      seconds: +secs.toFixed(1),
      timed_from_queue_of: atStart,
      runs_started_per_s: Math.round((atStart - left) / secs),
      worker_cpu_us_each: Math.round(((cpuSeconds(worker.proc.pid!) - c0) / Math.max(1, atStart - left)) * 1e6),
      postgres_cpu_us_each: Math.round(((postgresCpuSeconds() - p0) / Math.max(1, atStart - left)) * 1e6),
      load: loadAverage(),
    };
  } finally {
    await worker.stop();
  }
  const runs = Number((await client.query('SELECT count(*) FROM automation_runs')).rows[0].count);
  console.log(
    JSON.stringify(
      {
        machine: machine(),
        connections: 64,
        seconds,
        events_send: row(ev),
        peer_emails_send: row(em),
        ratio_events_to_emails: +(ok(ev.result) / ok(em.result)).toFixed(2),
        events_committed: events,
        runs_started: runs,
        worker_drain: drain,
        peak_rss_mb: svc.peakRssMb(),
      },
      null,
      2,
    ),
  );
} finally {
  await client.end();
  await svc.stop();
  await db.drop();
}
