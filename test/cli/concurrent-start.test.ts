// Several `mailroom start` processes on one database (issue 26): started together on an empty
// database, one migrates while the others wait, and all come up; `--no-migrate` starts on a
// database with nothing pending. (Refusals: schema-version.test.ts.)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freshDatabase, type TestDatabase } from '../helpers/db.js';
import { startMailroom, type MailroomProcess } from '../helpers/mailroom-process.js';
import { listMigrations } from '../../src/store/migrate.js';

let db: TestDatabase;
const dirs: string[] = [];
const procs: MailroomProcess[] = [];
const label = (m: { version: number; name: string }) => `${String(m.version).padStart(4, '0')}_${m.name}`;

function env(): Record<string, string> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-startup-'));
  dirs.push(dataDir);
  return {
    MAILROOM_DATABASE_URL: db.url,
    MAILROOM_DATA_DIR: dataDir,
    MAILROOM_ROLES: 'api,worker',
    MAILROOM_HTTP_LISTEN: '127.0.0.1:0',
    MAILROOM_MX_HOST: 'mx.mailroom.test',
    MAILROOM_SECRET_KEY: 'concurrent-start-secret',
    MAILROOM_DNS_SERVERS: '127.0.0.1:9',
  };
}

before(async () => {
  db = await freshDatabase({ migrate: false });
});
after(async () => {
  for (const p of procs) p.kill();
  await Promise.all(procs.map((p) => p.exited));
  await db.drop();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

test('three processes started at once on an empty database: all come up, each migration applied once, by one of them', {
  timeout: 170_000,
}, async () => {
  const three = [0, 1, 2].map(() => startMailroom([], env()));
  procs.push(...three);
  const up = await Promise.all(three.map((p) => p.waitFor('http listening', 150_000)));
  for (const l of up) assert.match(String(l.url), /^http:\/\/127\.0\.0\.1:\d+$/);
  for (const l of up) assert.equal((await fetch(`${l.url}/ready`)).status, 200);
  const known = listMigrations().map((m) => m.version);
  const { rows } = await db.pool.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
  assert.deepEqual(
    rows.map((r) => r.version),
    known,
  );
  const appliers = three.filter((p) => p.lines.some((l) => l.msg === 'migrations applied'));
  assert.equal(appliers.length, 1, 'one process migrated; the others waited on the lock and found nothing to do');
  assert.deepEqual(appliers[0].lines.find((l) => l.msg === 'migrations applied')!.versions, known);
  for (const p of three) p.child.kill('SIGTERM');
  assert.deepEqual(await Promise.all(three.map((p) => p.exited)), [0, 0, 0]);
});

test('--no-migrate starts on a database with nothing pending', { timeout: 120_000 }, async () => {
  const p = startMailroom(['--no-migrate'], env());
  procs.push(p);
  await p.waitFor('http listening', 100_000);
  p.child.kill('SIGTERM');
  assert.equal(await p.exited, 0);
});
