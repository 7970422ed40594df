import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { listener, queuedId, RawSmtp, SMTP_TEST_LISTENERS, transport } from '../helpers/smtp-submit.js';
import { sleep } from '../../src/lib/time.js';

describe('SMTP submission under malformed and hostile input', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ roles: ['api', 'smtp'], smtpListen: SMTP_TEST_LISTENERS, deliveryMode: 'capture' });
    const { data } = await t.resend.domains.create({ name: 'example.com' });
    await t.resend.domains.verify(data!.id);
  });
  after(async () => {
    await t.close();
  });

  const emailCount = async () => (await t.db.pool.query('SELECT count(*)::int AS n FROM emails')).rows[0].n as number;
  const rawOf = async (id: string) =>
    (await t.db.pool.query('SELECT raw, subject, tags, to_addrs, bcc_addrs FROM emails WHERE id = $1', [id])).rows[0];

  /** An authenticated session with one recipient, ready for DATA. */
  async function ready(opts: { mailParams?: string; rcpt?: string } = {}): Promise<RawSmtp> {
    const c = await RawSmtp.connect(listener(t, 'tls'), { tls: true });
    await c.reply();
    await c.cmd('EHLO client.test');
    assert.match(await c.login(t.key), /^235 /);
    assert.match(await c.cmd(`MAIL FROM:<hello@example.com>${opts.mailParams ?? ''}`), /^250 /);
    assert.match(await c.cmd(`RCPT TO:<${opts.rcpt ?? 'a@dest.test'}>`), /^250 /);
    assert.match(await c.cmd('DATA'), /^354 /);
    return c;
  }

  /** The server still takes a normal message after whatever the test did. */
  async function stillServes() {
    const tr = transport(t, 'starttls');
    try {
      assert.ok(
        queuedId(
          (await tr.sendMail({ from: 'hello@example.com', to: 'ok@dest.test', subject: 'ok', text: 'ok' })).response,
        ),
      );
    } finally {
      tr.close();
    }
  }

  test('bare LF line ends are accepted and stored as CRLF; a bare-LF dot does not end DATA (no smuggling)', async () => {
    const c = await ready();
    try {
      c.write(
        'From: hello@example.com\nTo: a@dest.test\nSubject: LF\n\nline one\n.\nMAIL FROM:<hello@example.com>\nline three\r\n.\r\n',
      );
      const id = queuedId(await c.reply());
      assert.match(await c.cmd('NOOP'), /^250 /, 'nothing was taken for a command');
      const row = await rawOf(id);
      const raw = row.raw.toString();
      assert.ok(
        raw.includes('Subject: LF\r\n\r\nline one\r\n.\r\nMAIL FROM:<hello@example.com>\r\nline three\r\n'),
        raw,
      );
      assert.ok(!/[^\r]\n/.test(raw));
    } finally {
      c.close();
    }
  });

  test('pipelined commands are all answered, in order', async () => {
    const c = await RawSmtp.connect(listener(t, 'tls'), { tls: true });
    try {
      await c.reply();
      c.write('EHLO client.test\r\n');
      assert.match(await c.reply(), /^250-.*\r?\n(250-.*\r?\n)*250[- ]PIPELINING/m);
      assert.match(await c.login(t.key), /^235 /);
      c.write('MAIL FROM:<hello@example.com>\r\nRCPT TO:<a@dest.test>\r\nRCPT TO:<b@dest.test>\r\nDATA\r\n');
      for (const want of [/^250 2\.1\.0 /, /^250 2\.1\.5 /, /^250 2\.1\.5 /, /^354 /])
        assert.match(await c.reply(), want);
      c.write('From: hello@example.com\r\nTo: a@dest.test\r\n\r\npipelined\r\n.\r\nRSET\r\nNOOP\r\n');
      assert.ok(queuedId(await c.reply()));
      assert.match(await c.reply(), /^250 /);
      assert.match(await c.reply(), /^250 /);
    } finally {
      c.close();
    }
  });

  test('1,000-byte and much longer lines, long folded headers and NUL bytes in the body are accepted', async () => {
    const c = await ready();
    try {
      const long = 'z'.repeat(1000);
      const folded = Array.from({ length: 2000 }, (_, i) => `part${i}`).join('\r\n ');
      c.write(
        `From: hello@example.com\r\nTo: a@dest.test\r\nSubject: ${long}\r\nX-Folded: ${folded}\r\n\r\n${long}\r\n${'w'.repeat(100_000)}\r\nnul:\0\0:end\r\n.\r\n`,
      );
      const id = queuedId(await c.reply());
      const row = await rawOf(id);
      assert.equal(row.subject, long);
      assert.ok(row.raw.includes(Buffer.from('nul:\0\0:end')));
    } finally {
      c.close();
    }
  });

  test('NUL in a header or a broken header line is 550 5.6.0, and the session goes on', async () => {
    const c = await ready();
    try {
      c.write('From: hello@example.com\r\nX-Bad: a\0b\r\n\r\nx\r\n.\r\n');
      assert.match(await c.reply(), /^550 5\.6\.0 The message headers contain NUL bytes\./);
      assert.match(await c.cmd('MAIL FROM:<hello@example.com>'), /^250 /);
      assert.match(await c.cmd('RCPT TO:<a@dest.test>'), /^250 /);
      assert.match(await c.cmd('DATA'), /^354 /);
      c.write('From: hello@example.com\r\nX-Mailroom-Tags: a=b\rc=d\r\n\r\nx\r\n.\r\n');
      assert.match(await c.reply(), /^550 5\.6\.0 Malformed header line/);
    } finally {
      c.close();
    }
  });

  test('a line break in X-Mailroom-Tags cannot add a recipient or a header; bad tag values are 550 5.6.0', async () => {
    const c = await ready({ rcpt: 'only@dest.test' });
    try {
      c.write(
        'From: hello@example.com\r\nTo: only@dest.test\r\nX-Mailroom-Tags: a=b\r\nBcc: injected@dest.test\r\nX-Mailroom-Tags: c=d\rBcc: cr-injected@dest.test\r\nSubject: t\r\n\r\nx\r\n.\r\n',
      );
      const row = await rawOf(queuedId(await c.reply()));
      assert.deepEqual(
        [row.to_addrs, row.bcc_addrs, row.tags],
        [
          ['only@dest.test'],
          [],
          [
            { name: 'a', value: 'b' },
            { name: 'c', value: 'd' },
          ],
        ],
      );
      assert.ok(
        !row.raw.toString().includes('injected'),
        'a Bcc smuggled in by CRLF or a bare CR is dropped like any Bcc',
      );
      assert.match(await c.cmd('MAIL FROM:<hello@example.com>'), /^250 /);
      assert.match(await c.cmd('RCPT TO:<a@dest.test>'), /^250 /);
      assert.match(await c.cmd('DATA'), /^354 /);
      c.write(`From: hello@example.com\r\nX-Mailroom-Tags: a=${'v'.repeat(300)}\r\n\r\nx\r\n.\r\n`);
      assert.match(await c.reply(), /^550 5\.6\.0 Invalid `tags` field: tags\[0\]\.value must be 1-256/);
    } finally {
      c.close();
    }
  });

  test('8-bit UTF-8 headers with SMTPUTF8 and BODY=8BITMIME are accepted and recorded decoded', async () => {
    const c = await ready({ mailParams: ' SMTPUTF8 BODY=8BITMIME' });
    try {
      c.write(
        Buffer.from('From: Jürgen <hello@example.com>\r\nTo: a@dest.test\r\nSubject: Grüße ✓\r\n\r\nKörper\r\n.\r\n'),
      );
      const id = queuedId(await c.reply());
      const got = (await t.api('GET', `/emails/${id}`)).body;
      assert.deepEqual([got.subject, got.from, got.text], ['Grüße ✓', 'Jürgen <hello@example.com>', 'Körper']);
    } finally {
      c.close();
    }
  });

  test('a client that disconnects mid-DATA or never ends it leaves nothing stored', async () => {
    const before = await emailCount();
    const c1 = await ready();
    c1.write('From: hello@example.com\r\nTo: a@dest.test\r\nResend-Idempotency-Key: half\r\n\r\nhalf a mess');
    await sleep(50);
    c1.close();
    const c2 = await ready();
    c2.write('From: hello@example.com\r\nTo: a@dest.test\r\n\r\nno end\r\n..\r\n');
    await sleep(50);
    c2.socket.end();
    await sleep(200);
    assert.equal(await emailCount(), before);
    const { rows } = await t.db.pool.query("SELECT count(*)::int AS n FROM idempotency_keys WHERE key = 'half'");
    assert.equal(rows[0].n, 0);
    await stillServes();
  });

  test('floods of commands are answered or cut off with 421, never left hanging', async () => {
    const anon = await RawSmtp.connect(listener(t, 'starttls'));
    await anon.reply();
    anon.write('NOOP\r\n'.repeat(500));
    let last = '';
    for (let r = await anon.reply(); r; r = await anon.reply()) last = r;
    assert.match(last, /^421 .*too many unauthenticated commands/);

    const junk = await RawSmtp.connect(listener(t, 'starttls'));
    await junk.reply();
    junk.write('XYZZY\r\n'.repeat(50));
    for (let r = await junk.reply(); r; r = await junk.reply()) last = r;
    assert.match(last, /^421 .*too many unrecognized commands/);

    const huge = await RawSmtp.connect(listener(t, 'starttls'));
    await huge.reply();
    huge.write(`EHLO ${'h'.repeat(100_000)}\r\n`);
    assert.match(await huge.reply(), /^421 .*line too long/i);
    huge.close();

    const c = await RawSmtp.connect(listener(t, 'tls'), { tls: true });
    await c.reply();
    await c.cmd('EHLO client.test');
    await c.login(t.key);
    c.write('NOOP\r\n'.repeat(5000));
    for (let i = 0; i < 5000; i++) assert.match(await c.reply(), /^250 /);
    c.close();

    const plainOnTls = net.connect(listener(t, 'tls').port, '127.0.0.1');
    plainOnTls.on('error', () => undefined);
    plainOnTls.write('EHLO not-tls\r\n');
    await new Promise((resolve) => plainOnTls.once('close', resolve));
    await stillServes();
  });
});
