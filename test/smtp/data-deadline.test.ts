import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { listener, RawSmtp, SMTP_TEST_LISTENERS } from '../helpers/smtp-submit.js';
import { sleep } from '../../src/lib/time.js';

/** Sends DATA one byte at a time (every 200 ms, far inside the idle timeout) until the server answers or 20 s pass. */
async function trickle(c: RawSmtp): Promise<{ reply: string; ms: number }> {
  const started = Date.now();
  let reply = '';
  const waiting = c.reply(20_000).then(
    (r) => {
      reply = r;
    },
    () => undefined,
  );
  for (let i = 0; i < 100 && !reply && !c.closed; i++) {
    c.socket.write('x');
    await sleep(200);
  }
  await waiting;
  return { reply, ms: Date.now() - started };
}

describe('an overall deadline on DATA', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({
      roles: ['api', 'smtp', 'mx'],
      smtpListen: SMTP_TEST_LISTENERS,
      mxListen: [{ host: '127.0.0.1', port: 0 }],
      deliveryMode: 'capture',
      smtpDataTimeoutMs: 1500,
    });
    await t.resend.domains.verify((await t.resend.domains.create({ name: 'example.com' })).data!.id);
  });
  after(async () => {
    await t.close();
  });

  test('submission: a message trickled byte by byte is cut off with 421 4.4.2 and nothing is stored', async () => {
    const c = await RawSmtp.connect(listener(t, 'tls'), { tls: true });
    try {
      await c.reply();
      await c.cmd('EHLO slow.test');
      assert.match(await c.login(t.key), /^235 /);
      assert.match(await c.cmd('MAIL FROM:<a@example.com>'), /^250 /);
      assert.match(await c.cmd('RCPT TO:<b@dest.test>'), /^250 /);
      assert.match(await c.cmd('DATA'), /^354 /);
      await c.socket.write('From: a@example.com\r\nTo: b@dest.test\r\nSubject: slow\r\n\r\n');
      const { reply, ms } = await trickle(c);
      assert.match(reply, /^421 4\.4\.2 /);
      assert.ok(ms < 6000, `cut off after ${ms} ms`);
      for (let i = 0; i < 50 && !c.closed; i++) await sleep(50);
      assert.ok(c.closed, 'the connection is closed');
      const { rows } = await t.db.pool.query(`SELECT count(*)::int AS n FROM emails WHERE subject = 'slow'`);
      assert.equal(rows[0].n, 0);
    } finally {
      c.close();
    }
  });

  test('MX: the same deadline holds for inbound mail', async () => {
    const mx = t.app.mxListeners![0];
    const c = await RawSmtp.connect({ host: mx.host, port: mx.port, security: 'starttls' });
    try {
      await c.reply();
      await c.cmd('EHLO slow.test');
      assert.match(await c.cmd('MAIL FROM:<a@sender.test>'), /^250 /);
      const rcpt = await c.cmd('RCPT TO:<bounces+x@send.example.com>');
      assert.match(rcpt, /^250 /, rcpt);
      assert.match(await c.cmd('DATA'), /^354 /);
      const { reply } = await trickle(c);
      assert.match(reply, /^421 4\.4\.2 /);
    } finally {
      c.close();
    }
  });

  test('a message that arrives in time is accepted as usual', async () => {
    const c = await RawSmtp.connect(listener(t, 'tls'), { tls: true });
    try {
      await c.reply();
      await c.cmd('EHLO quick.test');
      await c.login(t.key);
      await c.cmd('MAIL FROM:<a@example.com>');
      await c.cmd('RCPT TO:<b@dest.test>');
      await c.cmd('DATA');
      await sleep(1000);
      assert.match(
        await c.cmd('From: a@example.com\r\nTo: b@dest.test\r\nSubject: quick\r\n\r\nhi\r\n.'),
        /^250 2\.0\.0 Ok: queued as /,
      );
    } finally {
      c.close();
    }
  });
});
