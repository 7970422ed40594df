import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import { lookup } from 'node:dns/promises';
import type { AddressInfo } from 'node:net';
import { AppError } from '../../src/errors.js';
import { fetchAttachment, type FetchOptions } from '../../src/emails/attachment-fetch.js';
import { normalizeAttachments, resolveAttachments } from '../../src/emails/attachments.js';

const payload = Buffer.from([0, 1, 2, 3, 250, 255]);
let server: http.Server;
let base: string;
let connections = 0;
let lastHost = '';

before(async () => {
  server = http.createServer((req, res) => {
    lastHost = req.headers.host ?? '';
    const url = new URL(req.url ?? '/', 'http://x');
    const hop = Number(url.searchParams.get('hop') ?? 0);
    switch (url.pathname) {
      case '/file.bin':
        res.writeHead(200, { 'content-type': 'image/png' });
        return res.end(payload);
      case '/chain': // /chain?hops=N redirects N times, then serves the file
        if (hop < Number(url.searchParams.get('hops'))) {
          res.writeHead(302, { location: `/chain?hops=${url.searchParams.get('hops')}&hop=${hop + 1}` });
          return res.end();
        }
        res.writeHead(200);
        return res.end(payload);
      case '/to':
        res.writeHead(301, { location: url.searchParams.get('url')! });
        return res.end();
      case '/missing':
        res.writeHead(404);
        return res.end('nope');
      case '/big':
        res.writeHead(200, { 'content-length': '1000' });
        return res.end(Buffer.alloc(1000));
      case '/big-chunked':
        res.writeHead(200);
        res.write(Buffer.alloc(600));
        return res.end(Buffer.alloc(600));
      case '/hang':
        return; // never answers
      default:
        res.writeHead(500);
        res.end();
    }
  });
  server.on('connection', () => connections++);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(() => {
  server.closeAllConnections();
  server.close();
});

const allow: FetchOptions = { allowPrivateNetworks: true, maxBytes: 1024, timeoutMs: 2000 };
const deny: FetchOptions = { ...allow, allowPrivateNetworks: false };

async function refused(url: string, opts: FetchOptions, message: RegExp) {
  await assert.rejects(
    fetchAttachment(url, opts),
    (err: unknown) => {
      assert.ok(err instanceof AppError);
      assert.equal(err.code, 'invalid_attachment');
      assert.equal(err.status, 422);
      assert.match(err.message, message);
      return true;
    },
    url,
  );
}

test('fetches the bytes and content type from a local server when private networks are allowed', async () => {
  const got = await fetchAttachment(`${base}/file.bin`, allow);
  assert.deepEqual(got.content, payload);
  assert.equal(got.contentType, 'image/png');
});

test('refuses loopback, private, link-local, metadata and IPv6 loopback targets before connecting', async () => {
  const before = connections;
  const port = new URL(base).port;
  await refused(`${base}/file.bin`, deny, /resolves to a loopback address \(127\.0\.0\.1\), which is not allowed/);
  await refused(`http://10.0.0.1:${port}/x`, deny, /private address \(10\.0\.0\.1\)/);
  await refused(`http://[::1]:${port}/x`, deny, /loopback address \(::1\)/);
  await refused('http://169.254.169.254/latest/meta-data/', deny, /link-local \(cloud metadata\) address/);
  await refused('http://[::ffff:127.0.0.1]/x', deny, /loopback/);
  await refused('http://[fd00:ec2::254]/x', deny, /unique local/);
  await refused(`http://localhost:${port}/file.bin`, deny, /loopback/);
  assert.equal(connections, before, 'no connection was attempted');
});

test('follows up to 3 redirects and refuses a 4th', async () => {
  assert.deepEqual((await fetchAttachment(`${base}/chain?hops=3`, allow)).content, payload);
  await refused(`${base}/chain?hops=4`, allow, /more than 3 redirects/);
});

test('re-checks every redirect target against the address policy', async () => {
  // Pretend 127.0.0.1 is public so the first hop connects; the redirect must still be judged.
  const opts: FetchOptions = { ...deny, allowAddress: (ip) => ip === '127.0.0.1' };
  assert.deepEqual((await fetchAttachment(`${base}/file.bin`, opts)).content, payload);
  await refused(
    `${base}/to?url=${encodeURIComponent('http://169.254.169.254/latest/meta-data/')}`,
    opts,
    /169\.254\.169\.254/,
  );
  await refused(`${base}/to?url=${encodeURIComponent('http://[::1]/')}`, opts, /::1/);
  await refused(`${base}/to?url=${encodeURIComponent('file:///etc/passwd')}`, opts, /only http and https/);
});

test('connects to the checked address while sending the original Host header', async () => {
  const [first] = await lookup('localhost', { all: true, verbatim: true });
  const local = http.createServer((req, res) => res.end(req.headers.host));
  local.listen(0, first.address);
  await once(local, 'listening');
  try {
    const port = (local.address() as AddressInfo).port;
    const got = await fetchAttachment(`http://localhost:${port}/`, allow);
    assert.equal(got.content.toString(), `localhost:${port}`);
  } finally {
    local.close();
  }
});

test('fails on an HTTP error status', async () => {
  await refused(`${base}/missing`, allow, /answered HTTP 404/);
});

test('caps the size, by Content-Length and while streaming', async () => {
  await refused(`${base}/big`, { ...allow, maxBytes: 999 }, /larger than 999 bytes/);
  await refused(`${base}/big-chunked`, { ...allow, maxBytes: 1000 }, /larger than 1000 bytes/);
  assert.equal((await fetchAttachment(`${base}/big`, { ...allow, maxBytes: 1000 })).content.length, 1000);
});

test('gives up after the timeout', async () => {
  const started = Date.now();
  await refused(`${base}/hang`, { ...allow, timeoutMs: 200 }, /timed out/);
  assert.ok(Date.now() - started < 1500);
});

test('rejects URLs that are not http or https, and unresolvable hosts', async () => {
  await refused('ftp://example.com/a', allow, /only http and https/);
  await refused('nonsense', allow, /must be a valid http or https URL/);
  await refused('http://does-not-exist.invalid/a', allow, /does not resolve|timed out/);
});

test('resolveAttachments fetches path attachments, naming them from the URL and typing them from the response', async () => {
  const list = normalizeAttachments([
    { path: `${base}/file.bin` },
    { path: `${base}/chain?hops=0`, filename: 'x.pdf' },
    { content: 'aGk=' },
  ]);
  const got = await resolveAttachments(list, allow);
  assert.deepEqual(
    got.map((a) => [a.filename, a.contentType, a.content.length]),
    [
      ['file.bin', 'image/png', 6],
      ['x.pdf', 'application/pdf', 6],
      [undefined, 'application/octet-stream', 2],
    ],
  );
  assert.equal('path' in got[0], false);
  await assert.rejects(
    resolveAttachments(list, { ...allow, maxBytes: 8 }),
    /larger than 2 bytes/,
    'the byte budget is shared',
  );
});
