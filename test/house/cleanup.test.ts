import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { spawnSync } from 'node:child_process';
import pg from 'pg';
import { FINISHED_PREFIX, freshDatabase } from '../helpers/db.js';
import { ROOT } from '../helpers/root.js';
import { startMailWorld } from '../helpers/mail-world.js';
import { closeAll } from '../helpers/close-all.js';

// A test file's cleanup must finish even when a step fails: on a stock cluster the CI role could
// not drop a database an autovacuum worker was in, the mail world's close stopped half-way, and the
// file's DNS and MX servers kept it running until its 180 s timeout. A template database is one
// that no role may drop, which makes that failure happen on purpose; a database already holding
// its finished name keeps it from being renamed (what a file's cleanup does first:
// test/helpers/db.ts), so the drop is tried.

const serverUrl = (dbUrl: string) => {
  const u = new URL(dbUrl);
  u.pathname = '/postgres';
  return u.toString();
};
const dbName = (dbUrl: string) => new URL(dbUrl).pathname.slice(1);

async function admin(dbUrl: string, sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: serverUrl(dbUrl) });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}
const finishedName = (dbUrl: string) => FINISHED_PREFIX + dbName(dbUrl).slice('mailroom_test_'.length);
const undroppable = async (dbUrl: string) => {
  await admin(dbUrl, `ALTER DATABASE "${dbName(dbUrl)}" IS_TEMPLATE true`);
  await admin(dbUrl, `CREATE DATABASE "${finishedName(dbUrl)}"`); // its finished name taken: the rename fails
};
const dropForReal = async (dbUrl: string) => {
  await admin(dbUrl, `DROP DATABASE IF EXISTS "${finishedName(dbUrl)}"`);
  await admin(dbUrl, `ALTER DATABASE "${dbName(dbUrl)}" IS_TEMPLATE false`);
  await admin(dbUrl, `DROP DATABASE IF EXISTS "${dbName(dbUrl)}" WITH (FORCE)`);
};

const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.on('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.on('error', () => resolve(true));
  });

test('a test database that cannot be dropped is left behind with a warning instead of failing the cleanup', {
  skip: !process.env.MAILROOM_TEST_DATABASE_URL && 'needs MAILROOM_TEST_DATABASE_URL',
}, async () => {
  const db = await freshDatabase({ migrate: false });
  await undroppable(db.url);
  try {
    await db.drop(); // must resolve
  } finally {
    await dropForReal(db.url);
  }
});

test('a finished test database is renamed, not dropped, and dropped when npm test ends', {
  skip: !process.env.MAILROOM_TEST_DATABASE_URL && 'needs MAILROOM_TEST_DATABASE_URL',
}, async () => {
  const db = await freshDatabase({ migrate: false });
  const name = dbName(db.url);
  const finished = finishedName(db.url);
  const exists = async (n: string) => {
    const c = new pg.Client({ connectionString: serverUrl(db.url) });
    await c.connect();
    try {
      return (await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [n])).rowCount === 1;
    } finally {
      await c.end();
    }
  };
  await db.drop();
  assert.equal(await exists(name), false);
  assert.equal(await exists(finished), true, 'the database is kept under its finished name');
  const run = spawnSync(process.execPath, ['test/drop-finished-databases.mjs'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  assert.equal(await exists(finished), false, 'npm test drops it at the end');
});

test('the mail world closes its MX and DNS servers even when its database cannot be dropped', {
  skip: !process.env.MAILROOM_TEST_DATABASE_URL && 'needs MAILROOM_TEST_DATABASE_URL',
}, async () => {
  const w = await startMailWorld();
  const url = w.t.db.url;
  const mxPort = w.mx.port;
  const dnsPort = Number(w.dns.address.split(':').pop());
  await undroppable(url);
  try {
    await w.close().catch(() => undefined);
    assert.ok(await refused(mxPort), 'the recording MX still listens');
    assert.ok(await refused(dnsPort), 'the fake DNS still listens');
  } finally {
    await dropForReal(url);
  }
});

test('closeAll runs every step when one fails, in order, and then reports the failure', async () => {
  const ran: string[] = [];
  await assert.rejects(
    closeAll(
      () => {
        ran.push('app');
      },
      async () => {
        ran.push('db');
        throw new Error('cannot drop');
      },
      async () => {
        ran.push('mx');
      },
      () => {
        ran.push('dns');
      },
    ),
    /cannot drop/,
  );
  assert.deepEqual(ran, ['app', 'db', 'mx', 'dns']);
});
