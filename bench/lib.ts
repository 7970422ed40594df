// Shared by the benchmarks: a fresh database on the system PostgreSQL, Mailroom started from the
// compiled build as a separate process (so its CPU and memory are its own), peak RSS, machine line.
// Benchmarks measure; they assert nothing about speed, but a leg whose load was refused or failed
// stops the run (allAnswered): a 429 is cheap, so a rate counted over refusals measures nothing.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type autocannon from 'autocannon';

export const ROOT = path.resolve(import.meta.dirname, '..');
const SERVER = process.env.MAILROOM_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export function machine(): string {
  const cpu = /model name\s*:\s*(.*)/.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 'unknown CPU';
  return `${os.cpus().length} cores (${cpu}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, PostgreSQL on 127.0.0.1 (fsync on)`;
}

export async function freshDb(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `mailroom_bench_${Date.now()}`;
  const admin = new pg.Client({ connectionString: SERVER });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const u = new URL(SERVER);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    async drop() {
      const a = new pg.Client({ connectionString: SERVER });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await a.end();
    },
  };
}

/** CPU seconds (user + system) a process has used so far: per-message cost that load from other work skews less than throughput. */
export function cpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
}

/**
 * CPU seconds used so far by the PostgreSQL server the benchmark uses (MAILROOM_BENCH_DATABASE_URL):
 * its postmaster and every live child (backends, walwriter, checkpointer...), plus the children
 * that exited (the postmaster reaps them: its cutime/cstime). The postmaster is found from the
 * socket lock file of the URL's port, so another cluster on the machine (other tests) is not
 * counted. Without a lock file (a remote server) every local `postgres` process is counted.
 */
export function postgresCpuSeconds(): number {
  const postmaster = postmasterPid();
  if (postmaster === undefined) return everyPostgresCpuSeconds();
  let total = 0;
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      if (Number(pid) === postmaster)
        total += (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / 100;
      else if (Number(fields[1]) === postmaster) total += (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
      /* exited meanwhile */
    }
  }
  return total;
}

let postmasterCache: number | undefined | null = null;
function postmasterPid(): number | undefined {
  if (postmasterCache !== null) return postmasterCache;
  const u = new URL(SERVER);
  // a Unix socket directory (postgres://user@%2Fvar%2Frun%2Fpostgresql:PORT/db) is local too
  const local = ['127.0.0.1', 'localhost', '::1', '[::1]', ''].includes(u.hostname) || u.hostname.startsWith('%2F');
  const port = u.port || '5432';
  postmasterCache = undefined;
  for (const dir of ['/var/run/postgresql', '/run/postgresql', '/tmp']) {
    if (!local) break;
    try {
      const pid = Number(fs.readFileSync(`${dir}/.s.PGSQL.${port}.lock`, 'utf8').split('\n')[0]);
      if (pid > 0 && fs.existsSync(`/proc/${pid}`)) {
        postmasterCache = pid;
        break;
      }
    } catch {
      /* not this directory */
    }
  }
  if (postmasterCache === undefined)
    console.error(`postgresCpuSeconds: no postmaster found for ${u.host}; counting every postgres process`);
  return postmasterCache;
}

/** Every PostgreSQL server process on this machine (other work included). */
function everyPostgresCpuSeconds(): number {
  let total = 0;
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') total += cpuSeconds(Number(pid));
    } catch {
      /* exited meanwhile */
    }
  }
  return total;
}

/** Load averages from /proc/loadavg, recorded with every result. */
export const loadAverage = (): string => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

export interface Service {
  proc: ChildProcess;
  url: string;
  peakRssMb(): number;
  stop(): Promise<void>;
}

/** Starts `node dist/main.js start` with env; resolves once it listens (or the worker has started). */
export async function startService(env: Record<string, string>): Promise<Service> {
  if (!fs.existsSync(path.join(ROOT, 'dist/main.js'))) throw new Error('run `npm run build` first');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-bench-'));
  // BENCH_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") profiles the service.
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const proc = spawn(process.execPath, [...nodeArgs, path.join(ROOT, 'dist/main.js'), 'start'], {
    env: {
      PATH: process.env.PATH!,
      // glibc's allocator settings (MALLOC_ARENA_MAX, MALLOC_MMAP_THRESHOLD_, ...) reach the service, so
      // their effect on its RSS can be measured (issue 27: freed Buffers kept resident by malloc).
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('MALLOC_'))),
      MAILROOM_DATA_DIR: dataDir,
      MAILROOM_LOG_LEVEL: 'info',
      MAILROOM_HTTP_LISTEN: '127.0.0.1:0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  // BENCH_STDOUT_FILE: all of the service's stdout also goes there (e.g. --trace-gc lines in BENCH_NODE_ARGS).
  const tee = process.env.BENCH_STDOUT_FILE ? fs.createWriteStream(process.env.BENCH_STDOUT_FILE) : undefined;
  // Only the start-up lines are kept; the rest is drained so the pipe never blocks the service.
  proc.stdout!.on('data', (d) => {
    tee?.write(d);
    if (out.length < 100_000) out += d;
  });
  const started = Date.now();
  let url = '';
  // BENCH_START_MS: a longer wait on a machine loaded by other work (a start took over 30 s at load 30).
  while (Date.now() - started < Number(process.env.BENCH_START_MS ?? 30_000)) {
    if (/"mailroom started"/.test(out) || /"http listening"/.test(out)) {
      url = /"http":"([^"]+)"/.exec(out)?.[1] ?? /"url":"([^"]+)"/.exec(out)?.[1] ?? '';
      break;
    }
    if (proc.exitCode !== null) throw new Error(`service exited: ${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  if (!/"mailroom started"/.test(out) && !url) {
    proc.kill('SIGKILL');
    throw new Error(`service did not start: ${out}`);
  }
  return {
    proc,
    url,
    peakRssMb() {
      const status = fs.readFileSync(`/proc/${proc.pid}/status`, 'utf8');
      return Math.round(Number(/VmHWM:\s+(\d+)/.exec(status)![1]) / 1024);
    },
    async stop() {
      if (proc.exitCode === null) {
        const exited = new Promise((r) => proc.once('exit', r));
        proc.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
        if (proc.exitCode === null) proc.kill('SIGKILL');
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function api(url: string, key: string, method: string, p: string, body?: unknown): Promise<any> {
  const res = await fetch(url + p, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/**
 * Throws, naming the counts, unless every request of a load leg was answered with an expected
 * status (2xx unless `expected` says otherwise, e.g. 302 for a redirect leg) and none failed or
 * timed out: no rate is printed for a leg that measured refusals (issue 25: a batch leg over the
 * recipient rate limit reported 5,025 emails/s from 15,658 answers of 429).
 */
export function allAnswered(
  leg: string,
  r: autocannon.Result,
  expected: (status: number) => boolean = (s) => s >= 200 && s < 300,
): void {
  const unexpected = Object.entries(r.statusCodeStats).filter(([status]) => !expected(Number(status)));
  const refused = unexpected.reduce((n, [, c]) => n + c.count, 0);
  if (refused === 0 && r.errors === 0 && r.timeouts === 0) return;
  const by = unexpected.map(([status, c]) => `${c.count} x ${status}`).join(', ') || 'none';
  throw new Error(
    `${leg}: of ${r.requests.sent} requests, ${refused} unexpected answers (${by}), ${r.errors} errors, ${r.timeouts} timeouts; ` +
      'no rate is reported for a leg whose load was refused or failed (raise the limit that refused it in the service env)',
  );
}

export const KEY = 're_bench_0000_benchbenchbenchbenchbench';

/**
 * For the serve.ts scripts a shell benchmark drives: runs `setup`, prints its result as one JSON
 * line, and keeps the service up until stdin closes (or SIGTERM); then `stop`, and exit.
 */
export async function serveUntilStdinEnds(setup: () => Promise<unknown>, stop: () => Promise<void>): Promise<void> {
  const end = async () => {
    await stop();
    process.exit(0);
  };
  try {
    console.log(JSON.stringify(await setup()));
  } catch (err) {
    console.error(err);
    await end();
  }
  process.stdin.resume();
  process.stdin.on('end', () => void end());
  process.on('SIGTERM', () => void end());
}

/** The p-th percentile of samples (nearest rank). */
export const percentile = (xs: number[], p: number): number =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
export const latencySummary = (xs: number[], digits = 1) => ({
  p50_ms: +percentile(xs, 50).toFixed(digits),
  p95_ms: +percentile(xs, 95).toFixed(digits),
  max_ms: +Math.max(...xs).toFixed(digits),
});

/** Milliseconds of each of n sequential calls, after one warm-up call. */
export async function timeCalls(fn: () => Promise<unknown>, n: number): Promise<number[]> {
  await fn();
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    out.push(performance.now() - t);
  }
  return out;
}

/** Messages the local smtp-sink on `port` has counted (the last `mesg=` of its counter file, read from its tail). */
export function sinkMessages(port: number): number {
  const fd = fs.openSync(`/tmp/mr-sink-${port}/counter`, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    const buf = Buffer.alloc(Math.min(200, size));
    fs.readSync(fd, buf, 0, buf.length, size - buf.length);
    const last = buf
      .toString('latin1')
      .split(/[\r\n]/)
      .filter((l) => l.includes('mesg='))
      .pop();
    return last ? Number(last.slice(last.lastIndexOf('mesg=') + 5)) : 0;
  } finally {
    fs.closeSync(fd);
  }
}

/** Waits until the sink on `port` has counted `target` messages; the seconds it took. */
export async function waitForSink(
  port: number,
  target: number,
  timeoutMs: number,
  onTick?: () => void,
): Promise<number> {
  const t0 = Date.now();
  while (sinkMessages(port) < target) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`sink has ${sinkMessages(port)} of ${target}`);
    onTick?.();
    await new Promise((r) => setTimeout(r, 50));
  }
  return (Date.now() - t0) / 1000;
}

/**
 * The peer: `n` messages of `bytes` each from smtp-source (20 sessions) through a private Postfix
 * on `pfPort` (queue on disk, as Postfix runs) relayed to the sink on `sinkPort`, timed to the last
 * message counted there.
 */
export async function postfixRelay(
  n: number,
  bytes: number,
  pfPort: number,
  sinkPort: number,
  dir: string,
): Promise<{ seconds: number; messages_per_s: number; load: string; version: string }> {
  const pfSh = path.join(ROOT, 'bench/peers/postfix-instance.sh');
  execFileSync(pfSh, ['start', dir, String(pfPort), String(sinkPort)]);
  try {
    const base = sinkMessages(sinkPort);
    const args = ['-d', '-s', '20', '-m', String(n), '-l', String(bytes), '-f', 'bench@bench.example'];
    const src = spawn('smtp-source', [...args, '-t', 'r@sink.test', `127.0.0.1:${pfPort}`], { stdio: 'ignore' });
    const seconds = await waitForSink(sinkPort, base + n, 3_600_000);
    src.kill();
    return {
      seconds,
      messages_per_s: Math.round(n / seconds),
      load: loadAverage(),
      version: execFileSync('postconf', ['-d', 'mail_version']).toString().trim(),
    };
  } finally {
    execFileSync(pfSh, ['stop', dir]);
  }
}

/**
 * BENCH_PG_STATEMENTS=1 (needs `shared_preload_libraries = 'pg_stat_statements'` on the server):
 * resets the server's statement statistics, and later prints the statements that took the most
 * execution time since, per message (`perItems`), to stderr. Otherwise does nothing.
 */
export async function pgStatements(url: string): Promise<{ report(label: string, perItems: number): Promise<void> }> {
  if (!process.env.BENCH_PG_STATEMENTS)
    return {
      async report() {
        /* off */
      },
    };
  // The client ends with the report (the benchmark drops its database after).
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  await c.query('SELECT pg_stat_statements_reset()');
  return {
    async report(label, perItems) {
      const { rows } = await c.query(
        `SELECT calls::int, round(total_exec_time::numeric, 0)::int AS ms, regexp_replace(left(query, 110), '\\s+', ' ', 'g') AS q
         FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) ORDER BY total_exec_time DESC LIMIT 20`,
      );
      const total = rows.reduce((a, r) => a + r.ms, 0);
      console.error(
        `${label}: statements' execution time ${Math.round((total / perItems) * 1000)} us per item (top 20)`,
      );
      for (const r of rows)
        console.error(
          `  ${String(Math.round((r.ms / perItems) * 1000)).padStart(5)} us ${String(r.calls).padStart(7)} calls  ${r.q}`,
        );
      await c.end();
    },
  };
}
