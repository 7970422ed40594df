import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { simpleParser } from 'mailparser';
import { receiverAuth, startMailWorld, waitForLastEvent, type MailWorld } from '../helpers/mail-world.js';
import { queuedId, SMTP_TEST_LISTENERS, transport } from '../helpers/smtp-submit.js';
import { sleep } from '../../src/lib/time.js';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

describe('SMTP submission end to end (nodemailer client, fake DNS, recording MX)', () => {
  let w: MailWorld;
  before(async () => {
    w = await startMailWorld({ roles: ['api', 'worker', 'smtp'], smtpListen: SMTP_TEST_LISTENERS });
  });
  after(async () => {
    await w.close();
  });

  const delivered = async (id: string) => {
    await waitForLastEvent(w.t, id, ['delivered']);
    const msg = w.mx.messages.find(
      (m) => m.raw.toString().includes(id.replace(/-/g, '')) || m.mailFrom.includes(id.replace(/-/g, '')),
    );
    assert.ok(msg, 'the recording MX got the message');
    return msg;
  };

  for (const security of ['starttls', 'tls'] as const) {
    test(`a message sent over ${security === 'tls' ? 'implicit TLS' : 'STARTTLS'} is answered 250 with its id only once committed, and arrives DKIM-signed`, async () => {
      const tr = transport(w.t, security);
      const info = await tr.sendMail({
        from: 'Acme <hello@example.com>',
        to: 'alice@dest.test',
        subject: `Hello over ${security}`,
        text: 'Hi Alice',
        html: '<p>Hi <b>Alice</b></p>',
        headers: { 'X-Entity-Ref-ID': '42', 'X-Mailroom-Tags': 'category=welcome, plan=pro' },
      });
      tr.close();
      const id = queuedId(info.response);
      const { rows } = await w.t.db.pool.query(
        'SELECT source, api_key_id IS NOT NULL AS keyed FROM emails WHERE id = $1',
        [id],
      );
      assert.deepEqual(rows, [{ source: 'smtp', keyed: true }], 'committed before the 250');
      const msg = await delivered(id);
      assert.deepEqual(msg.rcptTo, ['alice@dest.test']);
      assert.equal(msg.mailFrom, `bounces+${id.replace(/-/g, '')}@send.example.com`);
      const raw = msg.raw.toString();
      assert.match(raw, /^DKIM-Signature: .*d=example\.com/m);
      assert.match(raw, /^X-Entity-Ref-ID: 42\r$/m);
      assert.ok(!/X-Mailroom-Tags/i.test(raw), 'the tags header is ours, not sent');
      assert.deepEqual(await receiverAuth(w.dns, msg), { dkim: 'pass', spf: 'pass', dmarc: 'pass' });

      const got = (await w.t.api('GET', `/emails/${id}`)).body;
      assert.equal(got.from, 'Acme <hello@example.com>');
      assert.deepEqual(got.to, ['alice@dest.test']);
      assert.equal(got.subject, `Hello over ${security}`);
      assert.equal(got.text, 'Hi Alice');
      assert.equal(got.html, '<p>Hi <b>Alice</b></p>');
      assert.deepEqual(got.tags, [
        { name: 'category', value: 'welcome' },
        { name: 'plan', value: 'pro' },
      ]);
      const events = (await w.t.api('GET', `/emails/${id}/events`)).body.data;
      assert.deepEqual(
        events.map((e: { type: string }) => e.type),
        ['email.sent', 'email.delivered'],
      );
      assert.deepEqual(events[0].data.tags, { category: 'welcome', plan: 'pro' });
      assert.deepEqual(events[0].data.headers, [{ name: 'X-Entity-Ref-ID', value: '42' }]);
    });
  }

  test('Bcc is honoured: envelope recipients receive it, no Bcc header travels, and the record lists them', async () => {
    const before = w.mx.messages.length;
    const tr = transport(w.t, 'tls');
    const info = await tr.sendMail({
      from: 'hello@example.com',
      to: 'a1@dest.test',
      cc: 'c1@dest.test',
      bcc: ['b1@dest.test', 'b2@dest.test'],
      subject: 'Bcc',
      text: 'x',
    });
    tr.close();
    const id = queuedId(info.response);
    await waitForLastEvent(w.t, id, ['delivered']);
    const sent = w.mx.messages.slice(before);
    assert.equal(sent.length, 1);
    assert.deepEqual([...sent[0].rcptTo].sort(), ['a1@dest.test', 'b1@dest.test', 'b2@dest.test', 'c1@dest.test']);
    assert.ok(!/^Bcc:/im.test(sent[0].raw.toString()));
    const got = (await w.t.api('GET', `/emails/${id}`)).body;
    assert.deepEqual([got.to, got.cc, got.bcc], [['a1@dest.test'], ['c1@dest.test'], ['b1@dest.test', 'b2@dest.test']]);
  });

  test('a message without Message-ID and Date gets ours on the sending domain; Return-Path and DKIM-Signature from the client are dropped', async () => {
    const tr = transport(w.t, 'starttls');
    const raw = [
      'From: hello@example.com',
      'To: bare@dest.test',
      'Subject: Bare',
      'Return-Path: <forged@evil.test>',
      'DKIM-Signature: v=1; d=evil.test; b=zzz',
      '',
      'Plain body',
      '',
    ].join('\r\n');
    const info = await tr.sendMail({ envelope: { from: 'hello@example.com', to: ['bare@dest.test'] }, raw });
    tr.close();
    const id = queuedId(info.response);
    const msg = await delivered(id);
    const got = (await w.t.api('GET', `/emails/${id}`)).body;
    assert.match(got.message_id, /^<[0-9a-f-]{36}@example\.com>$/);
    const text = msg.raw.toString();
    assert.ok(text.includes(`Message-ID: ${got.message_id}\r\n`));
    assert.match(text, /^Date: \w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} \+0000\r$/m);
    assert.ok(!text.includes('evil.test'));
    assert.deepEqual(await receiverAuth(w.dns, msg), { dkim: 'pass', spf: 'pass', dmarc: 'pass' });
  });

  test('a message with attachments and an inline image arrives intact', async () => {
    const pdf = Buffer.from(Array.from({ length: 70_000 }, (_, i) => i % 256));
    const tr = transport(w.t, 'tls');
    const info = await tr.sendMail({
      from: 'hello@example.com',
      to: 'files@dest.test',
      subject: 'Files',
      text: 'See attached',
      html: '<p>Logo: <img src="cid:logo@acme"></p>',
      attachments: [
        { filename: 'report.pdf', content: pdf, contentType: 'application/pdf' },
        { filename: 'logo.png', content: PNG, contentType: 'image/png', cid: 'logo@acme' },
        { filename: 'notes.txt', content: 'ünïcödé notes\n' },
      ],
    });
    tr.close();
    const msg = await delivered(queuedId(info.response));
    assert.deepEqual(await receiverAuth(w.dns, msg).then((r) => r.dkim), 'pass');
    const parsed = await simpleParser(msg.raw);
    const byName = new Map(parsed.attachments.map((a) => [a.filename, a]));
    assert.ok(byName.get('report.pdf')!.content.equals(pdf));
    assert.ok(byName.get('logo.png')!.content.equals(PNG));
    assert.equal(byName.get('logo.png')!.contentId, '<logo@acme>');
    assert.equal(byName.get('notes.txt')!.content.toString(), 'ünïcödé notes\n');
    assert.equal(parsed.text?.trim(), 'See attached');
  });

  test('Resend-Idempotency-Key: the same message again gets the same id and is delivered once; another message with the key is refused', async () => {
    const send = async (text: string) => {
      const tr = transport(w.t, 'starttls');
      try {
        return await tr.sendMail({
          from: 'hello@example.com',
          to: 'once@dest.test',
          subject: 'Once',
          text,
          headers: { 'Resend-Idempotency-Key': 'order-1234' },
        });
      } finally {
        tr.close();
      }
    };
    const first = queuedId((await send('Your order')).response);
    await waitForLastEvent(w.t, first, ['delivered']);
    const second = queuedId((await send('Your order')).response);
    assert.equal(second, first);
    await assert.rejects(
      send('Another body'),
      (err: { responseCode?: number; response?: string }) =>
        err.responseCode === 550 && /^550 5\.7\.0 This idempotency key has been used/.test(err.response ?? ''),
    );
    await sleep(300);
    assert.equal(w.mx.messages.filter((m) => m.rcptTo.includes('once@dest.test')).length, 1);
    const { rows } = await w.t.db.pool.query(
      "SELECT count(*)::int AS n FROM emails WHERE 'once@dest.test' = ANY(to_addrs)",
    );
    assert.equal(rows[0].n, 1);
  });

  test('SMTP sends are in GET /emails and in the request log as endpoint smtp', async () => {
    const tr = transport(w.t, 'tls');
    const info = await tr.sendMail({
      from: 'hello@example.com',
      to: 'listed@dest.test',
      subject: 'Listed',
      text: 'x',
      headers: { 'X-Mailer': 'LegacyApp 1.0' },
    });
    tr.close();
    const id = queuedId(info.response);
    const list = (await w.t.api('GET', '/emails')).body.data;
    assert.ok(list.some((e: { id: string }) => e.id === id));
    type Log = {
      id: string;
      endpoint: string;
      method: string;
      response_status: number;
      user_agent: string | null;
      request_body: Record<string, unknown>;
      response_body: { id?: string };
    };
    let log: Log | undefined;
    for (let i = 0; i < 50 && !log; i++) {
      for (const l of (await w.t.api('GET', '/logs?endpoint=smtp')).body.data as Log[]) {
        const full = (await w.t.api('GET', `/logs/${l.id}`)).body as Log;
        if (full.response_body?.id === id) log = full;
      }
      if (!log) await sleep(100);
    }
    assert.ok(log, 'the request log has the SMTP send');
    assert.deepEqual(
      [log.endpoint, log.method, log.response_status, log.user_agent],
      ['smtp', 'POST', 200, 'LegacyApp 1.0'],
    );
    assert.equal(log.request_body.subject, 'Listed');
    assert.deepEqual(log.request_body.to, ['listed@dest.test']);
  });
});
