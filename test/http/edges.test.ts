// The edges of the HTTP API that no route owns: text that cannot be stored, sizes, framework and
// connection-level errors, and a database that goes away. Every answer is Resend's error shape.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { freshDatabase } from '../helpers/db.js';
import { closeAll } from '../helpers/close-all.js';

const resendShape = (body: any, status: number, name?: string) => {
  assert.equal(typeof body, 'object', `not JSON: ${String(body).slice(0, 200)}`);
  assert.deepEqual(Object.keys(body), ['statusCode', 'message', 'name']);
  assert.equal(body.statusCode, status);
  if (name) assert.equal(body.name, name);
};

/** A raw HTTP/1.1 exchange (for requests fetch refuses to send). */
async function rawHttp(url: string, request: string): Promise<{ status: number; body: any }> {
  const u = new URL(url);
  const socket = net.connect(Number(u.port), u.hostname);
  let data = '';
  socket.setEncoding('latin1');
  socket.on('data', (d: string) => {
    data += d;
  });
  await new Promise<void>((resolve) => {
    socket.once('connect', () => {
      socket.write(request);
      resolve();
    });
  });
  await new Promise<void>((resolve) => {
    socket.once('close', () => resolve());
    setTimeout(() => {
      socket.destroy();
      resolve();
    }, 5000).unref();
  });
  const [head, ...rest] = data.split('\r\n\r\n');
  const text = rest.join('\r\n\r\n');
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* keep text */
  }
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), body };
}

describe('HTTP edges', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ deliveryMode: 'capture' });
    await t.resend.domains.verify((await t.resend.domains.create({ name: 'example.com' })).data!.id);
  });
  after(async () => {
    await t.close();
  });

  const json = (method: string, p: string, raw: string) =>
    t.api(method, p, { raw, headers: { 'content-type': 'application/json' } });

  test('a NUL or a lone surrogate in a body field is a 422 naming the field, not a 500', async () => {
    const cases: [string, string, string, RegExp][] = [
      [
        'POST',
        '/emails',
        '{"from":"a@example.com","to":"b@example.org","subject":"hi \\u0000 there","text":"x"}',
        /`subject`/,
      ],
      ['POST', '/api-keys', '{"name":"key \\ud800"}', /`name`/],
      [
        'POST',
        '/contact-properties',
        '{"key":"plan","type":"string","fallback_value":"free\\u0000"}',
        /`fallback_value`/,
      ],
      [
        'POST',
        '/emails',
        '{"from":"a@example.com","to":["b@example.org"],"subject":"s","text":"x","tags":[{"name":"n","value":"\\udc00"}]}',
        /`tags\[0\]\.value`/,
      ],
    ];
    for (const [method, p, raw, field] of cases) {
      const r = await json(method, p, raw);
      assert.equal(r.status, 422, `${p} ${raw}: ${JSON.stringify(r.body)}`);
      resendShape(r.body, 422, 'validation_error');
      assert.match(r.body.message, field);
    }
  });

  test('a NUL in a path parameter or a query parameter is a 422', async () => {
    const p = await t.api('GET', '/suppressions/a%00b@example.com');
    assert.equal(p.status, 422, JSON.stringify(p.body));
    resendShape(p.body, 422, 'validation_error');
    const q = await t.api('GET', '/emails?limit=10&after=%00');
    assert.equal(q.status, 422, JSON.stringify(q.body));
  });

  test('to, cc and bcc together are capped at 50 recipients, also in a batch', async () => {
    const bcc = Array.from({ length: 10_000 }, (_, i) => `r${i}@example.org`);
    const r = await t.api('POST', '/emails', {
      body: { from: 'a@example.com', to: 'b@example.org', bcc, subject: 's', text: 'x' },
    });
    assert.equal(r.status, 422);
    resendShape(r.body, 422, 'validation_error');
    assert.match(r.body.message, /at most 50 addresses \(got 10001\)/);
    const ok = await t.api('POST', '/emails', {
      body: {
        from: 'a@example.com',
        to: ['b@example.org'],
        cc: bcc.slice(0, 20),
        bcc: bcc.slice(20, 49),
        subject: 's',
        text: 'x',
      },
    });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const b = await t.api('POST', '/emails/batch', {
      body: [{ from: 'a@example.com', to: 'b@example.org', cc: bcc.slice(0, 50), subject: 's', text: 'x' }],
    });
    assert.equal(b.status, 422);
  });

  test("a body past the limit is refused 413 in Resend's shape without being read whole", async () => {
    const declared = await rawHttp(
      t.url,
      `POST /emails HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.key}\r\nContent-Type: application/json\r\nContent-Length: ${141 * 1024 * 1024}\r\n\r\n{"from":`,
    );
    assert.equal(declared.status, 413);
    resendShape(declared.body, 413, 'validation_error');
    const big =
      '{"from":"a@example.com","to":"b@example.org","subject":"s","text":"' + 'x'.repeat(49 * 1024 * 1024) + '"}';
    const r = await json('POST', '/emails', big);
    assert.equal(r.status, 413);
    resendShape(r.body, 413);
  });

  test("headers too large, a URL too long for a parameter, and bad percent-encoding answer in Resend's shape", async () => {
    const h = await rawHttp(
      t.url,
      `GET /domains HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.key}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    assert.equal(h.status, 431);
    resendShape(h.body, 431, 'validation_error');
    const long = await t.api('GET', `/emails/${'a'.repeat(600)}`);
    assert.ok([404, 414].includes(long.status), String(long.status));
    resendShape(long.body, long.status);
    const bad = await t.api('GET', '/emails/%zz');
    assert.equal(bad.status, 400);
    resendShape(bad.body, 400, 'validation_error');
    const garbage = await rawHttp(t.url, 'GARBAGE\r\n\r\n');
    assert.equal(garbage.status, 400);
    resendShape(garbage.body, 400, 'validation_error');
  });
});

describe('a database outage', () => {
  test('answers 503 with a clear message while the database is unreachable, and recovers', async () => {
    const db = await freshDatabase();
    const target = new URL(db.url);
    // A loopback proxy in front of PostgreSQL: closing it is the outage.
    const sockets = new Set<net.Socket>();
    let up = true;
    const proxy = net.createServer((c) => {
      if (!up) return c.destroy();
      const s = net.connect(Number(target.port || 5432), target.hostname);
      sockets.add(c);
      sockets.add(s);
      c.pipe(s);
      s.pipe(c);
      const end = () => {
        c.destroy();
        s.destroy();
        sockets.delete(c);
        sockets.delete(s);
      };
      c.on('error', end);
      s.on('error', end);
      c.on('close', end);
      s.on('close', end);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
    const via = new URL(db.url);
    via.hostname = '127.0.0.1';
    via.port = String((proxy.address() as net.AddressInfo).port);
    const t = await startTestApp({}, { db: { ...db, url: via.toString() } });
    try {
      assert.equal((await t.api('GET', '/domains')).status, 200);
      up = false;
      for (const s of sockets) s.destroy();
      let r = await t.api('GET', '/domains');
      for (let i = 0; i < 5 && r.status === 200; i++) r = await t.api('GET', '/domains');
      assert.equal(r.status, 503, JSON.stringify(r.body));
      resendShape(r.body, 503, 'application_error');
      assert.match(r.body.message, /database is unavailable/);
      up = true;
      let back = await t.api('GET', '/domains');
      for (let i = 0; i < 20 && back.status !== 200; i++) {
        await new Promise((res) => setTimeout(res, 100));
        back = await t.api('GET', '/domains');
      }
      assert.equal(back.status, 200);
    } finally {
      up = true;
      await closeAll(
        () => t.close(),
        () => {
          for (const s of sockets) s.destroy();
        },
        () => {
          proxy.close();
        },
        () => db.drop(),
      );
    }
  });
});
