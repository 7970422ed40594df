// `mailroom doctor`: checks what a start with this shell's environment needs: configuration,
// database, listen ports, the DNS resolver and the TLS certificate; and asks /ready of a Mailroom
// at the configured HTTP address, the one thing it learns of a running server. Exit 1 when a check fails.
import fs from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import { mxHostProblem } from '../config/checks.js';
import { X509Certificate } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import { loadConfig } from '../config/load.js';
import type { HostPort } from '../config/schema.js';
import { listMigrations } from '../store/migrate.js';
import { openCliDatabase } from './db.js';
import { explainError } from './errors.js';
import { parseArgs } from 'node:util';

type Check = { name: string; ok: boolean; detail: string; warnOnly?: boolean; info?: boolean };

/** Where a client reaches a server listening on `hp` (a wildcard address is reached on loopback). */
function reachUrl(hp: HostPort): string {
  const host = hp.host === '0.0.0.0' ? '127.0.0.1' : hp.host === '::' ? '::1' : hp.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${hp.port}`;
}

/** Asks /ready at the configured HTTP address: the running server, if one listens there. */
async function runningServer(hp: HostPort): Promise<{ check: Check; answering?: string }> {
  const name = 'running server';
  if (hp.port === 0)
    return {
      check: { name, ok: true, info: true, detail: 'MAILROOM_HTTP_LISTEN names no fixed port: no server to ask' },
    };
  const url = `${reachUrl(hp)}/ready`;
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(2000) });
  } catch {
    return { check: { name, ok: true, info: true, detail: `none answers at ${url}` } };
  }
  const body = (await res.json().catch(() => undefined)) as { status?: string } | undefined;
  if (res.status === 200 && body?.status === 'ready')
    return {
      answering: reachUrl(hp),
      check: {
        name,
        ok: true,
        info: true,
        detail: `a Mailroom answers at ${url}: ready (its own settings may differ from this shell's)`,
      },
    };
  if (res.status === 503 && body?.status === 'not_ready')
    return {
      answering: reachUrl(hp),
      check: {
        name,
        ok: false,
        warnOnly: true,
        detail: `a Mailroom answers at ${url}: not ready (its database does not answer, or it is shutting down)`,
      },
    };
  return {
    check: {
      name,
      ok: false,
      warnOnly: true,
      detail: `something other than Mailroom answers at ${url} (HTTP ${res.status})`,
    },
  };
}

async function portFree(hp: HostPort): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(hp.port, hp.host, () => srv.close(() => resolve(true)));
  });
}

export async function cmdDoctor(argv: string[]): Promise<number> {
  parseArgs({ args: argv, options: {} }); // no arguments: anything else is a usage error
  const checks: Check[] = [];
  const config = loadConfig(); // a bad setting throws a ConfigError naming it
  process.stdout.write(
    "Checks for `npx mailroom start` with this shell's environment (a running server may have been started with other settings):\n",
  );
  checks.push({ name: 'configuration', ok: true, detail: 'all settings valid' });
  const mxProblem = mxHostProblem(config);
  checks.push({
    name: 'public host name (MAILROOM_MX_HOST)',
    ok: !mxProblem,
    detail: mxProblem ?? config.mxHost,
    warnOnly: true,
  });

  let owner: number | undefined;
  try {
    const db = await openCliDatabase(config);
    owner = db.sharedWith;
    try {
      const { rows } = await db.pool.query(
        "SELECT current_setting('server_version') AS v, to_regclass('schema_migrations') IS NOT NULL AS m",
      );
      let pending = listMigrations().length;
      if (rows[0].m) pending -= Number((await db.pool.query('SELECT count(*) FROM schema_migrations')).rows[0].count);
      checks.push({
        name: 'database',
        ok: true,
        detail: `PostgreSQL ${rows[0].v} (${db.sharedWith ? `embedded, that of the running Mailroom, process ${db.sharedWith}` : db.embedded ? 'embedded' : 'external'}); ${pending} migration(s) pending`,
      });
    } finally {
      await db.close();
    }
  } catch (err) {
    checks.push({ name: 'database', ok: false, detail: explainError(err) });
  }

  const running = await runningServer(config.httpListen);
  checks.push(running.check);

  const listeners: [string, HostPort][] = [
    ['http', config.httpListen],
    ...config.smtpListen.map((l) => ['smtp', l] as [string, HostPort]),
    ...config.mxListen.map((l) => ['mx', l] as [string, HostPort]),
  ];
  for (const [what, hp] of listeners) {
    const free = await portFree(hp);
    checks.push({
      name: `${what} port ${hp.host}:${hp.port}`,
      ok: free,
      detail: free
        ? 'free'
        : owner
          ? `in use (by the running Mailroom, process ${owner})`
          : what === 'http' && running.answering
            ? `in use (by the Mailroom answering at ${running.answering})`
            : 'in use or not permitted (another instance running, or a port below 1024 without privileges)',
      warnOnly: true,
    });
  }

  const resolver = new Resolver({ timeout: 2000, tries: 1 });
  if (config.dnsServers.length) resolver.setServers(config.dnsServers);
  try {
    await resolver.resolveMx(config.mxHost.includes('.') ? config.mxHost : 'localhost');
    checks.push({ name: 'dns resolver', ok: true, detail: `answers (${resolver.getServers().join(', ')})` });
  } catch (err) {
    const code = (err as { code?: string }).code;
    // NODATA / NOTFOUND are answers: the resolver works.
    const answered = code === 'ENODATA' || code === 'ENOTFOUND';
    checks.push({
      name: 'dns resolver',
      ok: answered,
      detail: answered
        ? `answers (${resolver.getServers().join(', ')})`
        : `no answer from ${resolver.getServers().join(', ')}: ${code ?? explainError(err)}`,
    });
  }

  if (config.tlsCert && config.tlsKey) {
    try {
      const cert = fs.readFileSync(config.tlsCert);
      tls.createSecureContext({ cert, key: fs.readFileSync(config.tlsKey) });
      const x = new X509Certificate(cert);
      const expired = Date.parse(x.validTo) < Date.now();
      checks.push({
        name: 'tls certificate',
        ok: !expired,
        detail: `${x.subject.replace(/\n/g, ', ')}; valid to ${x.validTo}`,
      });
    } catch (err) {
      checks.push({ name: 'tls certificate', ok: false, detail: explainError(err) });
    }
  } else {
    checks.push({
      name: 'tls certificate',
      ok: true,
      detail: 'none configured: a self-signed certificate is generated into the data directory',
    });
  }

  for (const c of checks)
    process.stdout.write(`${c.info ? 'info' : c.ok ? 'ok  ' : c.warnOnly ? 'warn' : 'FAIL'}  ${c.name}: ${c.detail}\n`);
  return checks.some((c) => !c.ok && !c.warnOnly) ? 1 : 0;
}
