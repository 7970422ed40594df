// One webhook request (webhooks/http-post.ts, undici's Pool) against servers on 127.0.0.1: what
// the log keeps of an answer, how each failure is named, the deadline, credentials in the URL,
// the per-endpoint connection limit, and the private-address guard.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { RESPONSE_EXCERPT_BYTES, WebhookHttp } from '../../src/webhooks/http-post.js';

const servers: (http.Server | net.Server)[] = [];
const clients: WebhookHttp[] = [];
after(() => {
  for (const c of clients) c.close();
  for (const s of servers) {
    if (s instanceof http.Server) s.closeAllConnections();
    s.close();
  }
});

const client = (o: Partial<ConstructorParameters<typeof WebhookHttp>[0]> = {}) => {
  const c = new WebhookHttp({ allowPrivateNetworks: true, timeoutMs: 2_000, maxSockets: 4, ...o });
  clients.push(c);
  return c;
};

async function serve(handler: http.RequestListener): Promise<string> {
  const s = http.createServer(handler);
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

const json = '{"type":"email.sent"}';

test('the answer: status, the body cut at 4 KB, Retry-After, the headers and body as sent', async () => {
  let seen: { headers: http.IncomingHttpHeaders; body: string; url?: string } | undefined;
  const base = await serve((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      seen = { headers: req.headers, body: Buffer.concat(parts).toString(), url: req.url };
      res.writeHead(429, { 'retry-after': '7' });
      res.end('x'.repeat(10_000));
    });
  });
  const r = await client().post(
    'ep1',
    `${base}/hooks?a=1`,
    { 'content-type': 'application/json', 'webhook-id': 'msg_1' },
    json,
  );
  assert.equal(r.status, 429);
  assert.equal(r.body, 'x'.repeat(RESPONSE_EXCERPT_BYTES));
  assert.equal(r.retryAfter, '7');
  assert.equal(r.error, undefined);
  assert.ok(seen);
  assert.equal(seen.url, '/hooks?a=1');
  assert.equal(seen.body, json);
  assert.equal(seen.headers['webhook-id'], 'msg_1');
  assert.equal(seen.headers['content-length'], String(Buffer.byteLength(json)));
});

test('a body past the drain limit still counts as the answer; the connection is dropped', async () => {
  const base = await serve((req, res) => {
    req.resume();
    res.writeHead(200);
    const chunk = Buffer.alloc(64 * 1024, 97);
    let sent = 0;
    const more = () => {
      while (sent < 4 * 1024 * 1024) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', more);
      }
      res.end();
    };
    res.on('error', () => undefined);
    more();
  });
  const r = await client().post('ep2', `${base}/`, {}, json);
  assert.equal(r.status, 200);
  assert.equal(r.body?.length, RESPONSE_EXCERPT_BYTES);
});

test('failures are named: refused, a dropped connection, no answer before the deadline', async () => {
  const closed = net.createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  const refused = await client().post('ep3', `http://127.0.0.1:${port}/`, {}, json);
  assert.equal(refused.status, null);
  assert.equal(refused.error?.type, 'refused');

  let drops = 0;
  const dropper = net.createServer((s) => {
    drops++;
    s.once('data', () => s.destroy());
  });
  servers.push(dropper);
  await new Promise<void>((r) => dropper.listen(0, '127.0.0.1', r));
  const dropped = await client().post('ep4', `http://127.0.0.1:${(dropper.address() as AddressInfo).port}/`, {}, json);
  assert.equal(dropped.error?.type, 'closed');
  assert.equal(drops, 2, 'a connection closed before any answer is tried once more, not more');

  const silent = net.createServer((s) => s.on('data', () => undefined));
  servers.push(silent);
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  const t0 = Date.now();
  const timedOut = await client({ timeoutMs: 300 }).post(
    'ep5',
    `http://127.0.0.1:${(silent.address() as AddressInfo).port}/`,
    {},
    json,
  );
  assert.equal(timedOut.error?.type, 'timeout');
  assert.ok(Date.now() - t0 < 2_000, 'the deadline ends the request');
  assert.ok(timedOut.durationMs >= 250);
});

test('credentials in the URL go as Basic authorization; the rest of the URL is the request target', async () => {
  let auth: string | undefined;
  const base = await serve((req, res) => {
    auth = req.headers.authorization;
    req.resume();
    res.end();
  });
  const u = new URL(base);
  const r = await client().post('ep6', `http://us%20er:p%40ss@${u.host}/in`, {}, json);
  assert.equal(r.status, 200);
  assert.equal(auth, `Basic ${Buffer.from('us er:p@ss').toString('base64')}`);
});

test('an endpoint has at most maxSockets requests in flight', async () => {
  let inFlight = 0;
  let most = 0;
  const base = await serve((req, res) => {
    inFlight++;
    most = Math.max(most, inFlight);
    req.resume();
    setTimeout(() => {
      inFlight--;
      res.end('ok');
    }, 20);
  });
  const c = client({ maxSockets: 2 });
  const rs = await Promise.all(Array.from({ length: 10 }, () => c.post('ep7', `${base}/`, {}, json)));
  assert.deepEqual(
    rs.map((r) => r.status),
    Array(10).fill(200),
  );
  assert.equal(most, 2);
});

test('private addresses are refused unless allowed, before any connection', async () => {
  let hits = 0;
  const base = await serve((req, res) => {
    hits++;
    req.resume();
    res.end();
  });
  const guarded = client({ allowPrivateNetworks: false });
  const r = await guarded.post('ep8', `${base}/`, {}, json);
  assert.equal(r.error?.type, 'blocked');
  const v6 = await guarded.post('ep9', 'http://[::1]:9/', {}, json);
  assert.equal(v6.error?.type, 'blocked');
  assert.equal(hits, 0);
  const bad = await guarded.post('ep10', 'ftp://example.test/', {}, json);
  assert.equal(bad.error?.type, 'network');
});
