// A broadcast delivered end to end (issue #14): N contacts, one broadcast (personalized, ~3.5 KB
// html, unsubscribe link and RFC 8058 headers, DKIM RSA-2048 per recipient) from `send` until the
// local sink (`smtp-sink`) has all N, by one Mailroom process (roles api and worker) (defaults: pacing
// window 1,000, page 500); meanwhile transactional `POST /emails` at 5/s, each timed from the API's
// answer to its `email.delivered` event (recorded after the sink's 250). Peers in the same run:
// Mailroom's own single-email delivery rate (M transactional emails queued by the api role, then
// delivered by a worker, as bench/delivery.ts), and Postfix relaying N messages of the same size
// to the same sink (smtp-source → private Postfix → sink). Peak RSS of each process. Also M single
// emails end to end (sent through the API while a worker in the same process delivers them), the
// broadcast's like-for-like peer: the delivery-only leg excludes the emails' acceptance.
// Usage: npm run build && bench/peers/install.sh && node --import tsx bench/broadcast-delivery.ts [N=100000] [M=10000]
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
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
  percentile,
  pgStatements,
  postgresCpuSeconds,
  postfixRelay,
  ROOT,
  sinkMessages,
  startService,
  waitForSink as waitForSinkOn,
} from './lib.js';

const N = Number(process.argv[2] ?? 100_000);
const M = Number(process.argv[3] ?? 10_000);
const SINK_PORT = 26036;
const PF_PORT = 26035;
const sinkSh = path.join(ROOT, 'bench/peers/smtp-sink.sh');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sinkCount = (): number => sinkMessages(SINK_PORT);
const waitForSink = (target: number, timeoutMs: number, onTick?: () => void) =>
  waitForSinkOn(SINK_PORT, target, timeoutMs, onTick);
/** Peak RSS (MB) of a process and its children so far, sampled. */
const rssMb = (pid: number): number => {
  try {
    return Math.round(Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024);
  } catch {
    return 0;
  }
};

const HTML =
  '<p>Hello {{{contact.first_name|there}}}</p>' +
  '<p>Lorem ipsum dolor sit amet.</p>'.repeat(100) +
  '<a href="{{{RESEND_UNSUBSCRIBE_URL}}}">unsubscribe</a>';
const dns = await startFakeDns();
dns.set('mx.mailroom.test', 'A', ['127.0.0.1']);
dns.set('sink.test', 'MX', [{ exchange: 'mx.sink.test', priority: 10 }]);
dns.set('mx.sink.test', 'A', ['127.0.0.1']);
const db = await freshDb();
const env = {
  MAILROOM_DATABASE_URL: db.url,
  MAILROOM_BOOTSTRAP_API_KEY: KEY,
  MAILROOM_RATE_LIMIT: '1000000',
  MAILROOM_RECIPIENT_RATE_LIMIT: '100000000', // the accept leg outruns the default 5,000 recipients a second (a 429 ended the run)
  MAILROOM_SECRET_KEY: 'bench-secret',
  MAILROOM_DNS_SERVERS: dns.address,
  MAILROOM_MX_HOST: 'mx.mailroom.test',
  MAILROOM_OUTBOUND_PORT: String(SINK_PORT),
};
const result: Record<string, unknown> = {
  machine: machine(),
  broadcast_recipients: N,
  single_emails: M,
  load_before: loadAverage(),
};
execFileSync(sinkSh, ['start', String(SINK_PORT)]);
const c = new pg.Client({ connectionString: db.url });
try {
  // 1. Mailroom's single-email delivery rate: M emails queued by the api role, then a worker delivers them.
  const apiSvc = await startService({ ...env, MAILROOM_ROLES: 'api' });
  const dom = await api(apiSvc.url, KEY, 'POST', '/domains', { name: 'bench.example' });
  publishRecords(dns, 'bench.example', dom.records as WireRecord[]);
  await api(apiSvc.url, KEY, 'POST', `/domains/${dom.id}/verify`);
  const single = {
    from: 'Bench <bench@bench.example>',
    subject: 'Delivery benchmark',
    html: HTML.replace(/\{\{\{[^}]+\}\}\}/g, 'x'),
  };
  for (let i = 0; i < M; i += 100) {
    await api(
      apiSvc.url,
      KEY,
      'POST',
      '/emails/batch',
      Array.from({ length: Math.min(100, M - i) }, (_, j) => ({ ...single, to: `s${i + j}@sink.test` })),
    );
  }
  await apiSvc.stop();
  {
    const base = sinkCount();
    const worker = await startService({ ...env, MAILROOM_ROLES: 'worker' });
    const stmts = await pgStatements(db.url);
    const cpu0 = cpuSeconds(worker.proc.pid!);
    const pg0 = postgresCpuSeconds();
    const s = await waitForSink(base + M, 1_800_000);
    result.single_email_delivery = {
      seconds: s,
      messages_per_s: Math.round(M / s),
      worker_cpu_us_per_msg: Math.round(((cpuSeconds(worker.proc.pid!) - cpu0) / M) * 1e6),
      postgres_cpu_us_per_msg: Math.round(((postgresCpuSeconds() - pg0) / M) * 1e6),
      peak_rss_mb: worker.peakRssMb(),
      load: loadAverage(),
    };
    await worker.stop();
    await stmts.report('single-email delivery', M);
    console.error(JSON.stringify({ single_email_delivery: result.single_email_delivery }));
  }
  {
    // 1b. The same M single emails end to end, as the broadcast is measured: one process with the
    // api and worker roles, the emails sent through POST /emails/batch (100 a request, 4 clients at
    // once) while the worker delivers, timed from the first request until the sink has all M.
    const svc = await startService({ ...env, MAILROOM_ROLES: 'api,worker' });
    const base = sinkCount();
    const stmts = await pgStatements(db.url);
    const cpu0 = cpuSeconds(svc.proc.pid!);
    const pg0 = postgresCpuSeconds();
    const t0 = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let i = (next += 100) - 100; i < M; i = (next += 100) - 100) {
          await api(
            svc.url,
            KEY,
            'POST',
            '/emails/batch',
            Array.from({ length: Math.min(100, M - i) }, (_, j) => ({ ...single, to: `e${i + j}@sink.test` })),
          );
        }
      }),
    );
    const acceptS = (performance.now() - t0) / 1000;
    const s = acceptS + (await waitForSink(base + M, 1_800_000));
    result.single_email_end_to_end = {
      seconds: s,
      messages_per_s: Math.round(M / s),
      accepted_in_s: acceptS,
      service_cpu_us_per_msg: Math.round(((cpuSeconds(svc.proc.pid!) - cpu0) / M) * 1e6),
      postgres_cpu_us_per_msg: Math.round(((postgresCpuSeconds() - pg0) / M) * 1e6),
      peak_rss_mb: svc.peakRssMb(),
      load: loadAverage(),
    };
    await svc.stop();
    await stmts.report('single emails end to end', M);
    console.error(JSON.stringify({ single_email_end_to_end: result.single_email_end_to_end }));
  }

  // 2. The broadcast: N contacts, all roles in one process.
  await c.connect();
  const svc = await startService({ ...env, MAILROOM_ROLES: 'api,worker' });
  const seg = await api(svc.url, KEY, 'POST', '/segments', { name: 'All' });
  await c.query(
    `WITH x AS (INSERT INTO contacts (id, team_id, email, first_name, created_at)
       SELECT gen_random_uuid(), (SELECT team_id FROM segments WHERE id = $2), 'r' || i || '@sink.test', 'R' || i, now() - (($1 - i) * interval '1 millisecond')
       FROM generate_series(1, $1) i RETURNING id)
     INSERT INTO contact_segments (contact_id, segment_id) SELECT id, $2 FROM x`,
    [N, seg.id],
  );
  await c.query('VACUUM ANALYZE contacts');
  await c.query('VACUUM ANALYZE contact_segments');
  const draft = await api(svc.url, KEY, 'POST', '/broadcasts', {
    segment_id: seg.id,
    from: 'News <news@bench.example>',
    subject: 'Hi {{{FIRST_NAME}}}',
    html: HTML,
  });
  const base = sinkCount();
  const stmts = await pgStatements(db.url);
  const cpu0 = cpuSeconds(svc.proc.pid!);
  const pg0 = postgresCpuSeconds();
  let peakRss = 0;
  const t0 = performance.now();
  await api(svc.url, KEY, 'POST', `/broadcasts/${draft.id}/send`, {});
  const sendMs = performance.now() - t0;
  // Transactional mail while it runs: 5/s, to the same sink.
  const tx: { id: string; answeredAt: number }[] = [];
  let sending = true;
  const txLoop = (async () => {
    for (let i = 0; sending && i < 100_000; i++) {
      const r = await api(svc.url, KEY, 'POST', '/emails', {
        ...single,
        to: `t${i}@sink.test`,
        subject: `Transactional ${i}`,
      });
      tx.push({ id: r.id, answeredAt: Date.now() });
      await sleep(200);
    }
  })();
  const seconds = await waitForSink(base + N, 3_600_000, () => {
    peakRss = Math.max(peakRss, rssMb(svc.proc.pid!));
  });
  sending = false;
  await txLoop;
  const cpu = cpuSeconds(svc.proc.pid!) - cpu0;
  const pgCpu = postgresCpuSeconds() - pg0;
  await stmts.report('broadcast', N);
  await sleep(5_000); // the last transactional emails' deliveries
  const delivered = new Map(
    (
      await c.query(
        `SELECT email_id::text AS id, (extract(epoch FROM min(created_at)) * 1000)::float8 AS at FROM email_events WHERE type = 'email.delivered' AND email_id = ANY($1::uuid[]) GROUP BY email_id`,
        [tx.map((x) => x.id)],
      )
    ).rows.map((r) => [r.id, r.at as number]),
  );
  const lat = tx.filter((x) => delivered.has(x.id)).map((x) => delivered.get(x.id)! - x.answeredAt);
  const counts = (
    await c.query(
      `SELECT (SELECT count(*) FROM emails WHERE broadcast_id = $1)::int AS emails,
            (SELECT count(*) FROM email_events ev JOIN emails e ON e.id = ev.email_id WHERE e.broadcast_id = $1 AND ev.type = 'email.delivered')::int AS delivered`,
      [draft.id],
    )
  ).rows[0];
  result.broadcast = {
    send_answer_ms: Math.round(sendMs),
    seconds,
    messages_per_s: Math.round(N / seconds),
    service_cpu_us_per_msg: Math.round((cpu / N) * 1e6),
    postgres_cpu_us_per_msg: Math.round((pgCpu / N) * 1e6),
    peak_rss_mb: Math.max(peakRss, svc.peakRssMb()),
    ...counts,
    load: loadAverage(),
    transactional_during: {
      sent: tx.length,
      delivered: lat.length,
      p50_ms: percentile(lat, 50),
      p95_ms: percentile(lat, 95),
      max_ms: Math.max(...lat),
    },
  };
  await svc.stop();
  console.error(JSON.stringify({ broadcast: result.broadcast }));

  // 3. Postfix, same run, same sink, same count, about the same size (each broadcast copy is ~4.5 KB signed).
  // BENCH_SKIP_POSTFIX=1 leaves it out (profiling runs; a reported result always has it).
  if (!process.env.BENCH_SKIP_POSTFIX) {
    result.postfix = await postfixRelay(N, 4500, PF_PORT, SINK_PORT, '/tmp/mr-bench-postfix-bcast');
  }
  const b = result.broadcast as { messages_per_s: number };
  result.ratio_broadcast_to_single = Number(
    (b.messages_per_s / (result.single_email_delivery as { messages_per_s: number }).messages_per_s).toFixed(2),
  );
  result.ratio_broadcast_to_single_end_to_end = Number(
    (b.messages_per_s / (result.single_email_end_to_end as { messages_per_s: number }).messages_per_s).toFixed(2),
  );
  if (result.postfix)
    result.ratio_broadcast_to_postfix = Number(
      (b.messages_per_s / (result.postfix as { messages_per_s: number }).messages_per_s).toFixed(2),
    );
  result.bench_peak_rss_mb = Math.round(process.resourceUsage().maxRSS / 1024);
  console.log(JSON.stringify(result, null, 2));
} finally {
  await c.end().catch(() => undefined);
  execFileSync(sinkSh, ['stop', String(SINK_PORT)]);
  await dns.close();
  await db.drop();
}
