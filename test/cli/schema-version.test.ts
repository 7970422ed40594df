// The database and the code disagree (issue 26): a process whose code is older than the
// database (a migration applied that it has no file for) refuses to start or migrate, naming both
// versions; `mailroom start --no-migrate` refuses a database with migrations pending, naming them.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runMailroomAsync } from '../helpers/cli.js';
import { freshDatabase, type TestDatabase } from '../helpers/db.js';
import { listMigrations } from '../../src/store/migrate.js';

let db: TestDatabase;
const dirs: string[] = [];
const label = (m: { version: number; name: string }) => `${String(m.version).padStart(4, '0')}_${m.name}`;

function env(): Record<string, string> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-schema-'));
  dirs.push(dataDir);
  return {
    MAILROOM_DATABASE_URL: db.url,
    MAILROOM_DATA_DIR: dataDir,
    MAILROOM_ROLES: 'api,worker',
    MAILROOM_HTTP_LISTEN: '127.0.0.1:0',
    MAILROOM_MX_HOST: 'mx.mailroom.test',
    MAILROOM_SECRET_KEY: 'schema-version-secret',
    MAILROOM_DNS_SERVERS: '127.0.0.1:9',
  };
}

before(async () => {
  db = await freshDatabase();
});
after(async () => {
  await db.drop();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

test('a database migrated by a newer Mailroom: start and migrate refuse, naming both versions; nothing is applied', {
  timeout: 120_000,
}, async () => {
  const latest = listMigrations().at(-1)!;
  await db.pool.query(`INSERT INTO schema_migrations (version, name) VALUES (9999, 'from_the_future')`);
  try {
    for (const args of [['start'], ['start', '--no-migrate'], ['migrate']]) {
      const r = await runMailroomAsync(args, env());
      assert.equal(r.status, 1, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
      assert.match(
        r.stderr,
        new RegExp(
          `^mailroom ${args[0]}: the database schema is newer than this Mailroom: it is at migration 9999_from_the_future, and this code knows migrations up to ${label(latest)};`,
          'm',
        ),
      );
    }
  } finally {
    await db.pool.query('DELETE FROM schema_migrations WHERE version = 9999');
  }
});

test('--no-migrate on a database with migrations pending refuses, naming them', {
  timeout: 120_000,
}, async () => {
  const latest = listMigrations().at(-1)!;
  // The last migration's record gone: pending to this code (its SQL is not run: this process refuses).
  await db.pool.query('DELETE FROM schema_migrations WHERE version = $1', [latest.version]);
  try {
    const r = await runMailroomAsync(['start', '--no-migrate'], env());
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(
      r.stderr,
      new RegExp(
        `^mailroom start: the database has 1 migration\\(s\\) of this Mailroom still to apply: ${label(latest)} .*Run \`npx mailroom migrate\` first, or start without --no-migrate\\.$`,
        'm',
      ),
    );
  } finally {
    await db.pool.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [latest.version, latest.name]);
  }
});
