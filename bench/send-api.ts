// POST /emails and POST /emails/batch throughput and latency (issue 3 targets: >= 2,000
// emails/s at 64 connections with p99 < 50 ms; batch >= 10,000 emails/s), with the service's
// peak RSS. The service runs the api role only, so acceptance is measured on its own. Its request
// and recipient rate limits are raised past the load; a leg with any refused or failed request
// fails the run (allAnswered) rather than report a rate of refusals. The peer, in the same run on
// the same database server (BENCH_PEER=0 skips it): bench/peers/bare-api.ts, bare Node inserting
// each email as one row, with the same bodies, connections and seconds; the ratios are Mailroom's
// rate over the peer's.
// Usage: npm run build && node --import tsx bench/send-api.ts [seconds]
import { spawn } from 'node:child_process';
import readline from 'node:readline';
import autocannon from 'autocannon';
import {
  allAnswered,
  api,
  cpuSeconds,
  freshDb,
  KEY,
  loadAverage,
  machine,
  postgresCpuSeconds,
  ROOT,
  startService,
} from './lib.js';

const seconds = Number(process.argv[2] ?? 20);

async function run(url: string, path: string, body: string, connections: number) {
  const r = await autocannon({
    url: url + path,
    method: 'POST',
    connections,
    duration: seconds,
    body,
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
  });
  allAnswered(`POST ${path} at ${connections} connections`, r);
  return r;
}

/** Starts the peer (bench/peers/bare-api.ts) on the database `url`; stopped by closing its stdin. */
async function startPeer(url: string): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'bench/peers/bare-api.ts', url], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const first = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: proc.stdout! }).once('line', resolve);
    proc.once('exit', (code) => reject(new Error(`the peer exited (${code}) before listening`)));
  });
  const { url: peerUrl, pid } = JSON.parse(first) as { url: string; pid: number };
  return {
    url: peerUrl,
    pid,
    stop: async () => {
      const exited = new Promise((r) => proc.once('exit', r));
      proc.stdin!.end();
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (proc.exitCode === null) proc.kill('SIGKILL');
    },
  };
}

/** Runs `fn` and reports the CPU the service and PostgreSQL spent on it (the load averages show what else ran). */
async function measured<T>(
  pid: number,
  fn: () => Promise<T>,
): Promise<{ result: T; apiCpu: number; pgCpu: number; load: string }> {
  const api0 = cpuSeconds(pid);
  const pg0 = postgresCpuSeconds();
  const result = await fn();
  return { result, apiCpu: cpuSeconds(pid) - api0, pgCpu: postgresCpuSeconds() - pg0, load: loadAverage() };
}

const db = await freshDb();
const svc = await startService({
  MAILROOM_DATABASE_URL: db.url,
  MAILROOM_BOOTSTRAP_API_KEY: KEY,
  MAILROOM_ROLES: 'api',
  MAILROOM_DELIVERY_MODE: 'capture',
  MAILROOM_RATE_LIMIT: '1000000',
  MAILROOM_RECIPIENT_RATE_LIMIT: '100000000', // the default 5,000 recipients/s refuses the batch leg with 429s
});
try {
  const dom = await api(svc.url, KEY, 'POST', '/domains', { name: 'bench.example' });
  await api(svc.url, KEY, 'POST', `/domains/${dom.id}/verify`);
  const email = {
    from: 'Bench <bench@bench.example>',
    to: 'sink@sink.test',
    subject: 'Benchmark',
    html: '<p>Hello <b>there</b>, this is a small benchmark email.</p>',
  };
  await run(svc.url, '/emails', JSON.stringify(email), 8); // warm-up (JIT, pool)
  const s = await measured(svc.proc.pid!, () => run(svc.url, '/emails', JSON.stringify(email), 64));
  const b = await measured(svc.proc.pid!, () =>
    run(svc.url, '/emails/batch', JSON.stringify(Array.from({ length: 100 }, () => email)), 8),
  );
  const single = s.result;
  const batch = b.result;
  const peer = process.env.BENCH_PEER === '0' ? undefined : await startPeer(db.url);
  const peerLegs = peer
    ? await (async () => {
        try {
          await run(peer.url, '/emails', JSON.stringify(email), 8); // warm-up
          const ps = await measured(peer.pid, () => run(peer.url, '/emails', JSON.stringify(email), 64));
          const pb = await measured(peer.pid, () =>
            run(peer.url, '/emails/batch', JSON.stringify(Array.from({ length: 100 }, () => email)), 8),
          );
          return { ps, pb };
        } finally {
          await peer.stop();
        }
      })()
    : undefined;
  const count = async () => {
    const pg = (await import('pg')).default;
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    const n = Number((await c.query('SELECT count(*) FROM emails')).rows[0].count);
    await c.end();
    return n;
  };
  const committed = await count();
  const ok = (r: autocannon.Result) => r.requests.total - r.non2xx - r.errors;
  const perEmail = (cpu: number, emails: number) => Math.round((cpu / emails) * 1e6);
  const cpu = (m: { apiCpu: number; pgCpu: number; load: string }, emails: number) => ({
    api_cpu_us_per_email: perEmail(m.apiCpu, emails),
    postgres_cpu_us_per_email: perEmail(m.pgCpu, emails),
    load: m.load,
  });
  console.log(
    JSON.stringify(
      {
        machine: machine(),
        single: {
          connections: 64,
          seconds,
          emails_per_s: Math.round(ok(single) / seconds),
          p50_ms: single.latency.p50,
          p99_ms: single.latency.p99,
          non2xx: single.non2xx,
          errors: single.errors,
          ...cpu(s, ok(single)),
        },
        batch: {
          connections: 8,
          per_request: 100,
          seconds,
          emails_per_s: Math.round((ok(batch) * 100) / seconds),
          p50_ms: batch.latency.p50,
          p99_ms: batch.latency.p99,
          non2xx: batch.non2xx,
          errors: batch.errors,
          ...cpu(b, ok(batch) * 100),
        },
        peer: peerLegs && {
          what: 'bench/peers/bare-api.ts: node:http, JSON.parse, one INSERT per email (batch: per request), pkey only',
          single: {
            emails_per_s: Math.round(ok(peerLegs.ps.result) / seconds),
            p50_ms: peerLegs.ps.result.latency.p50,
            p99_ms: peerLegs.ps.result.latency.p99,
            peer_cpu_us_per_email: perEmail(peerLegs.ps.apiCpu, ok(peerLegs.ps.result)),
            postgres_cpu_us_per_email: perEmail(peerLegs.ps.pgCpu, ok(peerLegs.ps.result)),
            load: peerLegs.ps.load,
          },
          batch: {
            emails_per_s: Math.round((ok(peerLegs.pb.result) * 100) / seconds),
            p99_ms: peerLegs.pb.result.latency.p99,
            peer_cpu_us_per_email: perEmail(peerLegs.pb.apiCpu, ok(peerLegs.pb.result) * 100),
            postgres_cpu_us_per_email: perEmail(peerLegs.pb.pgCpu, ok(peerLegs.pb.result) * 100),
            load: peerLegs.pb.load,
          },
          ratio_single: +(ok(single) / ok(peerLegs.ps.result)).toFixed(2),
          ratio_batch: +(ok(batch) / ok(peerLegs.pb.result)).toFixed(2),
        },
        emails_committed: committed,
        peak_rss_mb: svc.peakRssMb(),
      },
      null,
      2,
    ),
  );
} finally {
  await svc.stop();
  await db.drop();
}
