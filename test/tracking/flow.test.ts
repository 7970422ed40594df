import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { simpleParser } from 'mailparser';
import { startCaptureApp, type CaptureApp } from '../helpers/capture-app.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { sleep } from '../../src/lib/time.js';
import { until } from '../helpers/until.js';
import { closeAll } from '../helpers/close-all.js';

describe('open and click tracking end to end (capture mode)', () => {
  let t: CaptureApp;
  let rcv: Receiver;
  let secret: string;
  const publicUrl = 'https://track.mailroom.test';
  const local = (u: string) => u.replace(publicUrl, t.url);
  const events = async (id: string) =>
    (await t.api('GET', `/emails/${id}/events`)).body.data as { type: string; data: any }[];
  /** The HTML part recipients get, from the stored MIME message. */
  const sentHtml = async (id: string) => {
    const { rows } = await t.db.pool.query('SELECT raw FROM emails WHERE id = $1', [id]);
    const parsed = await simpleParser(rows[0].raw);
    return { html: parsed.html as string, text: parsed.text as string };
  };

  before(async () => {
    t = await startCaptureApp({ publicUrl });
    const r = await t.api('PATCH', `/domains/${t.domainId}`, { body: { open_tracking: true, click_tracking: true } });
    assert.equal(r.status, 200);
    rcv = await startReceiver();
    const w = await t.resend.webhooks.create({
      endpoint: rcv.url,
      events: ['email.sent', 'email.delivered', 'email.opened', 'email.clicked'],
    });
    secret = w.data!.signing_secret;
  });
  after(() =>
    closeAll(
      () => rcv.close(),
      () => t.close(),
    ),
  );

  test('send → delivered → opened (pixel) → clicked (redirect): four events in order, each signed, each in the webhook log', async () => {
    const id = await t.send({
      html:
        '<html><body><p>Hi <a href="https://shop.test/item?id=42&amp;ref=mail">the item</a>, <a href="mailto:help@example.com">help</a>, ' +
        '<a href="https://example.com/u/abc">unsubscribe</a></p></body></html>',
    });
    await until('delivered', async () => (await events(id)).some((e) => e.type === 'email.delivered'));
    const { html, text } = await sentHtml(id);
    const pixel = /src="([^"]+\/t\/o\/[^"]+\.gif)"/.exec(html)![1];
    const links = [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]);
    assert.ok(pixel.startsWith(`${publicUrl}/t/o/`), pixel);
    assert.ok(links[0].startsWith(`${publicUrl}/t/c/`), links[0]);
    assert.deepEqual(links.slice(1), ['mailto:help@example.com', 'https://example.com/u/abc']);
    assert.ok(text.includes('https://shop.test/item?id=42'), 'the text part keeps the original link');
    assert.equal(
      (await t.resend.emails.get(id)).data!.html!.includes('/t/c/'),
      false,
      'the stored html is the one sent by the client',
    );

    const img = await fetch(local(pixel), { headers: { 'user-agent': 'Thunderbird/128.0' } });
    assert.equal(img.status, 200);
    assert.equal(img.headers.get('content-type'), 'image/gif');
    assert.match(img.headers.get('cache-control')!, /no-store/);
    assert.equal(
      Buffer.from(await img.arrayBuffer())
        .subarray(0, 6)
        .toString(),
      'GIF89a',
    );
    await until('opened', async () => (await events(id)).some((e) => e.type === 'email.opened'));
    await fetch(local(pixel)); // a second open is not a second event

    const click = await fetch(local(links[0]), { redirect: 'manual', headers: { 'user-agent': 'Firefox/130.0' } });
    assert.equal(click.status, 302);
    assert.equal(click.headers.get('location'), 'https://shop.test/item?id=42&ref=mail');
    await until('clicked', async () => (await events(id)).some((e) => e.type === 'email.clicked'));
    await sleep(400);

    const timeline = await events(id);
    assert.deepEqual(
      timeline.map((e) => e.type),
      ['email.sent', 'email.delivered', 'email.opened', 'email.clicked'],
    );
    const opened = timeline[2].data;
    assert.deepEqual(
      { ...opened.open, timestamp: 'x' },
      { ipAddress: '127.0.0.1', userAgent: 'Thunderbird/128.0', timestamp: 'x', machine: false, proxy: null },
    );
    const clicked = timeline[3].data;
    assert.deepEqual(
      { ...clicked.click, timestamp: 'x' },
      {
        ipAddress: '127.0.0.1',
        link: 'https://shop.test/item?id=42&ref=mail',
        timestamp: 'x',
        userAgent: 'Firefox/130.0',
      },
    );
    assert.match(clicked.click.timestamp, /Z$/);
    assert.equal((await t.resend.emails.get(id)).data!.last_event, 'clicked');

    const got = await rcv.waitFor(4);
    const payloads = got.map(
      (r) =>
        t.resend.webhooks.verify({
          payload: r.body,
          webhookSecret: secret,
          headers: {
            id: r.headers['svix-id'] as string,
            timestamp: r.headers['svix-timestamp'] as string,
            signature: r.headers['svix-signature'] as string,
          },
        }) as { type: string; created_at: string; data: { email_id: string } },
    );
    assert.ok(
      payloads.every((p) => p.data.email_id === id),
      'all about this email',
    );
    assert.deepEqual(payloads.map((p) => p.type).slice(2), ['email.opened', 'email.clicked']);
    assert.deepEqual(
      [...payloads].sort((a, b) => a.created_at.localeCompare(b.created_at)).map((p) => p.type),
      ['email.sent', 'email.delivered', 'email.opened', 'email.clicked'],
    );
    const webhookId = (await t.resend.webhooks.list()).data!.data[0].id;
    const log = await until('all four logged as success', async () => {
      const l = (await t.resend.webhooks.events.list({ webhookId })).data!.data;
      return l.length === 4 && l.every((m) => m.status === 'success') && l;
    });
    assert.deepEqual(new Set(log.map((m) => m.id)), new Set(got.map((r) => r.headers['webhook-id'])));
    await sleep(300);
    assert.equal(rcv.received.length, 4, 'one open event only');
  });

  test('a link with a non-ASCII host and path redirects to its ASCII form (punycode, percent-encoding)', async () => {
    const id = await t.send({ html: '<a href="https://例え.jp/パス?q=ü#frag">go</a>' });
    const link = /href="([^"]+)"/.exec((await sentHtml(id)).html)![1];
    const r = await fetch(local(link), { redirect: 'manual' });
    assert.equal(r.status, 302);
    assert.equal(r.headers.get('location'), 'https://xn--r8jz45g.jp/%E3%83%91%E3%82%B9?q=%C3%BC#frag');
  });

  test('an altered, unsigned or foreign redirect token is 404, never a redirect', async () => {
    const id = await t.send({ html: '<a href="https://good.test/">go</a>' });
    const link = /href="([^"]+)"/.exec((await sentHtml(id)).html)![1];
    const token = link.split('/t/c/')[1];
    const [payload, tag] = token.split('.');
    const bytes = Buffer.from(payload, 'base64url');
    const evil = Buffer.concat([bytes.subarray(0, 16), Buffer.from('https://evil.test/')]).toString('base64url');
    for (const p of [
      `/t/c/${evil}.${tag}`,
      `/t/c/${payload}`,
      '/t/c/https://evil.test',
      `/t/c/${payload}.${tag.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'))}`,
      `/t/c/${payload}.${tag.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'))}`,
      '/t/o/nope.gif',
      `/t/o/${token}.gif`,
    ]) {
      const r = await fetch(t.url + p, { redirect: 'manual' });
      assert.equal(r.status, 404, p);
      assert.equal(r.headers.get('location'), null);
    }
    assert.equal((await fetch(local(link), { redirect: 'manual' })).status, 302);
  });

  test('an open through Apple Mail Privacy Protection is flagged as a machine open', async () => {
    const id = await t.send({ html: '<p>hello</p>' });
    const pixel = /src="([^"]+)"/.exec((await sentHtml(id)).html)![1];
    await fetch(local(pixel), { headers: { 'user-agent': 'Mozilla/5.0' } });
    const opened = await until('opened', async () => (await events(id)).find((e) => e.type === 'email.opened'));
    assert.equal(opened.data.open.machine, true);
    assert.equal(opened.data.open.proxy, 'apple_mpp');
  });

  test('tracking hits need no API key and stay out of the API request log', async () => {
    const logs = (await t.api('GET', '/logs?limit=100')).body.data as { endpoint: string }[];
    assert.equal(logs.filter((l) => l.endpoint.startsWith('/t/')).length, 0);
  });

  test('a domain without tracking sends the HTML untouched', async () => {
    await t.api('PATCH', `/domains/${t.domainId}`, { body: { open_tracking: false, click_tracking: false } });
    await sleep(5_100); // the send path caches domain rows for 5 s
    const id = await t.send({ html: '<p><a href="https://x.test/">x</a></p>' });
    const { html } = await sentHtml(id);
    assert.ok(!html.includes('/t/'), html);
  });
});
