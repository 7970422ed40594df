// PostgreSQL cost of one email over its whole life (issue 27): accept (POST /emails/batch, 100 a
// request, 4 clients), then delivery by a worker to a local smtp-sink with the email.sent and
// email.delivered webhooks posted to a local receiver (the fan-out); and a broadcast of B copies
// (expansion, delivery, the same two webhooks each) by one api+worker process. Each leg: PostgreSQL
// CPU per email (only the benchmark server's processes, bench/lib.ts), WAL records and bytes per
// email (pg_stat_wal: point the benchmark at a cluster of its own, MAILROOM_BENCH_DATABASE_URL),
// and, when the server preloads pg_stat_statements, the statements by execution time per email.
// The peer, in the same run and database: the same rows (emails, email_events) written by a bare
// INSERT ... SELECT and UPDATE into tables with no index beyond the primary key, once as three
// set statements and once as one autocommitted statement per row (accept, events, update).
// BENCH_SQL: statements run once the schema is migrated, before the first email (an experiment).
// Usage: npm run build && bench/peers/install.sh &&
//   MAILROOM_BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5440/postgres node --import tsx bench/pg-cost.ts [M=10000] [B=5000]
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import pg from 'pg';
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
  sinkMessages,
  startService,
  waitForSink,
} from './lib.js';

const M = Number(process.argv[2] ?? 10_000);
const B = Number(process.argv[3] ?? 5_000);
const SINK_PORT = Number(process.env.BENCH_SINK_PORT ?? 26046); // another port when another run may share the machine (its sink's state dir is per port)
const sinkSh = path.join(ROOT, 'bench/peers/smtp-sink.sh');
const BODY = `<p>${'Benchmark delivery body. '.repeat(60)}</p>`; // as bench/delivery.ts
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let hooks = 0;
const receiver = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    hooks++;
    res.writeHead(200, { 'content-length': '2' }).end('ok');
  });
});
receiver.keepAliveTimeout = 60_000;
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));

const dns = await startFakeDns();
dns.set('mx.mailroom.test', 'A', ['127.0.0.1']);
dns.set('sink.test', 'MX', [{ exchange: 'mx.sink.test', priority: 10 }]);
dns.set('mx.sink.test', 'A', ['127.0.0.1']);
const db = await freshDb();
const env = {
  MAILROOM_DATABASE_URL: db.url,
  MAILROOM_BOOTSTRAP_API_KEY: KEY,
  MAILROOM_RATE_LIMIT: '1000000',
  MAILROOM_RECIPIENT_RATE_LIMIT: '1000000', // the accept leg measures PostgreSQL, not the limiter (5,000/s refused it on a quiet box)
  MAILROOM_SECRET_KEY: 'bench-secret',
  MAILROOM_DNS_SERVERS: dns.address,
  MAILROOM_MX_HOST: 'mx.mailroom.test',
  MAILROOM_OUTBOUND_PORT: String(SINK_PORT),
  MAILROOM_ALLOW_PRIVATE_NETWORKS: 'true',
};
const c = new pg.Client({ connectionString: db.url });
await c.connect();
const statements = (await c.query("SELECT 1 FROM pg_available_extensions WHERE name = 'pg_stat_statements'")).rowCount
  ? await c
      .query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements')
      .then(() => c.query('SELECT pg_stat_statements_reset()'))
      .then(
        () => true,
        () => false,
      )
  : false;

interface Meter {
  /** Takes the CPU reading; call before stopping the service (its backends' CPU would move to the postmaster's reaped total anyway). */
  cpu(): void;
  /** The rest, after the service stopped (its backends flushed their statistics on exit). */
  end(label: string, items: number): Promise<Record<string, unknown>>;
}
// And the emails table's updates, and how many of them were HOT (no index entry written: 0082).
const WAL = `SELECT pg_current_wal_insert_lsn() AS lsn, (SELECT sum(xact_commit)::float8 FROM pg_stat_database) AS commits,
  (SELECT n_tup_upd::float8 FROM pg_stat_user_tables WHERE relname = 'emails') AS upd,
  (SELECT n_tup_hot_upd::float8 FROM pg_stat_user_tables WHERE relname = 'emails') AS hot`;
/** Starts measuring PostgreSQL: CPU, WAL, statements. */
async function meter(): Promise<Meter> {
  if (statements) await c.query('SELECT pg_stat_statements_reset()');
  await sleep(1_100); // statistics are flushed by each backend at most once a second
  await c.query('SELECT pg_stat_clear_snapshot()');
  const wal0 = (await c.query(WAL)).rows[0];
  const cpu0 = postgresCpuSeconds();
  let cpu: number | undefined;
  return {
    cpu() {
      cpu = postgresCpuSeconds() - cpu0;
    },
    async end(label, items) {
      if (cpu === undefined) cpu = postgresCpuSeconds() - cpu0;
      await sleep(1_100);
      await c.query('SELECT pg_stat_clear_snapshot()');
      const wal1 = (await c.query(WAL)).rows[0];
      const bytes = Number(
        (await c.query('SELECT pg_wal_lsn_diff($1, $2)::float8 AS d', [wal1.lsn, wal0.lsn])).rows[0].d,
      );
      const out: Record<string, unknown> = {
        postgres_cpu_us_per_email: Math.round((cpu! / items) * 1e6),
        wal_bytes_per_email: Math.round(bytes / items),
        commits_per_email: +((wal1.commits - wal0.commits - 3) / items).toFixed(2), // less this meter's own
        emails_updates_per_email: +((wal1.upd - wal0.upd) / items).toFixed(2),
        emails_hot_share: wal1.upd > wal0.upd ? +((wal1.hot - wal0.hot) / (wal1.upd - wal0.upd)).toFixed(2) : null,
        load: loadAverage(),
      };
      if (statements) {
        const { rows } = await c.query(
          `SELECT calls::int, total_exec_time::float8 AS ms, total_plan_time::float8 AS plan, wal_records::float8 AS wal, rows::float8 AS rows,
             regexp_replace(left(query, 150), '\\s+', ' ', 'g') AS q
           FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
             AND query NOT LIKE '%pg_stat_%'
           ORDER BY total_exec_time + total_plan_time DESC`,
        );
        const total = rows.reduce((a, r) => a + r.ms, 0);
        out.statements_plan_us_per_email = Math.round((rows.reduce((a, r) => a + r.plan, 0) / items) * 1000);
        out.statements_per_email = +(rows.reduce((a, r) => a + r.calls, 0) / items).toFixed(2);
        out.statements_exec_us_per_email = Math.round((total / items) * 1000);
        out.wal_records_per_email = +(rows.reduce((a, r) => a + r.wal, 0) / items).toFixed(1);
        console.error(
          `${label}: statements' execution ${Math.round((total / items) * 1000)} us per email, ${rows.length} statements`,
        );
        console.error('   us/email  plan us/email  calls/email  wal/call  statement');
        for (const r of rows.slice(0, 15))
          console.error(
            `  ${((r.ms / items) * 1000).toFixed(0).padStart(8)} ${((r.plan / items) * 1000).toFixed(0).padStart(14)} ${(r.calls / items).toFixed(3).padStart(12)} ${(r.wal / Math.max(1, r.calls)).toFixed(1).padStart(9)}  ${r.q}`,
          );
      }
      console.error(`${label}: ${JSON.stringify(out)}`);
      return out;
    },
  };
}

const result: Record<string, unknown> = {
  machine: machine(),
  emails: M,
  broadcast_copies: B,
  load_before: loadAverage(),
};
execFileSync(sinkSh, ['start', String(SINK_PORT)]);
try {
  // 1. Single emails: accepted by the api role, with a webhook endpoint for email.sent and email.delivered.
  const apiSvc = await startService({ ...env, MAILROOM_ROLES: 'api' });
  // An experiment on the migrated schema (e.g. an index dropped), before any email is written.
  if (process.env.BENCH_SQL) await c.query(process.env.BENCH_SQL);
  const dom = await api(apiSvc.url, KEY, 'POST', '/domains', { name: 'bench.example' });
  publishRecords(dns, 'bench.example', dom.records as WireRecord[]);
  await api(apiSvc.url, KEY, 'POST', `/domains/${dom.id}/verify`);
  await api(apiSvc.url, KEY, 'POST', '/webhooks', {
    endpoint: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
    events: ['email.sent', 'email.delivered'],
  });
  const email = { from: 'Bench <bench@bench.example>', subject: 'Delivery benchmark', html: BODY, text: '' };
  {
    const m = await meter();
    const cpu0 = cpuSeconds(apiSvc.proc.pid!);
    let next = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let i = (next += 100) - 100; i < M; i = (next += 100) - 100)
          await api(
            apiSvc.url,
            KEY,
            'POST',
            '/emails/batch',
            Array.from({ length: Math.min(100, M - i) }, (_, j) => ({ ...email, to: `r${i + j}@sink.test` })),
          );
      }),
    );
    m.cpu();
    const apiUs = Math.round(((cpuSeconds(apiSvc.proc.pid!) - cpu0) / M) * 1e6);
    await apiSvc.stop();
    result.accept = { ...(await m.end('accept', M)), api_cpu_us_per_email: apiUs };
  }
  {
    const base = sinkMessages(SINK_PORT);
    hooks = 0;
    const worker = await startService({ ...env, MAILROOM_ROLES: 'worker' });
    const m = await meter();
    const cpu0 = cpuSeconds(worker.proc.pid!);
    const seconds = await waitForSink(SINK_PORT, base + M, 900_000);
    for (let t = Date.now(); hooks < 2 * M && Date.now() - t < 300_000; ) await sleep(50);
    m.cpu();
    const workerUs = Math.round(((cpuSeconds(worker.proc.pid!) - cpu0) / M) * 1e6);
    await worker.stop();
    result.delivery = {
      ...(await m.end('delivery and webhooks', M)),
      messages_per_s: Math.round(M / seconds),
      webhooks_posted: hooks,
      worker_cpu_us_per_email: workerUs,
    };
  }

  // 2. The peer: the same rows into tables with a primary key only.
  {
    await c.query('CREATE TABLE bare_emails (LIKE emails INCLUDING DEFAULTS, PRIMARY KEY (id))');
    await c.query('CREATE TABLE bare_events (LIKE email_events INCLUDING DEFAULTS, PRIMARY KEY (id))');
    await c.query('CHECKPOINT');
    const n = Number((await c.query('SELECT count(*) FROM emails')).rows[0].count);
    const m = await meter();
    await c.query('INSERT INTO bare_emails SELECT * FROM emails');
    await c.query('INSERT INTO bare_events SELECT * FROM email_events');
    await c.query("UPDATE bare_emails SET last_event = 'sent'");
    result.peer_set_statements = { ...(await m.end('peer: INSERT ... SELECT, UPDATE', n)), emails: n };
    await c.query('TRUNCATE bare_emails, bare_events');
    await c.query('CHECKPOINT');
    // One statement per row, each its own transaction (as each email's accept and delivery result commit).
    const ids = (await c.query('SELECT id FROM emails ORDER BY created_at')).rows.map((r) => r.id as string);
    const evIds = (await c.query('SELECT id FROM email_events ORDER BY created_at')).rows.map((r) => r.id as string);
    const m2 = await meter();
    for (const id of ids) await c.query('INSERT INTO bare_emails SELECT * FROM emails WHERE id = $1', [id]);
    for (const id of evIds) await c.query('INSERT INTO bare_events SELECT * FROM email_events WHERE id = $1', [id]);
    for (const id of ids) await c.query("UPDATE bare_emails SET last_event = 'delivered' WHERE id = $1", [id]);
    result.peer_row_statements = {
      ...(await m2.end('peer: one statement per row', n)),
      emails: n,
      events: evIds.length,
    };
    await c.query('DROP TABLE bare_emails, bare_events');
  }

  // 3. A broadcast of B copies: expansion, delivery, webhooks, all roles in one process.
  if (B > 0) {
    const svc = await startService({ ...env, MAILROOM_ROLES: 'api,worker' });
    const seg = await api(svc.url, KEY, 'POST', '/segments', { name: 'All' });
    await c.query(
      `WITH x AS (INSERT INTO contacts (id, team_id, email, first_name, created_at)
         SELECT gen_random_uuid(), (SELECT team_id FROM segments WHERE id = $2), 'b' || i || '@sink.test', 'R' || i, now() - (($1 - i) * interval '1 millisecond')
         FROM generate_series(1, $1) i RETURNING id)
       INSERT INTO contact_segments (contact_id, segment_id) SELECT id, $2 FROM x`,
      [B, seg.id],
    );
    await c.query('VACUUM ANALYZE contacts');
    await c.query('VACUUM ANALYZE contact_segments');
    const draft = await api(svc.url, KEY, 'POST', '/broadcasts', {
      segment_id: seg.id,
      from: 'News <news@bench.example>',
      subject: 'Hi {{{FIRST_NAME}}}',
      html: `<p>Hello {{{contact.first_name|there}}}</p>${BODY}<a href="{{{RESEND_UNSUBSCRIBE_URL}}}">unsubscribe</a>`,
    });
    const base = sinkMessages(SINK_PORT);
    hooks = 0;
    const m = await meter();
    const cpu0 = cpuSeconds(svc.proc.pid!);
    await api(svc.url, KEY, 'POST', `/broadcasts/${draft.id}/send`, {});
    const seconds = await waitForSink(SINK_PORT, base + B, 900_000);
    for (let t = Date.now(); hooks < 2 * B && Date.now() - t < 300_000; ) await sleep(50);
    m.cpu();
    const svcUs = Math.round(((cpuSeconds(svc.proc.pid!) - cpu0) / B) * 1e6);
    await svc.stop();
    result.broadcast = {
      ...(await m.end('broadcast', B)),
      messages_per_s: Math.round(B / seconds),
      webhooks_posted: hooks,
      service_cpu_us_per_copy: svcUs,
    };
  }
  const a = result.accept as { postgres_cpu_us_per_email: number };
  const d = result.delivery as { postgres_cpu_us_per_email: number };
  const p = result.peer_set_statements as { postgres_cpu_us_per_email: number };
  const r = result.peer_row_statements as { postgres_cpu_us_per_email: number };
  const life = a.postgres_cpu_us_per_email + d.postgres_cpu_us_per_email;
  result.single_email_life_us = life;
  result.ratio_to_peer_set = +(life / Math.max(1, p.postgres_cpu_us_per_email)).toFixed(1);
  result.ratio_to_peer_rows = +(life / Math.max(1, r.postgres_cpu_us_per_email)).toFixed(1);
  console.log(JSON.stringify(result, null, 2));
} finally {
  execFileSync(sinkSh, ['stop', String(SINK_PORT)]);
  await c.end();
  await dns.close();
  await db.drop();
  receiver.close();
}
