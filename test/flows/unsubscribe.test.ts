// List mail end to end: a send for a topic through the SDK reaches a recording MX as one copy per
// recipient, each with its own RFC 8058 headers covered by a DKIM signature that verifies; the
// one-click POST and the mailto address (through the real MX socket) unsubscribe, and the next
// send for the topic is held; {{{RESEND_UNSUBSCRIBE_URL}}} resolves in the delivered html and text.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { simpleParser } from 'mailparser';
import { startInboundWorld, type InboundWorld } from '../helpers/inbound-world.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { receiverAuth, waitForLastEvent } from '../helpers/mail-world.js';
import type { RecordedMessage } from '../helpers/recording-smtp.js';
import { sleep } from '../../src/lib/time.js';
import { closeAll } from '../helpers/close-all.js';

interface ListHeaders {
  url: string;
  mailto: string;
  post: string | undefined;
  dkimH: string;
}

/** The List-* headers of a delivered copy, and the h= tag of its DKIM signature. */
function listHeaders(msg: RecordedMessage): ListHeaders {
  const raw = msg.raw.toString('binary');
  const head = raw.slice(0, raw.indexOf('\r\n\r\n')).replace(/\r\n[ \t]+/g, ' ');
  const lu = /^List-Unsubscribe: <(https?:\/\/[^>]+)>, <mailto:([^?>]+)\?subject=unsubscribe>$/im.exec(head);
  assert.ok(lu, `List-Unsubscribe present: ${head}`);
  const dkim = /^DKIM-Signature: (.*)$/im.exec(head)![1].replace(/\s+/g, '');
  return {
    url: lu[1],
    mailto: lu[2],
    post: /^List-Unsubscribe-Post: (.*)$/im.exec(head)?.[1],
    dkimH: /(?:^|;)h=([^;]+)/.exec(dkim)![1],
  };
}

async function until<T>(what: string, fn: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(50)) {
    const v = await fn();
    if (v !== undefined) return v;
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('unsubscribe from list mail, end to end (SDK, recording MX, DKIM, the MX listener)', () => {
  let w: InboundWorld;
  let rcv: Receiver;
  let news: string;
  before(async () => {
    w = await startInboundWorld();
    rcv = await startReceiver();
    const hook = await w.t.resend.webhooks.create({
      endpoint: rcv.url,
      events: ['contact.updated', 'contact.created'],
    });
    assert.equal(hook.error, null);
    news = (
      await w.t.api('POST', '/topics', { body: { name: 'News', default_subscription: 'opt_in', visibility: 'public' } })
    ).body.id;
    for (const email of ['alice@dest.test', 'bob@dest.test'])
      assert.equal((await w.t.resend.contacts.create({ email })).error, null);
    // Click tracking on (before any send: the send path caches domains for a few seconds): it must leave the unsubscribe link alone.
    assert.equal((await w.t.resend.domains.update({ id: w.domainId, clickTracking: true })).error, null);
  });
  after(() =>
    closeAll(
      () => rcv.close(),
      () => w.close(),
    ),
  );

  const copiesFor = (subject: string) => w.mx.messages.filter((m) => m.raw.toString().includes(`Subject: ${subject}`));
  const sendTopic = async (to: string[], subject: string, extra: Record<string, unknown> = {}) => {
    const { data, error } = await w.t.resend.emails.send({
      from: 'Acme News <news@example.com>',
      to,
      subject,
      html: '<p>Hello</p>',
      topicId: news,
      ...extra,
    } as never);
    assert.equal(error, null, JSON.stringify(error));
    return data!.id;
  };
  const eventsOf = async (id: string) =>
    (await w.t.api('GET', `/emails/${id}/events`)).body.data as { type: string; recipient: string | null; data: any }[];
  const topicSubscription = async (email: string) =>
    ((await w.t.api('GET', `/contacts/${email}/topics`)).body.data as { id: string; subscription: string }[]).find(
      (x) => x.id === news,
    )?.subscription;
  const contactHooks = (email: string, type: string) =>
    rcv.received.map((r) => JSON.parse(r.body)).filter((b) => b.type === type && b.data.email === email);

  test('a send for a topic reaches each recipient as its own copy, with its own one-click headers covered by a DKIM signature that verifies', async () => {
    const id = await sendTopic(['alice@dest.test', 'bob@dest.test'], 'Issue 1');
    await waitForLastEvent(w.t, id, ['delivered']);
    const copies = await until('two copies', async () =>
      copiesFor('Issue 1').length === 2 ? copiesFor('Issue 1') : undefined,
    );
    assert.deepEqual(copies.map((m) => m.rcptTo).sort(), [['alice@dest.test'], ['bob@dest.test']]);
    const heads = copies.map(listHeaders);
    assert.notEqual(heads[0].url, heads[1].url, 'one token per recipient');
    for (const h of heads) {
      assert.equal(h.post, 'List-Unsubscribe=One-Click');
      assert.ok(h.url.startsWith(`${w.t.url}/u/`), h.url);
      assert.match(h.mailto, /^unsubscribe\+[a-z2-7]{45}@send\.example\.com$/);
      assert.ok(h.mailto.split('@')[0].length <= 64);
      const signed = h.dkimH.toLowerCase().split(':');
      assert.ok(signed.includes('list-unsubscribe') && signed.includes('list-unsubscribe-post'), `h=${h.dkimH}`);
    }
    for (const m of copies)
      assert.deepEqual(await receiverAuth(w.dns, m), { dkim: 'pass', spf: 'pass', dmarc: 'pass' });

    // Plain transactional mail keeps one shared copy and no list headers.
    const plain = (
      await w.t.resend.emails.send({
        from: 'hello@example.com',
        to: ['alice@dest.test', 'bob@dest.test'],
        subject: 'Receipt 1',
        text: 'x',
      })
    ).data!.id;
    await waitForLastEvent(w.t, plain, ['delivered']);
    const one = await until('the receipt', async () => copiesFor('Receipt 1')[0]);
    assert.equal(copiesFor('Receipt 1').length, 1);
    assert.deepEqual(one.rcptTo.sort(), ['alice@dest.test', 'bob@dest.test']);
    assert.doesNotMatch(one.raw.toString(), /^List-Unsubscribe/im);
  });

  test('the one-click POST unsubscribes alice from the topic at once (contact.updated), and the next send for it is held for her only', async () => {
    const id = await sendTopic(['alice@dest.test'], 'Issue 2');
    await waitForLastEvent(w.t, id, ['delivered']);
    const h = listHeaders(await until('issue 2', async () => copiesFor('Issue 2')[0]));
    assert.equal(await topicSubscription('alice@dest.test'), 'opt_in');
    const res = await fetch(h.url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    assert.equal(res.status, 200);
    assert.equal(await topicSubscription('alice@dest.test'), 'opt_out');
    assert.equal(
      (await w.t.resend.contacts.get({ email: 'alice@dest.test' } as never)).data!.unsubscribed,
      false,
      'topic scope, not global',
    );
    await until('contact.updated webhook', async () =>
      contactHooks('alice@dest.test', 'contact.updated').length ? true : undefined,
    );
    assert.ok((await eventsOf(id)).some((e) => e.type === 'email.unsubscribed' && e.recipient === 'alice@dest.test'));

    const next = await sendTopic(['alice@dest.test', 'bob@dest.test'], 'Issue 3');
    const settled = await until('both settled', async () => {
      const list = (await eventsOf(next)).filter((e) => e.recipient && e.type !== 'email.sent');
      return list.length >= 2 ? list : undefined;
    });
    const by = Object.fromEntries(settled.map((e) => [e.recipient, e]));
    assert.equal(by['alice@dest.test'].type, 'email.suppressed');
    assert.equal(by['alice@dest.test'].data.suppressed.reason, 'unsubscribed');
    assert.equal(by['bob@dest.test'].type, 'email.delivered');
  });

  test('a message to the mailto address, through the MX listener, unsubscribes an address that was no contact (created opted out); the next send is held', async () => {
    const id = await sendTopic(['carol@dest.test'], 'Issue 4');
    await waitForLastEvent(w.t, id, ['delivered']);
    const h = listHeaders(await until('issue 4', async () => copiesFor('Issue 4')[0]));
    assert.equal((await w.t.api('GET', '/contacts/carol@dest.test')).status, 404);
    // Upper case, as some MTAs rewrite local parts: the token's alphabet is case-insensitive.
    const to = h.mailto.replace(/^[^@]+/, (l) => l.toUpperCase());
    const raw = `From: carol@sender.test\r\nTo: ${to}\r\nSubject: unsubscribe\r\nMessage-ID: <u1@sender.test>\r\nDate: ${new Date().toUTCString()}\r\n\r\nunsubscribe\r\n`;
    const { response } = await w.deliver(raw, { from: 'carol@sender.test', to: [to] });
    assert.match(response, /^250 /);
    assert.equal(await topicSubscription('carol@dest.test'), 'opt_out');
    await until('contact.created webhook', async () =>
      contactHooks('carol@dest.test', 'contact.created').length ? true : undefined,
    );

    const next = await sendTopic(['carol@dest.test'], 'Issue 5');
    assert.equal(await waitForLastEvent(w.t, next, ['suppressed', 'delivered']), 'suppressed');

    // A forged address is refused at RCPT and changes nothing.
    const forged = h.mailto.replace(/^unsubscribe\+(.)/, (_, c) => `unsubscribe+${c === 'a' ? 'b' : 'a'}`);
    await assert.rejects(w.deliver(raw, { from: 'carol@sender.test', to: [forged] }), /550|5\.1\.1/);
  });

  test("{{{RESEND_UNSUBSCRIBE_URL}}} becomes the recipient's link in the delivered html and text; with several recipients it is a 422", async () => {
    const id = await sendTopic(['dave@dest.test'], 'Issue 6', {
      html: '<p><a href="https://example.org/shop">Shop</a> Bye? <a href="{{{RESEND_UNSUBSCRIBE_URL}}}">Manage preferences</a></p>',
      text: 'Manage: {{{RESEND_UNSUBSCRIBE_URL}}}',
    });
    await waitForLastEvent(w.t, id, ['delivered']);
    const msg = await until('issue 6', async () => copiesFor('Issue 6')[0]);
    const h = listHeaders(msg);
    const parsed = await simpleParser(msg.raw);
    assert.ok(String(parsed.html).includes(`href="${h.url}"`), String(parsed.html));
    assert.match(String(parsed.html), /href="[^"]+\/t\/c\/[^"]+">Shop</, 'other links are click-tracked');
    assert.equal(parsed.text?.trim(), `Manage: ${h.url}`);
    assert.equal((await fetch(h.url)).status, 200, 'the link opens the preference page');

    const many = await w.t.resend.emails.send({
      from: 'news@example.com',
      to: ['a@dest.test', 'b@dest.test'],
      subject: 'x',
      html: '<a href="{{{RESEND_UNSUBSCRIBE_URL}}}">u</a>',
      topicId: news,
    } as never);
    assert.equal(many.error?.name, 'validation_error');
    assert.match(many.error!.message, /RESEND_UNSUBSCRIBE_URL/);
  });
});
