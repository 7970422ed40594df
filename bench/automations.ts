// Automation runs (issue 15 targets):
// 1. From a trigger event (POST /events/send) to the automation's first email at a local SMTP server,
//    at low load (10 events/s): p50 < 200 ms. Peer in the same run: POST /emails to arrival (the
//    transactional path, same service, same server).
// 2. N runs (default 100,000) waiting in a delay: the service's CPU while they wait (target: none
//    measurable); then half of them due at once (target >= 2,000 steps/s resumed) and, once those are
//    resumed, half due at 2,000 a second (target: p99 of completion - due < 1 s). Peer in the same run: a bare SQL timer loop
//    (claim due rows, one short transaction per row: what any PostgreSQL timer queue must at least do).
// The runs are inserted with SQL in the exact shape the app leaves them (a completed trigger step, a
// waiting delay step, its wake-up job); the service resumes them with its own worker.
// Usage: npm run build && node --import tsx bench/automations.ts [N waiting] [R of them made due]
import pg from 'pg';
import { startFakeDns } from '../test/helpers/fake-dns.js';
import { startRecordingSmtp } from '../test/helpers/recording-smtp.js';
import { publishRecords, type WireRecord } from '../test/helpers/publish-records.js';
import {
  api,
  cpuSeconds,
  freshDb,
  KEY,
  loadAverage,
  machine,
  percentile,
  postgresCpuSeconds,
  startService,
} from './lib.js';

const N = Number(process.argv[2] ?? 100_000);
/** How many of the N waiting runs are made due (half at once, half at 2,000/s); the rest keep waiting. */
const R = Math.min(N, Number(process.argv[3] ?? N));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const result: Record<string, unknown> = { machine: machine(), runs_waiting: N, runs_made_due: R };

const dns = await startFakeDns();
dns.set('mx.mailroom.test', 'A', ['127.0.0.1']);
dns.set('rec.test', 'MX', [{ exchange: 'mx.rec.test', priority: 10 }]);
dns.set('mx.rec.test', 'A', ['127.0.0.1']);
const db = await freshDb();
const rec = await startRecordingSmtp();
const svc = await startService({
  MAILROOM_DATABASE_URL: db.url,
  MAILROOM_BOOTSTRAP_API_KEY: KEY,
  MAILROOM_RATE_LIMIT: '1000000',
  MAILROOM_RECIPIENT_RATE_LIMIT: '100000000', // the accept leg outruns the default 5,000 recipients a second (a 429 ended the run)
  MAILROOM_SECRET_KEY: 'bench-secret',
  MAILROOM_DNS_SERVERS: dns.address,
  MAILROOM_MX_HOST: 'mx.mailroom.test',
  MAILROOM_OUTBOUND_PORT: String(rec.port),
});
const c = new pg.Client({ connectionString: db.url });
await c.connect();
try {
  const dom = await api(svc.url, KEY, 'POST', '/domains', { name: 'bench.example' });
  publishRecords(dns, 'bench.example', dom.records as WireRecord[]);
  await api(svc.url, KEY, 'POST', `/domains/${dom.id}/verify`);
  const tpl = await api(svc.url, KEY, 'POST', '/templates', {
    name: 'Welcome',
    from: 'Bench <bench@bench.example>',
    subject: 'Welcome',
    html: '<p>Welcome aboard.</p>',
  });
  await api(svc.url, KEY, 'POST', `/templates/${tpl.id}/publish`);
  await api(svc.url, KEY, 'POST', '/automations', {
    name: 'Welcome',
    status: 'enabled',
    steps: [
      { key: 't', type: 'trigger', config: { event_name: 'user.created' } },
      { key: 'hi', type: 'send_email', config: { template: { id: tpl.id } } },
    ],
    connections: [{ from: 't', to: 'hi' }],
  });

  // 1. Latency at low load: alternately an event and a plain email, 10 a second each.
  const startedAt = new Map<string, number>();
  for (let i = 0; i < 100; i++) {
    startedAt.set(`ev${i}@rec.test`, Date.now());
    await api(svc.url, KEY, 'POST', '/events/send', { event: 'user.created', email: `ev${i}@rec.test` });
    await sleep(50);
    startedAt.set(`em${i}@rec.test`, Date.now());
    await api(svc.url, KEY, 'POST', '/emails', {
      from: 'Bench <bench@bench.example>',
      to: `em${i}@rec.test`,
      subject: 'Welcome',
      html: '<p>Welcome aboard.</p>',
    });
    await sleep(50);
  }
  await rec.waitFor(200, 60_000);
  const lat = (prefix: string) =>
    rec.messages.filter((m) => m.rcptTo[0].startsWith(prefix)).map((m) => m.receivedAt - startedAt.get(m.rcptTo[0])!);
  const summary = (xs: number[]) => ({
    p50_ms: percentile(xs, 50),
    p99_ms: percentile(xs, 99),
    max_ms: Math.max(...xs),
    samples: xs.length,
  });
  result.event_to_first_email = { ...summary(lat('ev')), load: loadAverage() };
  result.peer_email_to_arrival = summary(lat('em'));

  // 2. N waiting runs of trigger → delay, inserted in the app's shape, due in a day.
  const auto = await api(svc.url, KEY, 'POST', '/automations', {
    name: 'Timers',
    status: 'enabled',
    steps: [
      { key: 't', type: 'trigger', config: { event_name: 'timer.bench' } },
      { key: 'd', type: 'delay', config: { duration: '1 day' } },
    ],
    connections: [{ from: 't', to: 'd' }],
  });
  const team = (await c.query('SELECT team_id FROM automations WHERE id = $1', [auto.id])).rows[0].team_id;
  await c.query(`CREATE TABLE bench_due (run_id uuid PRIMARY KEY, due timestamptz)`);
  for (let i = 0; i < N; i += 20_000) {
    const n = Math.min(20_000, N - i);
    await c.query(
      `WITH r AS (INSERT INTO automation_runs (id, automation_id, team_id, email, event)
                  SELECT gen_random_uuid(), $1, $2, 'timer' || ($3 + g) || '@bench.test', '{}' FROM generate_series(1, $4) g RETURNING id),
            s1 AS (INSERT INTO automation_run_steps (run_id, key, type, status, output, started_at, completed_at)
                   SELECT id, 't', 'trigger', 'completed', '{"event":"timer.bench"}', now(), now() FROM r),
            s2 AS (INSERT INTO automation_run_steps (run_id, key, type, status, output, started_at)
                   SELECT id, 'd', 'delay', 'waiting', jsonb_build_object('until', now() + interval '1 day'), now() FROM r)
       INSERT INTO jobs (kind, payload, run_at, key)
       SELECT 'automations.wake', jsonb_build_object('run_id', id, 'key', 'd', 'wake', true), now() + interval '1 day', id || ':d:wake' FROM r`,
      [auto.id, team, i, n],
    );
  }
  await c.query('ANALYZE');
  await sleep(3000);
  const idleSeconds = 20;
  const cpu0 = cpuSeconds(svc.proc.pid!);
  const pg0 = postgresCpuSeconds();
  await sleep(idleSeconds * 1000);
  result.idle = {
    seconds: idleSeconds,
    waiting_runs: N,
    service_cpu_ms: Math.round((cpuSeconds(svc.proc.pid!) - cpu0) * 1000),
    postgres_cpu_ms_all_clusters_users: Math.round((postgresCpuSeconds() - pg0) * 1000),
    load: loadAverage(),
  };

  // Half due at once (throughput); once those are resumed, the other half due at 2,000 a second
  // (lateness of timers at that steady rate, not behind the burst's backlog as until 2026-11-25).
  const half = Math.floor(R / 2);
  const spreadMs = Math.round(((R - half) / 2000) * 1000); // the second half due at 2,000 a second
  const makeDue = (count: number, startInMs: number, overMs: number) =>
    c
      .query(
        `WITH j AS (SELECT id, payload->>'run_id' AS run_id, row_number() OVER (ORDER BY id) AS n FROM jobs
                WHERE kind = 'automations.wake' AND run_at > now() + interval '1 hour' ORDER BY id LIMIT $1),
          due AS (SELECT id, run_id::uuid AS run_id, now() + ($2::float8 + (n - 1) * ($3::float8 / $1)) * interval '1 millisecond' AS due FROM j),
          b AS (INSERT INTO bench_due SELECT run_id, due FROM due)
     UPDATE jobs SET run_at = due.due FROM due WHERE jobs.id = due.id`,
        [count, startInMs, overMs],
      )
      .then(() => c.query(`SELECT pg_notify('mailroom_jobs', 'automations.wake')`));
  const drained = async () => {
    for (let i = 0; i < 2400; i++) {
      const left = Number(
        (
          await c.query(
            `SELECT count(*) FROM bench_due d JOIN automation_runs r ON r.id = d.run_id WHERE r.status = 'running'`,
          )
        ).rows[0].count,
      );
      if (left === 0) return;
      await sleep(250);
    }
  };
  const cpu1 = cpuSeconds(svc.proc.pid!);
  await makeDue(half, 2000, 0);
  await drained();
  const burstLoad = loadAverage();
  await makeDue(R - half, 2000, spreadMs);
  await drained();
  const burst = (
    await c.query(
      `SELECT count(*)::int AS n, extract(epoch FROM max(s.completed_at) - min(d.due))::float8 AS secs,
            percentile_disc(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM s.completed_at - d.due)) AS p99
     FROM bench_due d JOIN automation_run_steps s ON s.run_id = d.run_id AND s.key = 'd'
     WHERE d.due < (SELECT min(due) FROM bench_due) + interval '500 ms' AND s.status = 'completed'`,
    )
  ).rows[0];
  const spread = (
    await c.query(
      `SELECT count(*)::int AS n, percentile_disc(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM s.completed_at - d.due)) AS p50,
            percentile_disc(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM s.completed_at - d.due)) AS p99,
            max(extract(epoch FROM s.completed_at - d.due)) AS max
     FROM bench_due d JOIN automation_run_steps s ON s.run_id = d.run_id AND s.key = 'd'
     WHERE d.due >= (SELECT min(due) FROM bench_due) + interval '500 ms' AND s.status = 'completed'`,
    )
  ).rows[0];
  result.burst = {
    runs_resumed: burst.n,
    of: half,
    steps_per_s: Math.round(burst.n / burst.secs),
    p99_late_s: +Number(burst.p99).toFixed(2),
    load: burstLoad,
  };
  result.spread = {
    runs_resumed: spread.n,
    of: R - half,
    over_s: spreadMs / 1000,
    due_per_s: Math.round((R - half) / (spreadMs / 1000)),
    p50_late_ms: Math.round(spread.p50 * 1000),
    p99_late_ms: Math.round(spread.p99 * 1000),
    max_late_ms: Math.round(spread.max * 1000),
    load: loadAverage(),
  };
  result.service_cpu_us_per_step = Math.round(((cpuSeconds(svc.proc.pid!) - cpu1) / R) * 1e6);

  // Peer: a bare SQL timer queue over `half` rows due at once: claim 100 due rows (SKIP LOCKED), then
  // one transaction per row updating it, from 8 connections (the service's worker uses the same box).
  await c.query(
    `CREATE TABLE peer_timers (id bigserial PRIMARY KEY, due timestamptz NOT NULL, done_at timestamptz, state text NOT NULL DEFAULT 'waiting')`,
  );
  await c.query(`CREATE INDEX ON peer_timers (due) WHERE state = 'waiting'`);
  await c.query(`INSERT INTO peer_timers (due) SELECT now() FROM generate_series(1, $1)`, [half]);
  const t0 = Date.now();
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      const w = new pg.Client({ connectionString: db.url });
      await w.connect();
      try {
        for (;;) {
          const { rows } = await w.query(
            `UPDATE peer_timers SET state = 'running' WHERE id IN (SELECT id FROM peer_timers WHERE state = 'waiting' AND due <= now() ORDER BY due LIMIT 100 FOR UPDATE SKIP LOCKED) RETURNING id`,
          );
          if (!rows.length) break;
          for (const r of rows) {
            await w.query('BEGIN');
            await w.query(`SELECT id FROM peer_timers WHERE id = $1 FOR UPDATE`, [r.id]);
            await w.query(`UPDATE peer_timers SET state = 'done', done_at = now() WHERE id = $1`, [r.id]);
            await w.query('COMMIT');
          }
        }
      } finally {
        await w.end();
      }
    }),
  );
  result.peer_bare_sql_timers = {
    rows: half,
    steps_per_s: Math.round(half / ((Date.now() - t0) / 1000)),
    load: loadAverage(),
  };
  result.ratio_burst_to_peer = +(
    (result.burst as { steps_per_s: number }).steps_per_s /
    (result.peer_bare_sql_timers as { steps_per_s: number }).steps_per_s
  ).toFixed(2);
  console.log(JSON.stringify(result, null, 2));
} finally {
  await c.end();
  await svc.stop();
  await rec.close();
  await dns.close();
  await db.drop();
}
