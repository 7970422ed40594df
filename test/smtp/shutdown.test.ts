import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { startTestApp } from '../helpers/harness.js';
import { listener, queuedId, RawSmtp, SMTP_TEST_LISTENERS } from '../helpers/smtp-submit.js';

test('shutting down: idle and mid-transaction sessions get 421 4.3.2, a message being sent is committed and answered first', async () => {
  const t = await startTestApp({ roles: ['api', 'smtp'], smtpListen: SMTP_TEST_LISTENERS, deliveryMode: 'capture' });
  try {
    const { data } = await t.resend.domains.create({ name: 'example.com' });
    await t.resend.domains.verify(data!.id);
    const open = async () => {
      const c = await RawSmtp.connect(listener(t, 'tls'), { tls: true });
      await c.reply();
      await c.cmd('EHLO client.test');
      assert.match(await c.login(t.key), /^235 /);
      return c;
    };
    const idle = await open();
    const midTransaction = await open();
    assert.match(await midTransaction.cmd('MAIL FROM:<hello@example.com>'), /^250 /);
    const sending = await open();
    assert.match(await sending.cmd('MAIL FROM:<hello@example.com>'), /^250 /);
    assert.match(await sending.cmd('RCPT TO:<a@dest.test>'), /^250 /);
    assert.match(await sending.cmd('DATA'), /^354 /);
    sending.write('From: hello@example.com\r\nTo: a@dest.test\r\nSubject: In flight\r\n\r\nfirst half, ');

    const closed = t.app.close();
    assert.match(await idle.reply(), /^421 4\.3\.2 The service is shutting down or not ready\. Please retry\.$/);
    assert.match(await midTransaction.reply(), /^421 4\.3\.2 /);
    sending.write('second half\r\n.\r\n');
    const id = queuedId(await sending.reply());
    assert.match(await sending.reply(), /^421 4\.3\.2 /);
    await closed;

    const { rows } = await t.db.pool.query('SELECT subject FROM emails WHERE id = $1', [id]);
    assert.deepEqual(rows, [{ subject: 'In flight' }]);
    const refused = await new Promise<string>((resolve) => {
      const s = net.connect(listener(t, 'starttls').port, '127.0.0.1');
      s.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
      s.once('connect', () => {
        s.destroy();
        resolve('connected');
      });
    });
    assert.equal(refused, 'ECONNREFUSED');
    for (const c of [idle, midTransaction, sending]) c.close();
  } finally {
    await t.close();
  }
});
