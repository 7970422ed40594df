// Memory of one process with the api and worker roles (the default single-process install) while M
// single emails are sent through POST /emails/batch (100 a request, 4 clients) and delivered to a local
// sink (issue 27: peak RSS <= 250 MB for each role under each benchmark). Every 250 ms it reads the
// service's /metrics: RSS, V8 heap in use and reserved, external memory and Buffers; it reports the
// peak RSS and what made it up at that moment. Two diagnostic modes, each its own run because the
// instruments hold memory themselves (their RSS is not a result): BENCH_SNAPSHOT=1 takes a heap
// snapshot once the RSS passes 200 MB and reports the heap that is live then (what is really held,
// the rest being garbage not yet collected); BENCH_ALLOC=1 runs V8's sampling heap profiler in the
// service (bench/memory/alloc-sampler.mjs) and prints the functions that allocated the most bytes
// per email, garbage included (BENCH_ALLOC=promoted: only what outlived the young generation, the
// promoted garbage a full collection has to find); BENCH_BUFFERS=1 counts the Buffers the service
// allocates and their bytes per email, and where (bench/memory/buffer-sampler.mjs), with the bytes
// it read from sockets and files (/proc/PID/io rchar: the Buffers made in C++ for each read).
// Usage: npm run build && bench/peers/install.sh && node --import tsx bench/memory.ts [M=10000]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
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
  sinkMessages,
  startService,
  waitForSink,
} from './lib.js';

const M = Number(process.argv[2] ?? 10_000);
const SINK_PORT = Number(process.env.BENCH_SINK_PORT ?? 26046); // another port when another run may share the machine (its sink's state dir is per port)
const ALLOC = process.env.BENCH_ALLOC === '1' || process.env.BENCH_ALLOC === 'promoted';
const BUFFERS = process.env.BENCH_BUFFERS === '1';
const SNAPSHOT = process.env.BENCH_SNAPSHOT === '1';
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-memory-'));
const allocFile = path.join(work, 'alloc.heapprofile');
const buffersFile = path.join(work, 'buffers.json');
const sinkSh = path.join(ROOT, 'bench/peers/smtp-sink.sh');
const HTML = '<p>Hello</p>' + '<p>Lorem ipsum dolor sit amet.</p>'.repeat(100);
const MB = 1048576;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const dns = await startFakeDns();
dns.set('mx.mailroom.test', 'A', ['127.0.0.1']);
dns.set('sink.test', 'MX', [{ exchange: 'mx.sink.test', priority: 10 }]);
dns.set('mx.sink.test', 'A', ['127.0.0.1']);
const db = await freshDb();
execFileSync(sinkSh, ['start', String(SINK_PORT)]);
process.env.BENCH_NODE_ARGS = [
  process.env.BENCH_NODE_ARGS ?? '',
  SNAPSHOT ? '--heapsnapshot-signal=SIGUSR1' : '',
  ALLOC ? `--import ${path.join(ROOT, 'bench/memory/alloc-sampler.mjs')}` : '',
  BUFFERS ? `--import ${path.join(ROOT, 'bench/memory/buffer-sampler.mjs')}` : '',
].join(' ');
const svc = await startService({
  MAILROOM_DATABASE_URL: db.url,
  MAILROOM_BOOTSTRAP_API_KEY: KEY,
  MAILROOM_RATE_LIMIT: '1000000',
  MAILROOM_RECIPIENT_RATE_LIMIT: '100000000', // the accept leg outruns the default 5,000 recipients a second (a 429 ended the run)
  MAILROOM_SECRET_KEY: 'bench-secret',
  MAILROOM_DNS_SERVERS: dns.address,
  MAILROOM_MX_HOST: 'mx.mailroom.test',
  MAILROOM_OUTBOUND_PORT: String(SINK_PORT),
  MAILROOM_ROLES: 'api,worker',
  MAILROOM_METRICS_TOKEN: 'bench-metrics',
  BENCH_ALLOC: process.env.BENCH_ALLOC ?? '',
  BENCH_ALLOC_FILE: allocFile,
  BENCH_BUFFERS_FILE: buffersFile,
});
const pid = svc.proc.pid!;
const result: Record<string, unknown> = { machine: machine(), emails: M, load_before: loadAverage() };
try {
  const dom = await api(svc.url, KEY, 'POST', '/domains', { name: 'bench.example' });
  publishRecords(dns, 'bench.example', dom.records as WireRecord[]);
  await api(svc.url, KEY, 'POST', `/domains/${dom.id}/verify`);

  type Sample = { t: number; rss: number; heap_used: number; heap_total: number; external: number; buffers: number };
  const samples: Sample[] = [];
  const t0 = performance.now();
  const read = async (): Promise<Sample> => {
    const text = await (
      await fetch(`${svc.url}/metrics`, { headers: { authorization: 'Bearer bench-metrics' } })
    ).text();
    const v = (n: string) => Math.round(Number(new RegExp(`^${n} (\\S+)`, 'm').exec(text)?.[1]) / MB);
    return {
      t: Math.round(performance.now() - t0),
      rss: v('process_resident_memory_bytes'),
      heap_used: v('nodejs_heap_used_bytes'),
      heap_total: v('nodejs_heap_size_total_bytes'),
      external: v('nodejs_external_memory_bytes'),
      buffers: v('nodejs_array_buffers_bytes'),
    };
  };
  result.at_start = await read();
  const rchar0 = readChars(pid);
  const cpu0 = { svc: cpuSeconds(pid), pg: postgresCpuSeconds() };
  let sampling = true;
  let snapshotAt = 0;
  const sampler = (async () => {
    while (sampling) {
      const s = await read();
      samples.push(s);
      // A snapshot once the RSS passes 200 MB (or the start plus 80): what is held near the peak.
      if (SNAPSHOT && !snapshotAt && s.rss > Math.min(200, (result.at_start as Sample).rss + 80)) {
        snapshotAt = s.rss;
        process.kill(pid, 'SIGUSR1');
      }
      await sleep(250);
    }
  })();

  const single = { from: 'Bench <bench@bench.example>', subject: 'Memory benchmark', html: HTML };
  const base = sinkMessages(SINK_PORT);
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let i = (next += 100) - 100; i < M; i = (next += 100) - 100) {
        const batch = Array.from({ length: Math.min(100, M - i) }, (_, j) => ({
          ...single,
          to: `m${i + j}@sink.test`,
        }));
        await api(svc.url, KEY, 'POST', '/emails/batch', batch);
      }
    }),
  );
  result.accepted_in_s = Math.round(performance.now() - t0) / 1000;
  result.delivered_in_s =
    Math.round(performance.now() - t0) / 1000 + (await waitForSink(SINK_PORT, base + M, 1_800_000));
  sampling = false;
  await sampler;
  const peak = samples.reduce((a, b) => (b.rss > a.rss ? b : a));
  // accept + delivery, the /metrics reads included
  result.cpu_us_per_email = {
    mailroom: Math.round(((cpuSeconds(pid) - cpu0.svc) / M) * 1e6),
    postgres: Math.round(((postgresCpuSeconds() - cpu0.pg) / M) * 1e6),
  };
  result.read_kb_per_email = Math.round(((readChars(pid) - rchar0) / 1024 / M) * 10) / 10;
  if (ALLOC || SNAPSHOT || BUFFERS)
    result.instrumented = 'peak RSS not a result: the profiler or snapshot holds memory';
  result.peak_rss_mb = svc.peakRssMb();
  result.at_peak_sample = peak;
  result.load_after = loadAverage();

  // The heap snapshot is written into the service's working directory (this one).
  const snap = fs.readdirSync(process.cwd()).find((f) => f.startsWith('Heap.') && f.endsWith('.heapsnapshot'));
  if (snap) {
    const file = path.join(work, snap);
    fs.renameSync(snap, file);
    result.live_heap_at_snapshot = { rss_mb: snapshotAt, live_mb: liveHeapMb(file) };
  }
  if (ALLOC) {
    process.kill(pid, 'SIGUSR2');
    for (let i = 0; i < 100 && !fs.existsSync(allocFile); i++) await sleep(100);
    result.allocated_per_email_kb = topAllocators(allocFile, M);
  }
  if (BUFFERS) {
    process.kill(pid, 'SIGUSR2');
    for (let i = 0; i < 100 && !fs.existsSync(buffersFile); i++) await sleep(100);
    const b = JSON.parse(fs.readFileSync(buffersFile, 'utf8'));
    result.buffers_per_email = Math.round((b.buffers / M) * 10) / 10;
    result.buffer_kb_per_email = Math.round((b.bytes / 1024 / M) * 10) / 10;
    result.buffer_kb_per_email_by_site = Object.fromEntries(
      Object.entries(b.sites as Record<string, number>).map(([k, v]) => [k, Math.round((v / 1024 / M) * 10) / 10]),
    );
  }
} finally {
  await svc.stop();
  await db.drop();
  execFileSync(sinkSh, ['stop', String(SINK_PORT)]);
  await dns.close();
}
console.log(JSON.stringify(result, null, 2));
fs.rmSync(work, { recursive: true, force: true });

/** Bytes the process has read (sockets and files), from /proc/PID/io. */
function readChars(pid: number): number {
  return Number(/rchar: (\d+)/.exec(fs.readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? 0);
}

/** The self sizes of every node in a heap snapshot (taken after a full collection), in MB. */
function liveHeapMb(file: string): number {
  const s = JSON.parse(fs.readFileSync(file, 'utf8'));
  const fields: string[] = s.snapshot.meta.node_fields;
  const self = fields.indexOf('self_size');
  let total = 0;
  for (let i = self; i < s.nodes.length; i += fields.length) total += s.nodes[i];
  return Math.round(total / MB);
}

/** The functions that allocated the most (self, and by Mailroom caller), KB per email, from the sampling profile. */
function topAllocators(file: string, emails: number) {
  type Node = {
    callFrame: { functionName: string; url: string; lineNumber: number };
    selfSize: number;
    children: Node[];
  };
  const by = new Map<string, number>();
  // Also by the innermost Mailroom function (dist/) on the stack: which of our steps made the bytes.
  const byOurs = new Map<string, number>();
  const walk = (n: Node, ours: string) => {
    const f = n.callFrame;
    const key = `${f.functionName || '(anonymous)'} ${f.url.replace(`file://${ROOT}/`, '')}:${f.lineNumber + 1}`;
    const inner = f.url.includes('/dist/') ? key : ours;
    by.set(key, (by.get(key) ?? 0) + n.selfSize);
    byOurs.set(inner, (byOurs.get(inner) ?? 0) + n.selfSize);
    for (const c of n.children) walk(c, inner);
  };
  walk(JSON.parse(fs.readFileSync(file, 'utf8')).head, '(no Mailroom frame)');
  let total = 0;
  for (const v of by.values()) total += v;
  const kb = (v: number) => Math.round((v / 1024 / emails) * 10) / 10;
  const top = (m: Map<string, number>) =>
    Object.fromEntries(
      [...m.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 20)
        .map(([k, v]) => [k, kb(v)]),
    );
  return { all: kb(total), by_function: top(by), by_mailroom_caller: top(byOurs) };
}
