// A fresh, migrated database per test file: on the PostgreSQL at MAILROOM_TEST_DATABASE_URL when
// set (CI sets it to the machine's server), otherwise on an embedded PostgreSQL started in a
// temporary directory. Dropped (or the embedded server stopped) by the returned cleanup, which
// never throws: a database it cannot drop is left behind with a warning on stderr.
// On a server, a migrated database is a copy of a template (CREATE DATABASE ... TEMPLATE): the
// migrations run once per set of migration files, not once per test file (0.7 s against 0.27 s
// a database on the quiet 2-core machine, 3.4-4.5 s against 0.5 s at the suite's load).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createPool, startEmbeddedPostgres } from '../../src/store/db.js';
import { listMigrations, migrate } from '../../src/store/migrate.js';
import { createLogger } from '../../src/lib/log.js';

export interface TestDatabase {
  url: string;
  pool: pg.Pool;
  drop(): Promise<void>;
}

const PREFIX = 'mailroom_test_';
/** A test database a file is done with, left for test/drop-finished-databases.mjs (which has the same prefix). */
export const FINISHED_PREFIX = 'mailroom_test_finished_';

export async function freshDatabase(opts: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const name = `${PREFIX}${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
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
  // Commits of the tests' sessions do not wait for the WAL flush (1.5-3 ms an fsync on the CI
  // machine's disk, most of some files' time): nothing a test looks at changes unless the server
  // itself crashes, which no test does to this server (test/helpers/private-postgres.ts runs
  // without fsync at all for the ones that stop theirs).
  const noFlushWait = `ALTER DATABASE "${name}" SET synchronous_commit = off`;
  let fromTemplate = false;
  if (opts.migrate !== false && !stopEmbedded) fromTemplate = await createFromTemplate(serverUrl, name, noFlushWait);
  else await adminQuery(serverUrl, `CREATE DATABASE "${name}"`, noFlushWait);
  const url = databaseUrl(serverUrl, name);
  const pool = createPool(url);
  if (opts.migrate !== false && !fromTemplate) await migrate(pool);
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
      // Renamed now, dropped when `npm test` ends (test/drop-finished-databases.mjs): every DROP
      // DATABASE makes the server checkpoint (all dirty pages of every database written, then a
      // full-page image in the WAL for the next change to each page), a few hundred times a run,
      // which slowed every file running beside it (+25% for one file with a drop every 2 s). A
      // database's sessions are ended first, as DROP ... WITH (FORCE) does; one that cannot be
      // renamed (no right to end a session in it, say) is dropped now.
      try {
        await adminQuery(
          serverUrl,
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}' AND pid <> pg_backend_pid()`,
          `ALTER DATABASE "${name}" RENAME TO "${FINISHED_PREFIX}${name.slice(PREFIX.length)}"`,
        );
        return;
      } catch {
        await dropDatabase(serverUrl, name);
      }
    },
  };
}

function databaseUrl(serverUrl: string, name: string): string {
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

/** The statements in order, on one connection to the server's own database. */
async function adminQuery(serverUrl: string, ...sqls: string[]): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    for (const sql of sqls) await admin.query(sql);
  } finally {
    await admin.end().catch(() => undefined);
  }
}

const TEMPLATE_LOCK = 7_317_002; // advisory lock (in the server's `postgres`-side database) while a template is built
const TEMPLATE_PREFIX = 'mailroom_test_template_';

/** The template's name: the hash of every migration file's name and text, so a changed migration gets its own (read once a process). */
let templateMemo: string | undefined;
function templateName(): string {
  if (templateMemo) return templateMemo;
  const h = createHash('sha256');
  for (const m of listMigrations()) h.update(`${m.version}_${m.name}\0${fs.readFileSync(m.file, 'utf8')}\0`);
  templateMemo = TEMPLATE_PREFIX + h.digest('hex').slice(0, 16);
  return templateMemo;
}

/**
 * CREATE DATABASE name TEMPLATE <migrated template>, building the template first when the server
 * has none for these migrations: under an advisory lock (test files start together), migrated
 * under a name of its own, then renamed, so a half-built template is never copied. Templates of
 * other migration sets are dropped then (one is kept per server); one still being copied by
 * another checkout's run makes that drop wait, and a copy whose template went away builds it again.
 * Returns false when the template kept going away (two checkouts with different migrations
 * testing on one server at once): the caller then migrates its database itself.
 */
async function createFromTemplate(serverUrl: string, name: string, then: string): Promise<boolean> {
  const template = templateName();
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await adminQuery(serverUrl, `CREATE DATABASE "${name}" TEMPLATE "${template}"`, then);
      return true;
    } catch (e) {
      if ((e as { code?: string }).code !== '3D000') throw e; // 3D000: no such template (yet)
    }
    await buildTemplate(serverUrl, template);
  }
  await adminQuery(serverUrl, `CREATE DATABASE "${name}"`, then);
  return false;
}

async function buildTemplate(serverUrl: string, template: string): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK]);
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [template]);
    if (rowCount) return; // another test file built it while this one waited
    const building = `${template}_${process.pid}`;
    await admin.query(`DROP DATABASE IF EXISTS "${building}"`);
    await admin.query(`CREATE DATABASE "${building}"`);
    const pool = createPool(databaseUrl(serverUrl, building));
    try {
      await migrate(pool);
    } finally {
      await pool.end().catch(() => undefined);
    }
    await admin.query(`ALTER DATABASE "${building}" RENAME TO "${template}"`);
    const { rows } = await admin.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname LIKE '${TEMPLATE_PREFIX}%' AND datname <> $1`,
      [template],
    );
    for (const r of rows) await admin.query(`DROP DATABASE IF EXISTS "${r.datname}"`).catch(() => undefined);
  } finally {
    await admin.query('SELECT pg_advisory_unlock($1)', [TEMPLATE_LOCK]).catch(() => undefined);
    await admin.end().catch(() => undefined);
  }
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
