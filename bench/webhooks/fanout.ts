// Fan-out benchmark: email events → webhook messages → signed POSTs to 10 local endpoints.
//   node --import tsx bench/webhooks/fanout.ts [--endpoints 10] [--events 3000] [--rate 250] [--seconds 20]
// Database: MAILROOM_TEST_DATABASE_URL (a fresh database is created and dropped) or embedded.
// Receivers run in a child process (bench/webhooks/receiver.ts). Phases: (1) backlog: --events
// events inserted at once, time until every endpoint has all of them; (2) sustained: --rate
// events/s offered for --seconds (in small statements every 20 ms, as deliveries record them),
// delivered rate and delay from the event's created_at to its arrival; (3) peer: bare Node
// posting the same number of signed bodies to the same receivers (bench/webhooks/peer.ts), once
// before the app starts and once after it; the ratio is to the mean of the two. (4) the same peer
// with undici's client (Mailroom's webhook client): ratioToUndiciPeer.
// CPU per delivery: this process (the app, then the peer), the receivers' process, and PostgreSQL
// (the postmaster's children, read from /proc when the server's data directory is readable here).
// BENCH_PGSS=1: pg_stat_statements is reset before the backlog, its top statements printed after it
// and after the sustained phase (reset between); planning too when the server sets
// pg_stat_statements.track_planning.
// BENCH_CPU_PROF=<file>: a CPU profile of this process over the backlog phase only (the app's work,
// without the peer runs or start-up), written as <file> (.cpuprofile, for DevTools or a summary),
// and one of the sustained phase as <file>.sustained.cpuprofile.
// BENCH_HEAP_PROF=<file>: V8's sampling heap profile over the backlog phase, objects a collection
// freed kept (who allocates, not who holds), written as <file> (.heapprofile).
// BENCH_SQL: SQL run on the fresh database before the app starts (an experiment's schema change).
// Peak RSS: this process's (the app's, with the peer's small share) high-water mark after each phase.
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Resend } from 'resend';
import { startApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/load.js';
import { makeEvent } from '../../src/events/email-events.js';
import { apiKeyToken, uuid } from '../../src/lib/ids.js';
import { createLogger } from '../../src/lib/log.js';
import { sleep } from '../../src/lib/time.js';
import { emailEventsInsert } from '../../src/store/emails.js';
import { freshDatabase } from '../../test/helpers/db.js';
import { peerDeliveries } from './peer.js';

const { values: a } = parseArgs({
  options: {
    endpoints: { type: 'string', default: '10' },
    events: { type: 'string', default: '3000' },
    rate: { type: 'string', default: '250' },
    seconds: { type: 'string', default: '20' },
  },
});
const ENDPOINTS = Number(a.endpoints),
  EVENTS = Number(a.events),
  RATE = Number(a.rate),
  SECONDS = Number(a.seconds);
const CONCURRENCY = 16; // MAILROOM_WEBHOOK_CONCURRENCY default

const here = path.dirname(fileURLToPath(import.meta.url));
const receiver: ChildProcess = fork(path.join(here, 'receiver.ts'), [String(ENDPOINTS)], {
  execArgv: ['--import', 'tsx'],
});
process.on('exit', () => receiver.kill());
const ask = <T>(cmd: string, field: string) =>
  new Promise<T>((resolve) => {
    const on = (m: Record<string, T>) => {
      if (field in m) {
        receiver.off('message', on);
        resolve(m[field]);
      }
    };
    receiver.on('message', on);
    if (cmd) receiver.send({ cmd });
  });
const ports = await ask<number[]>('', 'ports');
const stats = () => ask<{ count: number; p50: number | null; p99: number | null }>('stats', 'stats');

/** utime+stime (+ reaped children's) of a process, in ms; 0 if unreadable. */
function procCpuMs(pid: number, children = false): number {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    const tick = 10; // USER_HZ 100
    return (Number(f[11]) + Number(f[12]) + (children ? Number(f[13]) + Number(f[14]) : 0)) * tick;
  } catch {
    return 0;
  }
}
let pgDir: string | undefined;
/** PostgreSQL's CPU: the postmaster with its reaped children, plus every live child. */
function pgCpuMs(): number {
  if (!pgDir) return 0;
  try {
    const pm = Number(fs.readFileSync(path.join(pgDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    let t = procCpuMs(pm, true);
    for (const d of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(d)) continue;
      try {
        const st = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
        if (Number(st.split(') ')[1].split(' ')[1]) === pm) t += procCpuMs(Number(d));
      } catch {}
    }
    return t;
  } catch {
    return 0;
  }
}
const peakRssMB = () => Math.round(process.resourceUsage().maxRSS / 1024);
const cpuMark = () => ({ app: process.cpuUsage(), pg: pgCpuMs(), rx: procCpuMs(receiver.pid!) });
const cpuSince = (m: ReturnType<typeof cpuMark>, deliveries: number) => {
  const app = process.cpuUsage(m.app);
  const us = (ms: number) => Math.round((ms * 1000) / Math.max(1, deliveries));
  return {
    appUsPerDelivery: Math.round((app.user + app.system) / Math.max(1, deliveries)),
    pgUsPerDelivery: pgDir ? us(pgCpuMs() - m.pg) : null,
    receiverUsPerDelivery: us(procCpuMs(receiver.pid!) - m.rx),
  };
};

// The peer runs before the app and again after it (the same receivers): on a shared machine the
// load moves within a run, and the ratio is taken against the mean of the two.
let mark = cpuMark();
const peerBefore = await peerDeliveries(ports, EVENTS, CONCURRENCY);
const peerBeforeCpu = cpuSince(mark, peerBefore.deliveries);
receiver.send({ cmd: 'reset' });

const db = await freshDatabase();
// BENCH_SQL: statements run once the schema is migrated, before the app starts (an experiment, as
// in bench/pg-cost.ts).
if (process.env.BENCH_SQL) await db.pool.query(process.env.BENCH_SQL);
try {
  const { rows } = await db.pool.query('SHOW data_directory');
  if (fs.existsSync(path.join(rows[0].data_directory, 'postmaster.pid'))) pgDir = rows[0].data_directory;
} catch {}
const pgss = process.env.BENCH_PGSS === '1';
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-bench-'));
const key = apiKeyToken();
const app = await startApp(
  loadConfig(
    { MAILROOM_LOG_LEVEL: 'silent' },
    {
      databaseUrl: db.url,
      dataDir,
      httpListen: { host: '127.0.0.1', port: 0 },
      bootstrapApiKey: key,
      roles: ['api', 'worker'],
      allowPrivateNetworks: true,
      rateLimit: 100_000,
    },
  ),
  { log: createLogger('silent') },
);
const resend = new Resend(key, { baseUrl: app.httpUrl });
for (const port of ports) {
  const { error } = await resend.webhooks.create({
    endpoint: `http://127.0.0.1:${port}/hook`,
    events: ['email.delivered'],
  });
  if (error) throw new Error(error.message);
}
const email = {
  id: uuid(),
  team_id: app.defaultTeamId,
  created_at: new Date(),
  from_header: 'Acme <hello@example.com>',
  to_addrs: ['alice@dest.test'],
  subject: 'Your order has shipped',
  message_id: '<bench@example.com>',
  tags: [{ name: 'category', value: 'shipping' }],
  headers: null,
};
await db.pool.query(
  `INSERT INTO emails (id, team_id, message_id, from_header, to_addrs, subject, last_event) VALUES ($1, $2, $3, $4, $5, $6, 'sent')`,
  [email.id, email.team_id, email.message_id, email.from_header, email.to_addrs, email.subject],
);
const insertEvents = (n: number) =>
  emailEventsInsert(
    db.pool,
    Array.from({ length: n }, () => makeEvent(email, 'email.delivered', { recipient: 'alice@dest.test' })),
  );

async function waitFor(total: number, timeoutMs: number): Promise<number> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const { count } = await stats();
    if (count >= total || Date.now() > until) return count;
    await sleep(50);
  }
}

// (1) backlog
if (pgss) await db.pool.query('SELECT pg_stat_statements_reset()');
const profFile = process.env.BENCH_CPU_PROF;
const heapFile = process.env.BENCH_HEAP_PROF;
const inspector = profFile || heapFile ? new Session() : undefined;
if (inspector) inspector.connect();
if (inspector && profFile) {
  await inspector.post('Profiler.enable');
  await inspector.post('Profiler.start');
}
if (inspector && heapFile) {
  await inspector.post('HeapProfiler.enable');
  await inspector.post('HeapProfiler.startSampling', {
    samplingInterval: 32_768,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
}
mark = cpuMark();
let t0 = performance.now();
for (let i = 0; i < EVENTS; i += 1000) await insertEvents(Math.min(1000, EVENTS - i));
const backlogGot = await waitFor(EVENTS * ENDPOINTS, 300_000);
const backlogS = (performance.now() - t0) / 1000;
if (inspector && profFile) {
  const { profile } = await inspector.post('Profiler.stop');
  fs.writeFileSync(profFile, JSON.stringify(profile));
}
if (inspector && heapFile) {
  const { profile } = await inspector.post('HeapProfiler.stopSampling');
  fs.writeFileSync(heapFile, JSON.stringify(profile));
}
const backlog = {
  deliveries: backlogGot,
  seconds: backlogS,
  perSecond: Math.round(backlogGot / backlogS),
  ...(await stats()),
  ...cpuSince(mark, backlogGot),
  peakRssMB: peakRssMB(),
};
async function printPgss(phase: string, deliveries: number): Promise<void> {
  const { rows } = await db.pool.query(
    `SELECT calls, round(total_exec_time) AS ms, plans, round(total_plan_time) AS plan_ms, rows,
            left(regexp_replace(query, '\\s+', ' ', 'g'), 160) AS q
     FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
     ORDER BY total_exec_time + total_plan_time DESC LIMIT 25`,
  );
  process.stderr.write(`pg_stat_statements after the ${phase} (${deliveries} deliveries):\n`);
  for (const r of rows)
    process.stderr.write(
      `${String(r.ms).padStart(7)} ms ${String(r.calls).padStart(7)} calls ${String(r.plan_ms).padStart(6)} ms ${String(r.plans).padStart(6)} plans ${String(r.rows).padStart(8)} rows  ${r.q}\n`,
    );
  await db.pool.query('SELECT pg_stat_statements_reset()');
}
if (pgss) await printPgss('backlog', backlogGot);
receiver.send({ cmd: 'reset' });

// (2) sustained
const perTick = RATE / 50;
let offered = 0;
if (inspector && profFile) await inspector.post('Profiler.start');
mark = cpuMark();
t0 = performance.now();
while (performance.now() - t0 < SECONDS * 1000) {
  const due = Math.floor(((performance.now() - t0) / 1000) * RATE) - offered;
  if (due > 0) {
    await insertEvents(due);
    offered += due;
  }
  await sleep(1000 / 50 - 1);
}
const windowS = (performance.now() - t0) / 1000;
const inWindow = (await stats()).count;
const drained = await waitFor(offered * ENDPOINTS, 120_000);
const drainS = (performance.now() - t0) / 1000 - windowS;
const sustained = {
  offeredPerSecond: Math.round((offered * ENDPOINTS) / windowS),
  deliveredInWindowPerSecond: Math.round(inWindow / windowS),
  deliveries: drained,
  drainAfterWindowS: Number(drainS.toFixed(2)),
  ...(await stats()),
  ...cpuSince(mark, drained),
  peakRssMB: peakRssMB(),
};
if (inspector && profFile) {
  const { profile } = await inspector.post('Profiler.stop');
  fs.writeFileSync(`${profFile}.sustained.cpuprofile`, JSON.stringify(profile));
}
inspector?.disconnect();
if (pgss) await printPgss('sustained phase', drained);
void perTick;

await app.close();
await db.drop();
fs.rmSync(dataDir, { recursive: true, force: true });

// (3) peer, same receivers, same count as the backlog phase
mark = cpuMark();
const peer = await peerDeliveries(ports, EVENTS, CONCURRENCY);
const peerCpu = cpuSince(mark, peer.deliveries);
// (4) the same peer with undici's client, the one Mailroom's deliveries use
receiver.send({ cmd: 'reset' });
mark = cpuMark();
const peerUndici = await peerDeliveries(ports, EVENTS, CONCURRENCY, 'undici');
const peerUndiciCpu = cpuSince(mark, peerUndici.deliveries);
receiver.send({ cmd: 'exit' });

const cpu = os.cpus()[0]?.model ?? 'unknown';
console.log(
  JSON.stringify(
    {
      machine: { cpus: os.cpus().length, cpu, node: process.version },
      endpoints: ENDPOINTS,
      concurrencyPerEndpoint: CONCURRENCY,
      backlog,
      sustained,
      peerBefore: {
        ...peerBefore,
        perSecond: Math.round(peerBefore.deliveries / peerBefore.seconds),
        appUsPerDelivery: peerBeforeCpu.appUsPerDelivery,
        receiverUsPerDelivery: peerBeforeCpu.receiverUsPerDelivery,
      },
      peer: {
        ...peer,
        perSecond: Math.round(peer.deliveries / peer.seconds),
        appUsPerDelivery: peerCpu.appUsPerDelivery,
        receiverUsPerDelivery: peerCpu.receiverUsPerDelivery,
      },
      peerUndici: {
        ...peerUndici,
        perSecond: Math.round(peerUndici.deliveries / peerUndici.seconds),
        appUsPerDelivery: peerUndiciCpu.appUsPerDelivery,
        receiverUsPerDelivery: peerUndiciCpu.receiverUsPerDelivery,
      },
      ratioToUndiciPeer: Number((backlog.perSecond / (peerUndici.deliveries / peerUndici.seconds)).toFixed(2)),
      ratio: Number(
        (
          backlog.perSecond /
          ((peer.deliveries / peer.seconds + peerBefore.deliveries / peerBefore.seconds) / 2)
        ).toFixed(2),
      ),
      load: fs.readFileSync('/proc/loadavg', 'utf8').trim(),
    },
    null,
    2,
  ),
);
