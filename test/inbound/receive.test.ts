import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { Webhook } from 'standardwebhooks';
import { startInboundWorld, smtpTalk, type InboundWorld } from '../helpers/inbound-world.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { waitForLastEvent } from '../helpers/mail-world.js';
import { sleep } from '../../src/lib/time.js';
import { registry } from '../../src/lib/metrics.js';
import { closeAll } from '../helpers/close-all.js';

// A 1x1 PNG and a small PDF-like attachment with every byte value in it.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
const PDF = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(300_000), Buffer.from('\n%%EOF\n')]);

const compose = (opts: Record<string, unknown>) => new MailComposer(opts as never).compile().build();
const count = async (w: InboundWorld, table: string) =>
  Number((await w.t.db.pool.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);
const spoolFiles = (w: InboundWorld) => {
  const dir = path.join(w.t.dataDir, 'inbound-spool');
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
};

describe('inbound mail: the MX listener receives, stores and reports mail for receiving domains', () => {
  let w: InboundWorld;
  let rcv: Receiver;
  let secret: string;
  before(async () => {
    w = await startInboundWorld();
    rcv = await startReceiver();
    const { data, error } = await w.t.resend.webhooks.create({ endpoint: rcv.url, events: ['email.received'] });
    assert.equal(error, null);
    secret = data!.signing_secret;
  });
  after(() =>
    closeAll(
      () => rcv.close(),
      () => w.close(),
    ),
  );

  test('a message with text, HTML, an inline image and a PDF is stored, signed webhook sent, and served back byte for byte', async () => {
    const raw = await compose({
      from: 'Sender Person <someone@sender.test>',
      to: 'support@inbound.test',
      cc: 'sales@inbound.test',
      subject: 'Order 42 — question',
      messageId: '<order-42@sender.test>',
      text: 'Hello, see the attached invoice.',
      html: '<p>Hello, logo: <img src="cid:logo@sender.test"></p>',
      attachments: [
        { filename: 'logo.png', content: PNG, contentType: 'image/png', cid: 'logo@sender.test' },
        { filename: 'invoice.pdf', content: PDF, contentType: 'application/pdf' },
      ],
    });
    const signed = await w.sign(raw);
    const { response } = await w.deliver(
      signed,
      { from: 'someone@sender.test', to: ['support@inbound.test', 'sales@inbound.test'] },
      { sign: false },
    );
    const id = /queued as ([0-9a-f-]{36})/.exec(response)?.[1];
    assert.ok(id, response);
    assert.match(response, /^250 2\.0\.0/);

    // The webhook: signed, the 9.3 shape of email.received.
    const [hook] = await rcv.waitFor(1);
    const payload = new Webhook(secret).verify(hook.body, {
      'webhook-id': hook.headers['webhook-id'] as string,
      'webhook-timestamp': hook.headers['webhook-timestamp'] as string,
      'webhook-signature': hook.headers['webhook-signature'] as string,
    }) as { type: string; data: Record<string, any> };
    assert.equal(payload.type, 'email.received');
    assert.equal(payload.data.email_id, id);
    assert.equal(payload.data.from, 'someone@sender.test');
    assert.deepEqual(payload.data.to, ['support@inbound.test']);
    assert.deepEqual(payload.data.cc, ['sales@inbound.test']);
    assert.deepEqual(payload.data.received_for, ['support@inbound.test', 'sales@inbound.test']);
    assert.equal(payload.data.message_id, '<order-42@sender.test>');
    assert.equal(payload.data.subject, 'Order 42 — question');
    assert.deepEqual(
      payload.data.attachments.map((a: any) => [a.filename, a.content_type, a.content_disposition, a.content_id]),
      [
        ['logo.png', 'image/png', 'inline', 'logo@sender.test'],
        ['invoice.pdf', 'application/pdf', 'attachment', null],
      ],
    );
    assert.equal(payload.data.html, undefined, 'no body in the webhook');

    // The API, through the SDK.
    const got = (await w.t.resend.emails.receiving.get(id)).data as any;
    assert.equal(got.object, 'email');
    assert.equal(got.from, 'someone@sender.test');
    assert.equal(got.headers.from, 'Sender Person <someone@sender.test>');
    assert.equal(got.headers['message-id'], '<order-42@sender.test>');
    assert.deepEqual(got.authentication, { spf: 'pass', dkim: 'pass', dmarc: 'pass', arc: 'gray' });
    assert.equal(got.text.trim(), 'Hello, see the attached invoice.');
    assert.equal(got.html_format, 'data_uri');
    assert.ok(got.html.includes(`data:image/png;base64,${PNG.toString('base64')}`), got.html);
    const cidForm = (await w.t.resend.emails.receiving.get(id, { html_format: 'cid' })).data as any;
    assert.ok(cidForm.html.includes('cid:logo@sender.test'));

    const rawRes = await fetch(got.raw.download_url);
    assert.equal(rawRes.status, 200);
    assert.equal(rawRes.headers.get('x-content-type-options'), 'nosniff');
    assert.ok(Buffer.from(await rawRes.arrayBuffer()).equals(signed), 'the raw message is the one sent');
    assert.ok(Date.parse(got.raw.expires_at) > Date.now());
    const tampered = got.raw.download_url.replace(
      /signature=./,
      (m: string) => m.slice(0, -1) + (m.endsWith('A') ? 'B' : 'A'),
    );
    assert.equal((await fetch(tampered)).status, 404);

    const list = (await w.t.resend.emails.receiving.attachments.list({ emailId: id })).data as any;
    assert.equal(list.data.length, 2);
    for (const [a, bytes] of [
      [list.data[0], PNG],
      [list.data[1], PDF],
    ] as const) {
      assert.equal(a.size, bytes.length);
      const one = (await w.t.resend.emails.receiving.attachments.get({ emailId: id, id: a.id })).data as any;
      const res = await fetch(one.download_url);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), a.content_type);
      assert.equal(
        res.headers.get('x-content-type-options'),
        'nosniff',
        "a sender's HTML or SVG is never sniffed or rendered on our origin",
      );
      assert.equal(res.headers.get('content-security-policy'), "default-src 'none'; sandbox");
      assert.match(res.headers.get('content-disposition')!, /^attachment; /);
      assert.ok(Buffer.from(await res.arrayBuffer()).equals(bytes), `${a.filename} identical byte for byte`);
    }
    const listed = (await w.t.resend.emails.receiving.list()).data as any;
    assert.ok(listed.data.some((e: any) => e.id === id && e.attachments.length === 2));
  });

  test('the SDK forwards a received email (passthrough): it downloads the signed raw link and sends through the send path', async () => {
    const raw = await compose({
      from: 'someone@sender.test',
      to: 'fwd@inbound.test',
      subject: 'Please forward',
      text: 'body',
    });
    const { response } = await w.deliver(raw, { from: 'someone@sender.test', to: ['fwd@inbound.test'] });
    const id = /queued as ([0-9a-f-]{36})/.exec(response)![1];
    const { data, error } = await w.t.resend.emails.receiving.forward({
      emailId: id,
      to: 'bob@dest.test',
      from: 'team@example.com',
    });
    assert.equal(error, null);
    await waitForLastEvent(w.t, data!.id, ['delivered']);
    const msg = w.mx.messages.find((m) => m.rcptTo.includes('bob@dest.test'))!;
    // Passthrough re-sends the original's parts (the SDK parses the raw download with postal-mime).
    assert.match(msg.raw.toString(), /^Subject: Please forward\r$/m);
    assert.match(msg.raw.toString(), /\r\nbody\r\n/);
  });

  test('an unsigned message from a host SPF does not allow is stored with fail verdicts', async () => {
    w.dns.set('sender.test', 'TXT', ['v=spf1 ip4:192.0.2.1 -all']);
    try {
      const raw = await compose({
        from: 'someone@sender.test',
        to: 'support@inbound.test',
        subject: 'spoofed',
        text: 'x',
      });
      const { response } = await w.deliver(
        raw,
        { from: 'someone@sender.test', to: ['support@inbound.test'] },
        { sign: false },
      );
      const id = /queued as ([0-9a-f-]{36})/.exec(response)![1];
      const got = (await w.t.resend.emails.receiving.get(id)).data as any;
      assert.equal(got.authentication.spf, 'fail');
      assert.equal(got.authentication.dkim, 'gray');
      assert.equal(got.authentication.dmarc, 'fail');
    } finally {
      w.dns.set('sender.test', 'TXT', ['v=spf1 ip4:127.0.0.1 -all']);
    }
  });

  test('relay attempts and domains that are not verified for receiving get 550 5.7.1 at RCPT', async () => {
    const { replies } = await smtpTalk(w.mxPort, [
      'EHLO client.test',
      'MAIL FROM:<a@sender.test>',
      'RCPT TO:<x@elsewhere.test>',
      'RCPT TO:<x@example.com>',
      'RCPT TO:<ok@inbound.test>',
      'QUIT',
    ]);
    assert.match(replies[3], /^550 5\.7\.1 /);
    assert.match(replies[4], /^550 5\.7\.1 /, 'a sending-only domain does not receive');
    assert.match(replies[5], /^250/);
    // The process's Prometheus counters saw them (GET /metrics renders this registry).
    const text = registry.render();
    const count = (re: RegExp) => Number(re.exec(text)?.[1] ?? 0);
    assert.ok(count(/^mailroom_mx_recipients_total\{route="refused"\} (\d+)$/m) >= 2);
    assert.ok(count(/^mailroom_mx_messages_total\{result="accepted",code="250"\} (\d+)$/m) >= 1);
  });

  test('a message with a malformed header section is refused with 550 5.6.0 and nothing is stored', async () => {
    const before = await count(w, 'received_emails');
    const { replies } = await smtpTalk(w.mxPort, [
      'EHLO client.test',
      'MAIL FROM:<a@sender.test>',
      'RCPT TO:<ok@inbound.test>',
      'DATA',
      Buffer.from('this is not a header line\r\nFrom: a@sender.test\r\n\r\nbody\r\n'),
      '.',
      'QUIT',
    ]);
    assert.match(replies[5], /^550 5\.6\.0 /);
    const noFrom = await smtpTalk(w.mxPort, [
      'EHLO client.test',
      'MAIL FROM:<a@sender.test>',
      'RCPT TO:<ok@inbound.test>',
      'DATA',
      Buffer.from('Subject: hi\r\n\r\nbody\r\n'),
      '.',
      'QUIT',
    ]);
    assert.match(noFrom.replies[5], /^550 5\.6\.0 .*From/);
    assert.equal(await count(w, 'received_emails'), before);
  });

  test('a 50 MB message over the 40 MB limit is refused with 552 5.3.4, nothing stored, no spool file left', async () => {
    const before = await count(w, 'received_emails');
    const line = `${'x'.repeat(998)}\r\n`;
    const body = Buffer.from(line.repeat(Math.ceil((50 * 1024 * 1024) / line.length)));
    const { replies } = await smtpTalk(w.mxPort, [
      'EHLO client.test',
      'MAIL FROM:<a@sender.test>',
      'RCPT TO:<big@inbound.test>',
      'DATA',
      Buffer.from('From: a@sender.test\r\nSubject: big\r\n\r\n'),
      body,
      '.',
      'QUIT',
    ]);
    assert.match(replies[5], /^552 5\.3\.4 /);
    assert.equal(await count(w, 'received_emails'), before);
    assert.deepEqual(spoolFiles(w), []);
  });

  test('a client that disconnects in the middle of DATA leaves nothing stored and no spool file', async () => {
    const before = await count(w, 'received_emails');
    const { socket, replies } = await smtpTalk(
      w.mxPort,
      ['EHLO client.test', 'MAIL FROM:<a@sender.test>', 'RCPT TO:<cut@inbound.test>', 'DATA'],
      { keepOpen: true },
    );
    assert.match(replies[4], /^354/);
    socket.write(`From: a@sender.test\r\nSubject: cut\r\n\r\n${'y'.repeat(76)}\r\n`.repeat(30_000)); // ~2.4 MB: spilled to a file
    for (let i = 0; i < 100 && spoolFiles(w).length === 0; i++) await sleep(20);
    assert.equal(spoolFiles(w).length, 1, 'the message was being spooled to a file');
    socket.destroy();
    for (let i = 0; i < 100 && spoolFiles(w).length > 0; i++) await sleep(20);
    assert.deepEqual(spoolFiles(w), []);
    assert.equal(await count(w, 'received_emails'), before);
  });

  test('a message with a 6 MB attachment is spooled to disk, stored in chunks and downloaded identical; retention later drops the bytes', async () => {
    const big = randomBytes(6 * 1024 * 1024);
    const raw = await compose({
      from: 'someone@sender.test',
      to: 'big@inbound.test',
      subject: 'big one',
      text: 'see attached',
      attachments: [{ filename: 'data.bin', content: big }],
    });
    const { response } = await w.deliver(raw, { from: 'someone@sender.test', to: ['big@inbound.test'] });
    const id = /queued as ([0-9a-f-]{36})/.exec(response)![1];
    const [a] = ((await w.t.resend.emails.receiving.attachments.list({ emailId: id })).data as any).data;
    assert.equal(a.size, big.length);
    const res = await fetch(a.download_url);
    assert.ok(Buffer.from(await res.arrayBuffer()).equals(big));
    assert.deepEqual(spoolFiles(w), []);

    // Retention (MAILROOM_RETENTION_DAYS): the raw message and attachment contents go, the record stays.
    const { receivedEmailsPurge } = await import('../../src/store/received-emails.js');
    await w.t.db.pool.query("UPDATE received_emails SET created_at = now() - interval '31 days' WHERE id = $1", [id]);
    assert.ok((await receivedEmailsPurge(w.t.db.pool, 30)) >= 1);
    const got = (await w.t.resend.emails.receiving.get(id)).data as any;
    assert.equal(got.raw, null);
    assert.equal(got.subject, 'big one');
    assert.equal((await fetch(a.download_url)).status, 404);
    const { rows } = await w.t.db.pool.query(
      'SELECT count(*)::int AS n FROM blob_chunks WHERE blob_id IN (SELECT blob_id FROM received_attachments WHERE email_id = $1)',
      [id],
    );
    assert.equal(rows[0].n, 0);
  });

  test('STARTTLS is offered and used; AUTH is not offered on the MX', async () => {
    const { replies } = await smtpTalk(w.mxPort, ['EHLO client.test', 'QUIT']);
    assert.match(replies[1], /STARTTLS/);
    assert.doesNotMatch(replies[1], /AUTH/);
    assert.match(replies[1], /SIZE 41943040/);
    const raw = await compose({ from: 'someone@sender.test', to: 'tls@inbound.test', subject: 'over tls', text: 'x' });
    const { response } = await w.deliver(raw, { from: 'someone@sender.test', to: ['tls@inbound.test'] });
    const id = /queued as ([0-9a-f-]{36})/.exec(response)![1];
    const { rows } = await w.t.db.pool.query('SELECT tls FROM received_emails WHERE id = $1', [id]);
    assert.equal(rows[0].tls, true);
  });
});

describe('inbound MX limits per client address', () => {
  let w: InboundWorld;
  before(async () => {
    w = await startInboundWorld({ mxMaxConnectionsPerIp: 2, mxRateLimit: 3 });
  });
  after(async () => {
    await w.close();
  });

  test('connections beyond the per-address limit get 421 4.7.0', async () => {
    const a = await smtpTalk(w.mxPort, [], { keepOpen: true });
    const b = await smtpTalk(w.mxPort, [], { keepOpen: true });
    const c = await smtpTalk(w.mxPort, [], { keepOpen: true });
    assert.match(a.replies[0], /^220/);
    assert.match(b.replies[0], /^220/);
    assert.match(c.replies[0], /^421 4\.7\.0 /);
    for (const x of [a, b, c]) x.socket.destroy();
  });

  test('messages beyond the per-address rate get 451 4.7.1 at MAIL FROM', async () => {
    await sleep(100); // the previous test's sockets are closed
    const lines = ['EHLO client.test'];
    for (let i = 0; i < 4; i++) lines.push('MAIL FROM:<a@sender.test>', 'RSET');
    const { replies } = await smtpTalk(w.mxPort, [...lines, 'QUIT']);
    const mail = replies.slice(2, 10).filter((_, i) => i % 2 === 0); // the MAIL replies, between RSETs
    assert.deepEqual(
      mail.map((r) => r.slice(0, 9)),
      ['250 2.1.0', '250 2.1.0', '250 2.1.0', '451 4.7.1'],
    );
  });
});
