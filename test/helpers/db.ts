// A fresh, migrated database per test file: on the PostgreSQL at MAILROOM_TEST_DATABASE_URL when
// set (CI sets it to the machine's server), otherwise on an embedded PostgreSQL started in a
// temporary directory. Dropped (or the embedded server stopped) by the returned cleanup, which
// never throws: a database it cannot drop is left behind with a warning on stderr.
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
    url,
    pool,
    async drop() {
      await pool.end().catch(() => undefined);
      if (stopEmbedded) {
        await stopEmbedded().catch((e) =>
          process.stderr.write(`warning: the embedded PostgreSQL in ${tmp} did not stop: ${e.message}\n`),
        );
        if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
        return;
      }
      await dropDatabase(serverUrl, name);
    },
  };
}

/**
 * DROP DATABASE ... WITH (FORCE) ends the sessions still in the database; PostgreSQL refuses it to a
 * role that may not signal them (an autovacuum worker, unless the role is in pg_signal_backend, as
 * .ci/test-database makes it). A plain DROP DATABASE ends autovacuum workers itself and waits up
 * to 5 s for other sessions, so it is the fallback, tried a few times. Failing all that, the
 * database stays and a warning says so: a cleanup that throws half-way would leave the caller's
 * servers running and the test file hanging until its timeout.
 */
async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  const attempts = [
    `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`,
    ...Array(3).fill(`DROP DATABASE IF EXISTS "${name}"`),
  ];
  let last: unknown;
  for (const sql of attempts) {
    const a = new pg.Client({ connectionString: serverUrl });
    try {
      await a.connect();
      await a.query(sql);
      return;
    } catch (e) {
      last = e;
    } finally {
      await a.end().catch(() => undefined);
    }
  }
  process.stderr.write(`warning: test database ${name} was left behind: ${(last as Error)?.message ?? last}\n`);
}

/** A sending-domain row for store tests that write emails directly (its DKIM fields are placeholders). */
export async function seedDomain(pool: pg.Pool, d: { id: string; teamId: string; name: string }): Promise<void> {
  await pool.query(
    `INSERT INTO domains (id, team_id, name, region, dkim_selector, dkim_public_key, dkim_private_key)
     VALUES ($1, $2, $3, 'us-east-1', 's', 'p', 'k')`,
    [d.id, d.teamId, d.name],
  );
}
