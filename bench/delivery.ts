// Outbound delivery throughput (issue 3 target: >= 1,000 messages/s to a local sink, DKIM
// RSA-2048, connection reuse) with Postfix relaying the same number of messages of the same size
// to the same sink in the same run; then the latency from the API's 200 to the receiving server
// at low load (target p50 < 100 ms). Usage: npm run build && node --import tsx bench/delivery.ts [N]
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
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
  postgresCpuSeconds,
  ROOT,
  postfixRelay,
  sinkMessages,
  startService,
  waitForSink as waitForSinkOn,
} from './lib.js';

const N = Number(process.argv[2] ?? 10_000);
const SINK_PORT = 26026;
const PF_PORT = 26025;
const sinkSh = path.join(ROOT, 'bench/peers/smtp-sink.sh');
// The sink's counter file read in-process, as `smtp-sink.sh count` reads it: polling through the
// script spawned bash, tail, tr and grep ten times a second (~15% of a core taken from both
// Mailroom and Postfix while they were measured).
const sinkCount = (): number => sinkMessages(SINK_PORT);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const BODY = `<p>${'Benchmark delivery body. '.repeat(60)}</p>`; // ~1.6 KB of HTML, ~2 KB signed message

const waitForSink = (target: number, timeoutMs: number) => waitForSinkOn(SINK_PORT, target, timeoutMs);

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
const result: Record<string, unknown> = { machine: machine(), messages: N };
execFileSync(sinkSh, ['start', String(SINK_PORT)]);
try {
  // 1. Accept N emails with the api role only, so the worker starts with a full queue.
  const apiSvc = await startService({ ...env, MAILROOM_ROLES: 'api' });
  const dom = await api(apiSvc.url, KEY, 'POST', '/domains', { name: 'bench.example' });
  publishRecords(dns, 'bench.example', dom.records as WireRecord[]);
  await api(apiSvc.url, KEY, 'POST', `/domains/${dom.id}/verify`);
  const email = { from: 'Bench <bench@bench.example>', subject: 'Delivery benchmark', html: BODY, text: '' };
  for (let i = 0; i < N; i += 100) {
    await api(
      apiSvc.url,
      KEY,
      'POST',
      '/emails/batch',
      Array.from({ length: Math.min(100, N - i) }, (_, j) => ({ ...email, to: `r${i + j}@sink.test` })),
    );
  }
  await apiSvc.stop();

  // 2. Mailroom: a worker delivers the queue to the sink (MX lookup, DKIM, pooled connections).
  const base = sinkCount();
  const worker = await startService({ ...env, MAILROOM_ROLES: 'worker' });
  const cpu0 = cpuSeconds(worker.proc.pid!);
  const pg0 = postgresCpuSeconds();
  const mrSeconds = await waitForSink(base + N, 600_000);
  const workerUs = Math.round(((cpuSeconds(worker.proc.pid!) - cpu0) / N) * 1e6);
  const pgUs = Math.round(((postgresCpuSeconds() - pg0) / N) * 1e6);
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  const events = Object.fromEntries(
    (await c.query('SELECT type, count(*)::int AS n FROM email_events GROUP BY type')).rows.map((r) => [r.type, r.n]),
  );
  await c.end();
  result.mailroom = {
    seconds: mrSeconds,
    messages_per_s: Math.round(N / mrSeconds),
    worker_cpu_us_per_msg: workerUs,
    postgres_cpu_us_per_msg: pgUs,
    peak_rss_mb: worker.peakRssMb(),
    events,
    load: loadAverage(),
  };
  await worker.stop();

  // 3. Postfix, same run, same sink, same count and size: smtp-source → smtpd (queue on disk) → smtp → sink.
  result.postfix = await postfixRelay(N, 2000, PF_PORT, SINK_PORT, '/tmp/mr-bench-postfix');
  result.ratio_mailroom_to_postfix = Number(
    (
      (result.mailroom as { messages_per_s: number }).messages_per_s /
      (result.postfix as { messages_per_s: number }).messages_per_s
    ).toFixed(2),
  );

  // 4. Latency at low load: all roles, 20 emails/s for 10 s, to a recording server that timestamps arrivals.
  const rec = await startRecordingSmtp();
  dns.set('rec.test', 'MX', [{ exchange: 'mx.rec.test', priority: 10 }]);
  dns.set('mx.rec.test', 'A', ['127.0.0.1']);
  const all = await startService({ ...env, MAILROOM_OUTBOUND_PORT: String(rec.port) });
  const sentAt = new Map<string, number>();
  for (let i = 0; i < 200; i++) {
    const to = `lat${i}@rec.test`;
    await api(all.url, KEY, 'POST', '/emails', { ...email, to });
    sentAt.set(to, Date.now());
    await sleep(50);
  }
  await rec.waitFor(200, 30_000);
  const lat = rec.messages.map((m) => m.receivedAt - sentAt.get(m.rcptTo[0])!).sort((a, b) => a - b);
  result.latency_ms = {
    p50: lat[Math.floor(lat.length * 0.5)],
    p99: lat[Math.floor(lat.length * 0.99)],
    max: lat[lat.length - 1],
    samples: lat.length,
  };
  await all.stop();
  await rec.close();
  console.log(JSON.stringify(result, null, 2));
} finally {
  execFileSync(sinkSh, ['stop', String(SINK_PORT)]);
  await dns.close();
  await db.drop();
}
