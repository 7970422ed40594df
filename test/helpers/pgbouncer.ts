// A PgBouncer of the test's own on a free loopback port, in front of one database, in transaction
// mode (statements of one client may run on different server connections): its config, user list,
// log and pid file in a temporary directory, run in the foreground as the "postgres" user when we
// are root (PgBouncer refuses to run as root). `admin` runs a console command (SHOW CLIENTS, ...).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort, serverUser } from './private-postgres.js';
import { until } from './until.js';

export interface PgBouncer {
  port: number;
  url: string;
  admin(command: string): Promise<Record<string, unknown>[]>;
  log(): string;
  stop(): Promise<void>;
}

export function pgbouncerBinary(): string | undefined {
  for (const p of ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer']) if (fs.existsSync(p)) return p;
  const which = spawnSync('which', ['pgbouncer'], { encoding: 'utf8' });
  return which.status === 0 ? which.stdout.trim() : undefined;
}

export async function startPgBouncer(target: { port: number; database: string }): Promise<PgBouncer> {
  const bin = pgbouncerBinary();
  if (!bin) throw new Error('pgbouncer is not installed (Debian: apt-get install pgbouncer)');
  const user = serverUser();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-pgbouncer-'));
  fs.chmodSync(tmp, 0o755);
  const port = await freePort();
  const ini = path.join(tmp, 'pgbouncer.ini');
  const logFile = path.join(tmp, 'pgbouncer.log');
  fs.writeFileSync(path.join(tmp, 'userlist.txt'), '"postgres" ""\n');
  fs.writeFileSync(
    ini,
    [
      '[databases]',
      `${target.database} = host=127.0.0.1 port=${target.port} dbname=${target.database} user=postgres`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${path.join(tmp, 'userlist.txt')}`,
      'admin_users = postgres',
      'pool_mode = transaction',
      'max_client_conn = 1000',
      'default_pool_size = 10',
      `logfile = ${logFile}`,
      `pidfile = ${path.join(tmp, 'pgbouncer.pid')}`,
      '',
    ].join('\n'),
  );
  fs.writeFileSync(logFile, '');
  if (user.uid !== undefined) for (const f of fs.readdirSync(tmp)) fs.chownSync(path.join(tmp, f), user.uid, user.gid!);
  if (user.uid !== undefined) fs.chownSync(tmp, user.uid, user.gid!);
  let out = '';
  const child: ChildProcess = spawn(bin, [ini], { ...user, stdio: ['ignore', 'pipe', 'pipe'], cwd: tmp });
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    out += d;
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const log = () => `${out}${fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : ''}`;
  const bouncer: PgBouncer = {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/${target.database}`,
    async admin(command) {
      const c = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/pgbouncer` });
      await c.connect();
      try {
        return (await c.query(command)).rows;
      } finally {
        await c.end().catch(() => undefined);
      }
    },
    log,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGINT');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      fs.rmSync(tmp, { recursive: true, force: true });
    },
  };
  try {
    await until(
      'pgbouncer to accept connections',
      async () =>
        bouncer.admin('SHOW VERSION').then(
          () => true,
          () => child.exitCode !== null && Promise.reject(new Error(`pgbouncer exited: ${log()}`)),
        ),
      15_000,
    );
  } catch (err) {
    await bouncer.stop();
    throw err;
  }
  return bouncer;
}
