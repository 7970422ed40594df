// End-to-end delivery over real sockets: fake DNS + recording SMTP servers on loopback.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeDns, type FakeDns } from '../helpers/fake-dns.js';
import { startRecordingSmtp, type RecordingSmtp } from '../helpers/recording-smtp.js';
import { deliver, type OutboundMessage } from '../../src/mta/deliver.js';
import { Pool } from '../../src/mta/pool.js';
import { closeAll } from '../helpers/close-all.js';

let dns: FakeDns;
let mx: RecordingSmtp; // offers STARTTLS
let plain: RecordingSmtp; // no STARTTLS
let pool: Pool;
let seq = 0;

const raw = Buffer.from(
  'From: a@sender.test\r\nTo: b@dest.test\r\nSubject: Hi\r\nMessage-ID: <1@sender.test>\r\n\r\nHello\r\n',
);

/** A fresh destination domain whose MX points at 127.0.0.1 (the recording servers). */
function domain(): string {
  const name = `d${++seq}.test`;
  dns.set(name, 'MX', [{ exchange: `mx.${name}`, priority: 10 }]);
  dns.set(`mx.${name}`, 'A', ['127.0.0.1']);
  return name;
}

const message = (recipients: string[], tls: 'opportunistic' | 'enforced' = 'opportunistic'): OutboundMessage => ({
  mailFrom: 'bounces+abc@sender.test',
  recipients,
  raw,
  tls,
});
const route = (name: string, server: RecordingSmtp = mx) => ({
  mode: 'mx' as const,
  domain: name,
  port: server.port,
  dns: [dns.address],
});
const opts = () => ({ heloName: 'mta.sender.test', pool, timeoutMs: 3000 });

before(async () => {
  dns = await startFakeDns();
  mx = await startRecordingSmtp();
  plain = await startRecordingSmtp({ starttls: false });
  pool = new Pool({ timeoutMs: 5000 });
});
after(async () => {
  await closeAll(
    () => pool.closeAll(),
    () => Promise.all([mx.close(), plain.close(), dns.close()]),
  );
});

test('delivers to the MX over STARTTLS with every recipient in one transaction', async () => {
  const name = domain();
  const before = mx.messages.length;
  const results = await deliver(message([`a@${name}`, `b@${name}`]), route(name), opts());
  assert.deepEqual(
    results.map((r) => [r.recipient, r.status, r.code, r.tls, r.mxHost]),
    [
      [`a@${name}`, 'delivered', 250, true, `mx.${name}`],
      [`b@${name}`, 'delivered', 250, true, `mx.${name}`],
    ],
  );
  const got = mx.messages.slice(before);
  assert.equal(got.length, 1);
  assert.deepEqual(got[0].rcptTo, [`a@${name}`, `b@${name}`]);
  assert.equal(got[0].mailFrom, 'bounces+abc@sender.test');
  assert.equal(got[0].secure, true);
  assert.equal(got[0].heloName, 'mta.sender.test');
  assert.ok(got[0].raw.toString().includes('Subject: Hi'));
});

test('bounces a 550 5.1.1 recipient while delivering the other one', async () => {
  const name = domain();
  mx.onRcpt = (address) => (address.startsWith('nobody@') ? { code: 550, message: '5.1.1 User unknown' } : undefined);
  try {
    const [ok, bad] = await deliver(message([`ok@${name}`, `nobody@${name}`]), route(name), opts());
    assert.equal(ok.status, 'delivered');
    assert.deepEqual(
      [bad.status, bad.code, bad.enhanced, bad.subType, bad.category],
      ['bounced', 550, '5.1.1', 'NoEmail', 'recipient'],
    );
    assert.match(bad.response, /User unknown/);
  } finally {
    mx.onRcpt = () => undefined;
  }
});

test('defers a 4xx recipient with the named wait, and bounces when all are rejected', async () => {
  const name = domain();
  mx.onRcpt = (address) =>
    address.startsWith('grey@')
      ? { code: 450, message: '4.2.0 Greylisted, try again in 300 seconds' }
      : { code: 550, message: '5.1.1 No such user' };
  try {
    const [grey, gone] = await deliver(message([`grey@${name}`, `gone@${name}`]), route(name), opts());
    assert.deepEqual(
      [grey.status, grey.code, grey.retryAfterSeconds, grey.category],
      ['deferred', 450, 300, 'greylist'],
    );
    assert.deepEqual([gone.status, gone.subType], ['bounced', 'NoEmail']);
  } finally {
    mx.onRcpt = () => undefined;
  }
});

test('bounces every recipient when DATA is rejected as spam', async () => {
  const name = domain();
  mx.onData = () => ({ code: 554, message: '5.7.1 Message rejected due to spam content' });
  try {
    const results = await deliver(message([`x@${name}`, `y@${name}`]), route(name), opts());
    assert.deepEqual(
      results.map((r) => [r.status, r.subType]),
      [
        ['bounced', 'ContentRejected'],
        ['bounced', 'ContentRejected'],
      ],
    );
  } finally {
    mx.onData = () => undefined;
  }
  // The connection stays usable after the failed transaction (RSET).
  const [again] = await deliver(message([`x@${name}`]), route(name), opts());
  assert.equal(again.status, 'delivered');
});

test('falls back to the next MX when the first refuses connections', async () => {
  const name = `fallback${++seq}.test`;
  dns.set(name, 'MX', [
    { exchange: `mx1.${name}`, priority: 10 },
    { exchange: `mx2.${name}`, priority: 20 },
  ]);
  dns.set(`mx1.${name}`, 'A', ['127.0.0.2']); // nothing listens there
  dns.set(`mx2.${name}`, 'A', ['127.0.0.1']);
  const [r] = await deliver(message([`a@${name}`]), route(name), opts());
  assert.deepEqual([r.status, r.mxHost], ['delivered', `mx2.${name}`]);
});

test('moves to the next MX when the first answers MAIL FROM with a 4xx', async () => {
  const name = `busy${++seq}.test`;
  dns.set(name, 'MX', [
    { exchange: `mx1.${name}`, priority: 10 },
    { exchange: `mx2.${name}`, priority: 20 },
  ]);
  dns.set(`mx1.${name}`, 'A', ['127.0.0.1']);
  dns.set(`mx2.${name}`, 'A', ['127.0.0.1']);
  let calls = 0;
  mx.onMail = () => (++calls === 1 ? { code: 451, message: '4.3.2 System busy, try again in 2 minutes' } : undefined);
  try {
    const [r] = await deliver(message([`a@${name}`]), route(name), opts());
    assert.deepEqual([r.status, r.mxHost], ['delivered', `mx2.${name}`]);
    // When every host answers 4xx, the last reply is kept and its named wait honoured.
    mx.onMail = () => ({ code: 451, message: '4.3.2 System busy, try again in 2 minutes' });
    const [d] = await deliver(message([`a@${name}`]), route(name), opts());
    assert.deepEqual([d.status, d.code, d.retryAfterSeconds], ['deferred', 451, 120]);
  } finally {
    mx.onMail = () => undefined;
  }
});

test('defers with the last connection error when no MX answers', async () => {
  const name = `down${++seq}.test`;
  dns.set(name, 'MX', [{ exchange: `mx.${name}`, priority: 10 }]);
  dns.set(`mx.${name}`, 'A', ['127.0.0.2']);
  const [r] = await deliver(message([`a@${name}`]), route(name), opts());
  assert.deepEqual([r.status, r.category, r.enhanced], ['deferred', 'connection', '4.4.1']);
  assert.match(r.response, /ECONNREFUSED|refused/i);
});

test('bounces on a null MX and on a missing domain, defers on SERVFAIL', async () => {
  dns.set('nomail.test', 'MX', [{ exchange: '', priority: 0 }]);
  const [nullMx] = await deliver(message(['a@nomail.test']), route('nomail.test'), opts());
  assert.deepEqual([nullMx.status, nullMx.subType, nullMx.code, nullMx.enhanced], ['bounced', 'General', 550, '5.1.2']);
  assert.match(nullMx.response, /^550 5\.1\.2 .*null MX/);

  const [missing] = await deliver(message(['a@missing.test']), route('missing.test'), opts());
  assert.deepEqual([missing.status, missing.subType], ['bounced', 'General']);

  dns.set('broken.test', 'MX', [{ exchange: 'mx.broken.test', priority: 10 }]);
  dns.fail('broken.test', 'SERVFAIL');
  const [broken] = await deliver(message(['a@broken.test']), route('broken.test'), opts());
  assert.deepEqual([broken.status, broken.category], ['deferred', 'dns']);
});

test('refuses plaintext when TLS is enforced, sends plaintext when opportunistic', async () => {
  const name = domain();
  const [enforced] = await deliver(message([`a@${name}`], 'enforced'), route(name, plain), opts());
  assert.deepEqual([enforced.status, enforced.category, enforced.tls], ['deferred', 'tls', false]);
  assert.match(enforced.response, /TLS is enforced/);
  const [opportunistic] = await deliver(message([`a@${name}`]), route(name, plain), opts());
  assert.deepEqual([opportunistic.status, opportunistic.tls], ['delivered', false]);
  const [secure] = await deliver(message([`a@${name}`], 'enforced'), route(name), opts());
  assert.deepEqual([secure.status, secure.tls], ['delivered', true]);
});

test('reuses connections: 100 messages to one destination over a few connections', async () => {
  const name = domain();
  const before = mx.connections;
  const count = mx.messages.length;
  const results = await Promise.all(
    Array.from({ length: 100 }, (_, i) => deliver(message([`r${i}@${name}`]), route(name), opts())),
  );
  assert.ok(results.every(([r]) => r.status === 'delivered'));
  await mx.waitFor(count + 100);
  const opened = mx.connections - before;
  assert.ok(opened <= 5, `opened ${opened} connections`);
  assert.ok(pool.size() <= 5 + 2); // + the idle connection to the plain server
});

test('defers when the server drops the connection after DATA', async () => {
  const name = domain();
  mx.dropConnections = true;
  try {
    const [r] = await deliver(message([`a@${name}`]), route(name), opts());
    assert.deepEqual([r.status, r.category], ['deferred', 'network']);
  } finally {
    mx.dropConnections = false;
  }
  const [r] = await deliver(message([`a@${name}`]), route(name), opts());
  assert.equal(r.status, 'delivered');
});

test('delivers through a relay URL', async () => {
  const before = plain.messages.length;
  const [r] = await deliver(
    message(['z@anywhere.example']),
    { mode: 'relay', url: `smtp://127.0.0.1:${plain.port}` },
    opts(),
  );
  assert.deepEqual([r.status, r.mxHost], ['delivered', '127.0.0.1']);
  assert.equal(plain.messages.length, before + 1);
});
