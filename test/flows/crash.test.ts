// kill -9 in the middle of a load: every email that got a 200 is delivered after a restart, and
// duplicates only come from SMTP transactions cut after DATA (counted and kept near zero).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freshDatabase, type TestDatabase } from '../helpers/db.js';
import { startFakeDns, type FakeDns } from '../helpers/fake-dns.js';
import { startRecordingSmtp, type RecordingSmtp } from '../helpers/recording-smtp.js';
import { publishRecords, type WireRecord } from '../helpers/publish-records.js';
import { sleep } from '../../src/lib/time.js';
import { closeAll } from '../helpers/close-all.js';
import { mailroomEntry } from '../helpers/cli.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const KEY = 're_crash000_crashcrashcrashcrashcrash00';

interface Proc {
  child: ChildProcess;
  url?: string;
  exited: Promise<void>;
}

describe('crash safety (kill -9)', () => {
  let db: TestDatabase;
  let dns: FakeDns;
  let mx: RecordingSmtp;
  let env: Record<string, string>;
  const dirs: string[] = [];

  async function startProc(roles: string): Promise<Proc> {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-crash-'));
    dirs.push(dataDir);
    const child = spawn(process.execPath, [...mailroomEntry(), 'start'], {
      cwd: ROOT,
      env: { ...env, MAILROOM_ROLES: roles, MAILROOM_DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d) => {
      if (out.length < 50_000) out += d;
    });
    child.stderr!.on('data', (d) => {
      if (out.length < 50_000) out += d;
    });
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    for (let i = 0; i < 300 && !/"mailroom started"/.test(out); i++) await sleep(100);
    assert.match(out, /"mailroom started"/, out);
    return { child, url: /"http":"([^"]+)"/.exec(out)?.[1], exited };
  }
  const kill9 = async (p: Proc) => {
    p.child.kill('SIGKILL');
    await p.exited;
  };
  const stop = async (p: Proc) => {
    if (p.child.exitCode === null) {
      p.child.kill('SIGTERM');
      await p.exited;
    }
  };

  async function send(url: string, n: number): Promise<string> {
    const res = await fetch(`${url}/emails`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ from: 'load@example.com', to: `u${n}@dest.test`, subject: `load ${n}`, text: 'x' }),
    });
    if (res.status !== 200) throw new Error(`status ${res.status}`);
    return `u${n}@dest.test`;
  }

  /** Sends from `concurrency` loops until stopped; returns the recipients whose send got a 200. */
  function load(url: string, concurrency: number, start: number) {
    const acked: string[] = [];
    let stopped = false;
    let n = start;
    const loops = Array.from({ length: concurrency }, async () => {
      while (!stopped) {
        try {
          acked.push(await send(url, n++));
        } catch {
          await sleep(20);
        }
      }
    });
    return {
      acked,
      stop: async () => {
        stopped = true;
        await Promise.all(loops);
      },
    };
  }

  async function allDelivered(acked: string[], timeoutMs = 60_000) {
    const want = new Set(acked);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const got = new Set(mx.messages.flatMap((m) => m.rcptTo));
      const missing = [...want].filter((r) => !got.has(r));
      if (!missing.length) return;
      if (Date.now() > deadline)
        assert.fail(`${missing.length} of ${want.size} acknowledged emails never arrived, e.g. ${missing.slice(0, 3)}`);
      await sleep(200);
    }
  }

  const duplicates = () => {
    const seen = new Map<string, number>();
    for (const m of mx.messages) for (const r of m.rcptTo) seen.set(r, (seen.get(r) ?? 0) + 1);
    return [...seen.values()].filter((c) => c > 1).length;
  };

  /** A killed worker's leases would expire after 60 s; expire them now (the queue tests cover expiry itself). */
  const expireLeases = () =>
    db.pool.query("UPDATE jobs SET locked_until = now() - interval '1 second' WHERE locked_by IS NOT NULL");

  before(async () => {
    db = await freshDatabase();
    dns = await startFakeDns();
    mx = await startRecordingSmtp();
    dns.set('mx.mailroom.test', 'A', ['127.0.0.1']);
    dns.set('dest.test', 'MX', [{ exchange: 'mx1.dest.test', priority: 10 }]);
    dns.set('mx1.dest.test', 'A', ['127.0.0.1']);
    env = {
      PATH: process.env.PATH!,
      HOME: process.env.HOME!,
      MAILROOM_DATABASE_URL: db.url,
      MAILROOM_HTTP_LISTEN: '127.0.0.1:0',
      MAILROOM_DNS_SERVERS: dns.address,
      MAILROOM_OUTBOUND_PORT: String(mx.port),
      MAILROOM_MX_HOST: 'mx.mailroom.test',
      MAILROOM_BOOTSTRAP_API_KEY: KEY,
      MAILROOM_SECRET_KEY: 'crash-test-secret',
      MAILROOM_RATE_LIMIT: '100000',
    };
    const p = await startProc('api,worker');
    const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
    const dom = await (
      await fetch(`${p.url}/domains`, { method: 'POST', headers, body: JSON.stringify({ name: 'example.com' }) })
    ).json();
    publishRecords(dns, 'example.com', dom.records as WireRecord[]);
    await fetch(`${p.url}/domains/${dom.id}/verify`, { method: 'POST', headers });
    await stop(p);
  });
  after(async () => {
    await closeAll(
      () => mx.close(),
      () => dns.close(),
      () => db.drop(),
      () => {
        for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
      },
    );
  });

  test('API and worker in one process killed mid-load: every acknowledged email is delivered after restart', async () => {
    const before = mx.messages.length;
    const p = await startProc('api,worker');
    const l = load(p.url!, 16, 0);
    await sleep(2500);
    await kill9(p);
    await l.stop();
    assert.ok(l.acked.length > 50, `only ${l.acked.length} sends were acknowledged before the kill`);
    await expireLeases();
    const p2 = await startProc('api,worker');
    try {
      await allDelivered(l.acked);
    } finally {
      await stop(p2);
    }
    const dup = duplicates();
    process.stdout.write(
      `# crash (one process): ${l.acked.length} acknowledged, ${mx.messages.length - before} SMTP transactions, ${dup} duplicated recipients\n`,
    );
    // Only deliveries in flight at the kill can repeat (the SMTP transaction ended but its result
    // was not recorded): at most the worker's concurrency (50).
    assert.ok(dup <= 50, `${dup} duplicates`);
  });

  test('the worker process killed alone mid-delivery: a new worker finishes, nothing lost', async () => {
    const api = await startProc('api');
    const w1 = await startProc('worker');
    const l = load(api.url!, 16, 100_000);
    await sleep(2000);
    await kill9(w1);
    await sleep(500);
    await l.stop();
    await expireLeases();
    const w2 = await startProc('worker');
    try {
      await allDelivered(l.acked);
    } finally {
      await closeAll(
        () => stop(w2),
        () => stop(api),
      );
    }
  });

  test('the API process killed alone mid-load: what it acknowledged is delivered', async () => {
    const api = await startProc('api');
    const w = await startProc('worker');
    const l = load(api.url!, 16, 200_000);
    await sleep(2000);
    await kill9(api);
    await l.stop();
    try {
      await allDelivered(l.acked);
    } finally {
      await stop(w);
    }
  });
});
