import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import pg from 'pg';
import { freshDatabase } from '../helpers/db.js';
import { startMailWorld } from '../helpers/mail-world.js';
import { closeAll } from '../helpers/close-all.js';

// A test file's cleanup must finish even when a step fails: on a stock cluster the CI role could
// not drop a database an autovacuum worker was in, the mail world's close stopped half-way, and the
// file's DNS and MX servers kept it running until its 180 s timeout. A template database is one
// that no role may drop, which makes that failure happen on purpose.

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
const undroppable = (dbUrl: string) => admin(dbUrl, `ALTER DATABASE "${dbName(dbUrl)}" IS_TEMPLATE true`);
const dropForReal = async (dbUrl: string) => {
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
