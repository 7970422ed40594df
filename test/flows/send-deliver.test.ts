import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  nudgeDeliveries,
  receiverAuth,
  startMailWorld,
  waitForLastEvent,
  type MailWorld,
} from '../helpers/mail-world.js';

describe('sending and delivery end to end (fake DNS, recording MX, mx mode)', () => {
  let w: MailWorld;
  before(async () => {
    w = await startMailWorld();
  });
  after(async () => {
    await w.close();
  });

  test('an email sent with the SDK arrives signed, over STARTTLS, and DKIM, SPF and DMARC pass at the receiver', async () => {
    const { data, error } = await w.t.resend.emails.send({
      from: 'Acme <hello@example.com>',
      to: ['alice@dest.test'],
      subject: 'Hello',
      html: '<p>Hi <b>Alice</b></p>',
      tags: [{ name: 'category', value: 'welcome' }],
      headers: { 'X-Entity-Ref-ID': '42' },
    });
    assert.equal(error, null);
    await waitForLastEvent(w.t, data!.id, ['delivered']);
    const msg = w.mx.messages.find(
      (m) => m.raw.toString().includes(data!.id.replace(/-/g, '')) || m.rcptTo.includes('alice@dest.test'),
    )!;
    assert.ok(msg);
    assert.deepEqual(msg.rcptTo, ['alice@dest.test']);
    assert.equal(msg.mailFrom, `bounces+${data!.id.replace(/-/g, '')}@send.example.com`);
    assert.equal(msg.secure, true);
    assert.equal(msg.heloName, 'out.mailroom.test');
    const raw = msg.raw.toString();
    assert.match(raw, /^DKIM-Signature: .*d=example\.com/m);
    assert.match(raw, /^X-Entity-Ref-ID: 42/m);
    assert.match(raw, /^Message-ID: <[^>]+@example\.com>/m);
    assert.deepEqual(await receiverAuth(w.dns, msg), { dkim: 'pass', spf: 'pass', dmarc: 'pass' });

    const events = (await w.t.api('GET', `/emails/${data!.id}/events`)).body.data;
    assert.deepEqual(
      events.map((e: { type: string }) => e.type),
      ['email.sent', 'email.delivered'],
    );
    const delivered = events[1];
    assert.equal(delivered.recipient, 'alice@dest.test');
    assert.match(delivered.detail.response, /^250/);
    assert.equal(delivered.detail.mx_host, 'mx1.dest.test');
    assert.equal(delivered.detail.tls, true);
    assert.deepEqual(delivered.data.tags, { category: 'welcome' });
    assert.deepEqual(delivered.data.to, ['alice@dest.test']);
    assert.match(delivered.data.created_at, /Z$/);

    const got = (await w.t.resend.emails.get(data!.id)).data!;
    assert.equal(got.last_event, 'delivered');
    assert.equal(got.from, 'Acme <hello@example.com>');
    assert.deepEqual(got.to, ['alice@dest.test']);
    assert.equal(got.html, '<p>Hi <b>Alice</b></p>');
    assert.equal(got.text, null);
  });

  test('a 4xx defers (one delivery_delayed), and the retry delivers', async () => {
    w.mx.onRcpt = () => ({ code: 451, message: '4.7.1 Greylisted, try again in 300 seconds' });
    const { data } = await w.t.resend.emails.send({
      from: 'hello@example.com',
      to: 'grey@dest.test',
      subject: 'Grey',
      text: 'x',
    });
    await waitForLastEvent(w.t, data!.id, ['delivery_delayed']);
    const { rows } = await w.t.db.pool.query(
      "SELECT run_at - now() AS wait FROM jobs WHERE kind = 'email.deliver' AND payload->>'email_id' = $1",
      [data!.id],
    );
    assert.ok(rows[0].wait.minutes >= 4, `honours the 300 s named by the server: ${JSON.stringify(rows[0].wait)}`);
    w.mx.onRcpt = () => undefined;
    await nudgeDeliveries(w.t);
    await waitForLastEvent(w.t, data!.id, ['delivered']);
    const types = (await w.t.api('GET', `/emails/${data!.id}/events`)).body.data.map((e: { type: string }) => e.type);
    assert.deepEqual(types, ['email.sent', 'email.delivery_delayed', 'email.delivered']);
  });

  test('a 5xx bounces Permanent with the subType from the rules, and the address is suppressed', async () => {
    w.mx.onRcpt = (a) =>
      a === 'ghost@dest.test'
        ? { code: 550, message: '5.1.1 <ghost@dest.test>: Recipient address rejected: User unknown' }
        : undefined;
    try {
      const { data } = await w.t.resend.emails.send({
        from: 'hello@example.com',
        to: ['ghost@dest.test', 'bob@dest.test'],
        subject: 'Hi',
        text: 'x',
      });
      await waitForLastEvent(w.t, data!.id, ['bounced', 'delivered']);
      const events = (await w.t.api('GET', `/emails/${data!.id}/events`)).body.data;
      const bounced = events.find((e: { type: string }) => e.type === 'email.bounced');
      assert.equal(bounced.recipient, 'ghost@dest.test');
      assert.equal(bounced.data.bounce.type, 'Permanent');
      assert.equal(bounced.data.bounce.subType, 'NoEmail');
      assert.match(bounced.data.bounce.diagnosticCode[0], /^smtp; 550 5\.1\.1/);
      assert.ok(
        events.some(
          (e: { type: string; recipient: string }) => e.type === 'email.delivered' && e.recipient === 'bob@dest.test',
        ),
      );
      const sup = (await w.t.resend.suppressions.get('ghost@dest.test')).data as unknown as {
        origin: string;
        source_id: string;
      };
      assert.equal(sup.origin, 'bounce');
      assert.equal(sup.source_id, data!.id);

      const again = await w.t.resend.emails.send({
        from: 'hello@example.com',
        to: 'ghost@dest.test',
        subject: 'Again',
        text: 'x',
      });
      await waitForLastEvent(w.t, again.data!.id, ['suppressed']);
      const ev = (await w.t.api('GET', `/emails/${again.data!.id}/events`)).body.data[1];
      assert.equal(ev.type, 'email.suppressed');
      assert.equal(ev.data.suppressed.type, 'OnAccountSuppressionList');
    } finally {
      w.mx.onRcpt = () => undefined;
    }
  });

  test('when the first MX refuses connections, the second MX gets the message', async () => {
    w.dns.set('fallback.test', 'MX', [
      { exchange: 'down.fallback.test', priority: 10 },
      { exchange: 'up.fallback.test', priority: 20 },
    ]);
    w.dns.set('down.fallback.test', 'A', ['127.0.0.2']);
    w.dns.set('up.fallback.test', 'A', ['127.0.0.1']);
    const { data } = await w.t.resend.emails.send({
      from: 'hello@example.com',
      to: 'carol@fallback.test',
      subject: 'Fallback',
      text: 'x',
    });
    await waitForLastEvent(w.t, data!.id, ['delivered']);
    const ev = (await w.t.api('GET', `/emails/${data!.id}/events`)).body.data[1];
    assert.equal(ev.detail.mx_host, 'up.fallback.test');
  });

  test('a null MX bounces at once, without retries', async () => {
    w.dns.set('nomail.test', 'MX', [{ exchange: '', priority: 0 }]);
    const { data } = await w.t.resend.emails.send({
      from: 'hello@example.com',
      to: 'x@nomail.test',
      subject: 'Nope',
      text: 'x',
    });
    await waitForLastEvent(w.t, data!.id, ['bounced']);
    const ev = (await w.t.api('GET', `/emails/${data!.id}/events`)).body.data[1];
    assert.equal(ev.data.bounce.type, 'Permanent');
    assert.match(ev.data.bounce.diagnosticCode[0], /null MX/i);
  });

  test('several recipients on one domain travel in one SMTP transaction; cc and bcc are delivered, bcc not in headers', async () => {
    const before = w.mx.messages.length;
    const { data } = await w.t.resend.emails.send({
      from: 'hello@example.com',
      to: ['a1@dest.test', 'a2@dest.test'],
      cc: 'c1@dest.test',
      bcc: 'b1@dest.test',
      subject: 'Many',
      text: 'x',
    });
    await waitForLastEvent(w.t, data!.id, ['delivered']);
    const sent = w.mx.messages.slice(before);
    assert.equal(sent.length, 1);
    assert.deepEqual([...sent[0].rcptTo].sort(), ['a1@dest.test', 'a2@dest.test', 'b1@dest.test', 'c1@dest.test']);
    assert.ok(!/^Bcc:/im.test(sent[0].raw.toString()));
  });

  test('an unverified sender domain is 403 validation_error, and nothing is queued', async () => {
    const { error } = await w.t.resend.emails.send({
      from: 'me@unknown.test',
      to: 'a@dest.test',
      subject: 'x',
      text: 'x',
    });
    assert.deepEqual(error, {
      statusCode: 403,
      message: 'The `unknown.test` domain is not verified. Please, add and verify your domain.',
      name: 'validation_error',
    });
  });
});
