// The embedded PostgreSQL across crashes: kill -9 of `mailroom start` leaves its postmaster
// running; the next start must stop that orphan and come up with the data intact. Also: a
// per-directory superuser password, and clear failures instead of bare errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { sleep } from '../../src/lib/time.js';
import { mailroomEntry } from '../helpers/cli.js';

import { ROOT } from '../helpers/root.js';
const KEY = 're_restart_test_key';

function start(dataDir: string, extra: Record<string, string> = {}) {
  const child = spawn(process.execPath, [...mailroomEntry(), 'start'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH!,
      HOME: process.env.HOME!,
      MAILROOM_DATA_DIR: dataDir,
      MAILROOM_HTTP_LISTEN: '127.0.0.1:0',
      MAILROOM_ROLES: 'api,worker',
      MAILROOM_BOOTSTRAP_API_KEY: KEY,
      MAILROOM_MX_HOST: 'mx.mailroom.test',
      ...extra,
    },
  });
  const p = {
    child,
    out: '',
    exited: new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code))),
  };
  child.stdout!.on('data', (d) => {
    p.out += d;
  });
  child.stderr!.on('data', (d) => {
    p.out += d;
  });
  return p;
}

async function listening(p: { child: ChildProcess; out: string }): Promise<string> {
  for (let i = 0; i < 600; i++) {
    const url = /"http listening","url":"([^"]+)"/.exec(p.out)?.[1];
    if (url) return url;
    if (p.child.exitCode !== null) break;
    await sleep(100);
  }
  throw new Error(`server did not start:\n${p.out}`);
}

const postmasterPid = (dataDir: string) =>
  Number(fs.readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
const postmasterPort = (dataDir: string) =>
  Number(fs.readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[3]);
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('after kill -9 of mailroom start, the next start stops the orphaned PostgreSQL and serves the same data', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-restart-'));
  fs.chmodSync(dataDir, 0o755);
  let orphan = 0;
  try {
    const first = start(dataDir);
    const url = await listening(first);
    const created = await fetch(`${url}/domains`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'survives.test' }),
    });
    assert.equal(created.status, 201);
    orphan = postmasterPid(dataDir);
    first.child.kill('SIGKILL');
    await first.exited;
    await sleep(300);
    assert.ok(alive(orphan), 'the postmaster outlived its parent (the situation to recover from)');

    const second = start(dataDir);
    const url2 = await listening(second);
    assert.match(second.out, /left running by an earlier run/);
    assert.ok(!alive(orphan), 'the orphan was stopped');
    const list = (await (await fetch(`${url2}/domains`, { headers: { authorization: `Bearer ${KEY}` } })).json()) as {
      data: { name: string }[];
    };
    assert.deepEqual(
      list.data.map((d) => d.name),
      ['survives.test'],
    );
    second.child.kill('SIGTERM');
    assert.equal(await second.exited, 0);
  } finally {
    const pidFile = path.join(dataDir, 'postgres', 'postmaster.pid');
    if (fs.existsSync(pidFile)) {
      try {
        process.kill(postmasterPid(dataDir), 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    if (orphan && alive(orphan)) process.kill(orphan, 'SIGKILL');
    // A PostgreSQL backend still ending after its postmaster may write into the directory while it
    // is removed (ENOTEMPTY at load 25): rmSync retries then, instead of failing the cleanup.
    fs.rmSync(dataDir, { recursive: true, force: true, maxRetries: 10 });
  }
});

// One start for both (each start initialises a PostgreSQL cluster: seconds of CPU on a 2-core machine).
test('each data directory has its own superuser password, the old constant does not open it; a dotless MAILROOM_MX_HOST is called out at start with what to set', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-password-'));
  fs.chmodSync(dataDir, 0o755);
  try {
    const p = start(dataDir, { MAILROOM_MX_HOST: 'myhost' });
    await listening(p);
    assert.match(p.out, /MAILROOM_MX_HOST is \\"myhost\\", a name without a dot.*permerror/);
    const file = path.join(dataDir, 'postgres.password');
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    const password = fs.readFileSync(file, 'utf8').trim();
    assert.ok(password.length >= 24 && password !== 'mailroom');
    const port = postmasterPort(dataDir);
    const old = new pg.Client({ connectionString: `postgres://postgres:mailroom@127.0.0.1:${port}/postgres` });
    await assert.rejects(old.connect(), /password authentication failed/);
    const good = new pg.Client({
      connectionString: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`,
    });
    await good.connect();
    await good.end();
    p.child.kill('SIGTERM');
    assert.equal(await p.exited, 0);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true, maxRetries: 10 });
  }
});

test('as root, a data directory under a 0700 directory fails with what to do and a non-zero exit', {
  skip: process.getuid?.() !== 0 ? 'needs root' : false,
}, async () => {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-private-')); // mkdtemp: 0700
  try {
    const p = start(path.join(parent, 'data'));
    const code = await p.exited;
    assert.notEqual(code, 0);
    assert.match(p.out, /cannot enter .*mailroom-private-.*chmod o\+x|MAILROOM_DATA_DIR/);
    assert.doesNotMatch(p.out, /TypeError/);
  } finally {
    fs.rmSync(parent, { recursive: true, force: true });
  }
});
