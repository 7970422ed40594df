// A flood of refused requests (issue 27, memory): POST /emails at 64 connections against the api role
// with its default request rate limit, so nearly every answer is a 429. Each one is still an API request
// that is logged (request logs), so the rate of refusals is the stress: what the process holds while
// answering them. Reports the answers per second, the service's peak RSS, its CPU and PostgreSQL's per
// answer, and how many request-log rows were written. Usage: npm run build && node --import tsx bench/flood.ts [seconds]
import autocannon from 'autocannon';
import pg from 'pg';
import { api, cpuSeconds, freshDb, KEY, loadAverage, machine, postgresCpuSeconds, startService } from './lib.js';

const seconds = Number(process.argv[2] ?? 20);
const db = await freshDb();
const svc = await startService({
  MAILROOM_DATABASE_URL: db.url,
  MAILROOM_BOOTSTRAP_API_KEY: KEY,
  MAILROOM_ROLES: 'api',
  MAILROOM_DELIVERY_MODE: 'capture',
});
try {
  const dom = await api(svc.url, KEY, 'POST', '/domains', { name: 'bench.example' });
  await api(svc.url, KEY, 'POST', `/domains/${dom.id}/verify`);
  const body = JSON.stringify({
    from: 'Bench <bench@bench.example>',
    to: 'sink@sink.test',
    subject: 'Benchmark',
    html: '<p>Hello <b>there</b>, this is a small benchmark email.</p>',
  });
  const a0 = cpuSeconds(svc.proc.pid!);
  const p0 = postgresCpuSeconds();
  const r = await autocannon({
    url: `${svc.url}/emails`,
    method: 'POST',
    connections: 64,
    duration: seconds,
    body,
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
  });
  const apiCpu = cpuSeconds(svc.proc.pid!) - a0;
  const pgCpu = postgresCpuSeconds() - p0;
  await new Promise((res) => setTimeout(res, 2_000)); // the request-log buffer's last flushes
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  const logged = Number((await c.query('SELECT count(*) FROM request_logs')).rows[0].count);
  await c.end();
  const answers = r.requests.total;
  console.log(
    JSON.stringify(
      {
        machine: machine(),
        connections: 64,
        seconds,
        answers_per_s: Math.round(answers / seconds),
        refused_429: r.statusCodeStats?.['429']?.count ?? null,
        accepted_2xx: r['2xx'],
        errors: r.errors,
        p99_ms: r.latency.p99,
        api_cpu_us_per_answer: Math.round((apiCpu / answers) * 1e6),
        postgres_cpu_us_per_answer: Math.round((pgCpu / answers) * 1e6),
        request_logs_written: logged,
        peak_rss_mb: svc.peakRssMb(),
        load: loadAverage(),
      },
      null,
      2,
    ),
  );
} finally {
  await svc.stop();
  await db.drop();
}
