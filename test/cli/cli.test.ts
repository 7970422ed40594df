import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freshDatabase, type TestDatabase } from '../helpers/db.js';
import { startTestApp } from '../helpers/harness.js';
import { runMailroomAsync, mailroomEntry } from '../helpers/cli.js';
import { sha256Hex } from '../../src/lib/ids.js';
import { sleep } from '../../src/lib/time.js';
import { closeAll } from '../helpers/close-all.js';

import { ROOT } from '../helpers/root.js';
const run = (args: string[], env: Record<string, string>) =>
  spawnSync(process.execPath, [...mailroomEntry(), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });

describe('the mailroom command', () => {
  let db: TestDatabase;
  let env: Record<string, string>;
  let dataDir: string;
  before(async () => {
    db = await freshDatabase();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-cli-'));
    env = { MAILROOM_DATABASE_URL: db.url, MAILROOM_DATA_DIR: dataDir };
  });
  after(async () => {
    await closeAll(
      () => db.drop(),
      () => fs.rmSync(dataDir, { recursive: true, force: true }),
    );
  });

  test('config prints every setting by its env name with secrets masked', () => {
    const r = run(['config'], { ...env, MAILROOM_SECRET_KEY: 'supersecretvalue', MAILROOM_RATE_LIMIT: '25' });
    assert.equal(r.status, 0, r.stderr);
    for (const name of [
      'MAILROOM_DATABASE_URL',
      'MAILROOM_DATA_DIR',
      'MAILROOM_HTTP_LISTEN',
      'MAILROOM_PUBLIC_URL',
      'MAILROOM_SMTP_LISTEN',
      'MAILROOM_MX_LISTEN',
      'MAILROOM_TLS_CERT',
      'MAILROOM_TLS_KEY',
      'MAILROOM_DNS_SERVERS',
      'MAILROOM_DELIVERY_MODE',
      'MAILROOM_RELAY_URL',
      'MAILROOM_OUTBOUND_PORT',
      'MAILROOM_HELO_NAME',
      'MAILROOM_BOOTSTRAP_API_KEY',
      'MAILROOM_RATE_LIMIT',
      'MAILROOM_ALLOW_PRIVATE_NETWORKS',
      'MAILROOM_SECRET_KEY',
      'MAILROOM_REDIS_URL',
      'MAILROOM_ROLES',
      'MAILROOM_REGIONS',
    ]) {
      assert.match(r.stdout, new RegExp(`^${name} `, 'm'), name);
    }
    assert.match(
      r.stdout.split('\n')[0],
      /^# Configuration as this shell's environment gives it: .*\(a running server may have been started with other settings\)\.$/,
    );
    assert.match(r.stdout, /^MAILROOM_RATE_LIMIT\s+25$/m);
    assert.ok(!r.stdout.includes('supersecretvalue'));
    assert.match(r.stdout, /^MAILROOM_SECRET_KEY\s+\*{8}$/m);
  });

  test('an invalid setting stops the start with a message naming it', () => {
    for (const [k, v] of [
      ['MAILROOM_RATE_LIMIT', 'fast'],
      ['MAILROOM_DELIVERY_MODE', 'pigeon'],
      ['MAILROOM_HTTP_LISTEN', 'nowhere'],
      ['MAILROOM_ROLES', 'api,cook'],
    ]) {
      const r = run(['start'], { ...env, [k]: v });
      assert.equal(r.status, 2, `${k}: ${r.stdout}`);
      assert.match(r.stderr, new RegExp(k), k);
    }
  });

  test('migrate reports an up-to-date database', () => {
    const r = run(['migrate'], env);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /up to date|Applied/);
  });

  test('teams create prints a working full-access key for the new team', async () => {
    const r = run(['teams', 'create', 'Acme', 'Ltd'], env);
    assert.equal(r.status, 0, r.stderr);
    const token = /token: (re_\S+)/.exec(r.stdout)![1];
    const { rows } = await db.pool.query(
      'SELECT t.name, k.permission FROM api_keys k JOIN teams t ON t.id = k.team_id WHERE k.token_hash = $1',
      [sha256Hex(token)],
    );
    assert.deepEqual(rows[0], { name: 'Acme Ltd', permission: 'full_access' });
  });

  test('api-keys create, list and delete', () => {
    const c = run(['api-keys', 'create', '--name', 'from-cli', '--permission', 'sending_access'], env);
    assert.equal(c.status, 0, c.stderr);
    const id = /id:\s+(\S+)/.exec(c.stdout)![1];
    assert.match(run(['api-keys', 'list'], env).stdout, new RegExp(`^${id}\\s+from-cli\\s`, 'm'));
    assert.equal(run(['api-keys', 'delete', id], env).status, 0);
    assert.ok(!run(['api-keys', 'list'], env).stdout.includes(id));
    const again = run(['api-keys', 'delete', id], env);
    assert.equal(again.status, 1);
    assert.equal(
      again.stderr,
      `mailroom api-keys: the default team has no API key ${id} (see \`npx mailroom api-keys list\`).\n`,
    );
  });

  test("api-keys list shows each key's permission, domain, token prefix, creation and last use", async () => {
    const t = await startTestApp({ deliveryMode: 'capture' }, { db });
    let domainId: string;
    try {
      const d = await t.resend.domains.create({ name: 'keys.example' });
      assert.equal(d.error, null);
      domainId = d.data!.id;
    } finally {
      await t.close();
    }
    const c = run(
      ['api-keys', 'create', '--name', 'only-keys', '--permission', 'sending_access', '--domain-id', domainId],
      env,
    );
    assert.equal(c.status, 0, c.stderr);
    const id = /id:\s+(\S+)/.exec(c.stdout)![1];
    const token = /token: (\S+)/.exec(c.stdout)![1];
    await db.pool.query("UPDATE api_keys SET last_used_at = '2026-01-02 03:04:05+00' WHERE id = $1", [id]);
    const list = run(['api-keys', 'list'], env);
    assert.equal(list.status, 0, list.stderr);
    const lines = list.stdout.trimEnd().split('\n');
    assert.match(lines[0], /^ID\s+NAME\s+PERMISSION\s+DOMAIN\s+TOKEN\s+CREATED\s+LAST USED$/);
    const row = lines.find((l) => l.startsWith(id))!;
    assert.ok(row, list.stdout);
    const cells = row.split(/ {2,}/);
    assert.equal(cells[1], 'only-keys');
    assert.equal(cells[2], 'sending_access');
    assert.equal(cells[3], 'keys.example');
    assert.equal(cells[4], `${token.slice(0, 6)}…`);
    assert.match(cells[5], /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    assert.equal(cells[6], '2026-01-02 03:04:05 UTC');
    const all = run(['api-keys', 'create', '--name', 'everything'], env);
    const allId = /id:\s+(\S+)/.exec(all.stdout)![1];
    const allRow = run(['api-keys', 'list'], env)
      .stdout.split('\n')
      .find((l) => l.startsWith(allId))!
      .split(/ {2,}/);
    assert.deepEqual(
      [allRow[1], allRow[2], allRow[3], allRow[6]],
      ['everything', 'full_access', 'all domains', 'never'],
    );
  });

  test("an ID that names nothing is one sentence on stderr and exit 1, never PostgreSQL's words", () => {
    const nobody = '6f1c2a4e-0d3b-4a57-9c1e-2b7d8e9f0a11';
    const cases: [string[], string][] = [
      [
        ['api-keys', 'list', '--team', nobody],
        `mailroom api-keys: no team ${nobody} (see \`npx mailroom teams list\`).\n`,
      ],
      [
        ['api-keys', 'create', '--team', nobody],
        `mailroom api-keys: no team ${nobody} (see \`npx mailroom teams list\`).\n`,
      ],
      [
        ['api-keys', 'delete', nobody],
        `mailroom api-keys: the default team has no API key ${nobody} (see \`npx mailroom api-keys list\`).\n`,
      ],
      [
        ['api-keys', 'create', '--permission', 'sending_access', '--domain-id', nobody],
        `mailroom api-keys: the default team has no domain ${nobody} (GET /domains lists them).\n`,
      ],
    ];
    for (const [args, message] of cases) {
      const r = run(args, env);
      assert.equal(r.status, 1, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stderr, message, args.join(' '));
      assert.equal(r.stdout, '');
    }
  });

  test('doctor checks the database, ports, resolver and TLS', () => {
    const r = run(['doctor'], {
      ...env,
      MAILROOM_HTTP_LISTEN: '127.0.0.1:0',
      MAILROOM_SMTP_LISTEN: '127.0.0.1:0:starttls',
      MAILROOM_MX_LISTEN: '127.0.0.1:0',
      MAILROOM_DNS_SERVERS: '127.0.0.1:9',
    });
    assert.match(r.stdout, /^ok\s+database: PostgreSQL/m);
    assert.match(r.stdout, /^ok\s+tls certificate/m);
    assert.match(r.stdout, /^FAIL\s+dns resolver: no answer/m); // nothing listens on port 9
    assert.equal(r.status, 1);
  });

  test("doctor says it checks this shell's settings, and asks a Mailroom at the configured HTTP address whether it is ready", async () => {
    const t = await startTestApp({ deliveryMode: 'capture' }, { db });
    const port = new URL(t.url).port;
    const quiet = {
      ...env,
      MAILROOM_SMTP_LISTEN: '127.0.0.1:0:starttls',
      MAILROOM_MX_LISTEN: '127.0.0.1:0',
      MAILROOM_DNS_SERVERS: '127.0.0.1:9',
    };
    try {
      const r = await runMailroomAsync(['doctor'], { ...quiet, MAILROOM_HTTP_LISTEN: `127.0.0.1:${port}` });
      assert.match(
        r.stdout.split('\n')[0],
        /^Checks for `npx mailroom start` with this shell's environment \(a running server may have been started with other settings\):$/,
      );
      assert.match(
        r.stdout,
        new RegExp(`^info\\s+running server: a Mailroom answers at http://127\\.0\\.0\\.1:${port}/ready: ready`, 'm'),
        r.stdout,
      );
      assert.match(
        r.stdout,
        new RegExp(
          `^warn\\s+http port 127\\.0\\.0\\.1:${port}: in use \\(by the Mailroom answering at http://127\\.0\\.0\\.1:${port}\\)$`,
          'm',
        ),
        r.stdout,
      );
    } finally {
      await t.close();
    }
    const after = run(['doctor'], { ...quiet, MAILROOM_HTTP_LISTEN: `127.0.0.1:${port}` });
    assert.match(
      after.stdout,
      new RegExp(`^info\\s+running server: none answers at http://127\\.0\\.0\\.1:${port}/ready$`, 'm'),
      after.stdout,
    );
  });
});

/** Holds 127.0.0.1:port for the test, as a Mailroom running on the machine would (already held: fine too). */
async function occupy(port: number): Promise<net.Server | undefined> {
  const srv = net.createServer();
  return new Promise((resolve) => {
    srv.once('error', () => resolve(undefined));
    srv.listen(port, '127.0.0.1', () => resolve(srv));
  });
}

test('start runs on the embedded PostgreSQL with no database URL, serves, and stops cleanly on SIGTERM, with the default ports taken', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-embedded-'));
  fs.chmodSync(dataDir, 0o755);
  // A Mailroom already running here holds the default ports (3000, 2587, 2465, 2525): the test's
  // server must listen on ports of its own.
  const held = await Promise.all([3000, 2587, 2465, 2525].map(occupy));
  const child = spawn(process.execPath, [...mailroomEntry(), 'start'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH!,
      HOME: process.env.HOME!,
      MAILROOM_DATA_DIR: dataDir,
      MAILROOM_BOOTSTRAP_API_KEY: 're_cli_test_key',
      MAILROOM_HTTP_LISTEN: '127.0.0.1:0',
      MAILROOM_SMTP_LISTEN: '127.0.0.1:0:starttls,127.0.0.1:0:tls',
      MAILROOM_MX_LISTEN: '127.0.0.1:0',
    },
  });
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    out += d;
  });
  try {
    let url: string | undefined;
    for (let i = 0; i < 300 && !url; i++) {
      url = /"http listening","url":"([^"]+)"/.exec(out)?.[1];
      if (!url) await sleep(100);
    }
    assert.ok(url, `server did not start:\n${out}`);
    assert.match(out, /"database":"embedded"/);
    const r = await fetch(`${url}/domains`, { headers: { authorization: 'Bearer re_cli_test_key' } });
    assert.equal(r.status, 200);
    assert.ok(fs.existsSync(path.join(dataDir, 'postgres', 'PG_VERSION')));
    assert.ok(fs.existsSync(path.join(dataDir, 'secret.key')));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
    assert.match(out, /"mailroom stopped"/);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    for (const srv of held) srv?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
