// A fresh, migrated database per test file: on the PostgreSQL at MAILROOM_TEST_DATABASE_URL when
// set (CI sets it to the machine's server), otherwise on an embedded PostgreSQL started in a
// temporary directory. Dropped (or the embedded server stopped) by the returned cleanup.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createPool, startEmbeddedPostgres } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';
import { createLogger } from '../../src/lib/log.js';

export interface TestDatabase {
  url: string;
  pool: pg.Pool;
  drop(): Promise<void>;
}

export async function freshDatabase(opts: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const name = `mailroom_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  let serverUrl = process.env.MAILROOM_TEST_DATABASE_URL;
  let stopEmbedded: (() => Promise<void>) | undefined;
  let tmp: string | undefined;
  if (!serverUrl) {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-pg-'));
    fs.chmodSync(tmp, 0o755);
    const emb = await startEmbeddedPostgres(path.join(tmp, 'pg'), createLogger('silent'), 'postgres');
    serverUrl = emb.url;
    stopEmbedded = emb.stop;
  }
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  const url = u.toString();
  const pool = createPool(url);
  if (opts.migrate !== false) await migrate(pool);
  return {
    url, pool,
    async drop() {
      await pool.end().catch(() => undefined);
      if (stopEmbedded) {
        await stopEmbedded();
        if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
        return;
      }
      const a = new pg.Client({ connectionString: serverUrl });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await a.end();
    },
  };
}
