// Container health check (Dockerfile HEALTHCHECK, compose.yaml): exit 0 when this process's roles
// answer, 1 otherwise. Reads the same MAILROOM_* settings as the process it checks.
//   api         GET /ready on MAILROOM_HTTP_LISTEN (database reachable, not shutting down)
//   smtp / mx   a 220 greeting on the first submission / MX listener
//   worker only nothing to ask: the container runs as long as the process does
// Plain Node, no imports from the build, so that it works whatever the process is doing.
import net from 'node:net';

const env = process.env;
const roles = (env.MAILROOM_ROLES ?? 'api,smtp,mx,worker').split(',').map((r) => r.trim());
const TIMEOUT_MS = 4_000;

/** "host:port[:mode]" (first of a comma-separated list) → { host, port }; a wildcard host asks loopback. */
function firstAddress(list, fallback) {
  const first = (list ?? fallback).split(',')[0].trim();
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)/.exec(first) ?? /^()()(\d+)/.exec(first);
  if (!m) throw new Error(`cannot read the address ${first}`);
  let host = m[1] ?? m[2] ?? '';
  if (host === '' || host === '0.0.0.0') host = '127.0.0.1';
  if (host === '::') host = '::1';
  return { host, port: Number(m[3]) };
}

async function ready() {
  const { host, port } = firstAddress(env.MAILROOM_HTTP_LISTEN, '127.0.0.1:3000');
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}/ready`;
  const res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
  if (!res.ok) throw new Error(`${url} answered ${res.status}`);
}

function greeting(list, fallback) {
  const { host, port } = firstAddress(list, fallback);
  return new Promise((resolve, reject) => {
    const s = net.connect({ host, port });
    let seen = '';
    const done = (err) => {
      s.destroy();
      if (err) reject(err);
      else resolve();
    };
    s.setTimeout(TIMEOUT_MS, () => done(new Error(`no greeting from ${host}:${port}`)));
    s.on('error', done);
    s.on('data', (d) => {
      seen += d.toString('latin1');
      if (!seen.includes('\n')) return;
      s.write('QUIT\r\n');
      done(seen.startsWith('220') ? undefined : new Error(`${host}:${port} greeted ${seen.trim()}`));
    });
  });
}

const checks = [];
if (roles.includes('api')) checks.push(ready());
if (roles.includes('smtp')) checks.push(greeting(env.MAILROOM_SMTP_LISTEN, '127.0.0.1:2587'));
if (roles.includes('mx')) checks.push(greeting(env.MAILROOM_MX_LISTEN, '127.0.0.1:2525'));
try {
  await Promise.all(checks);
  process.exit(0);
} catch (err) {
  console.error(`unhealthy: ${err.message}`);
  process.exit(1);
}
