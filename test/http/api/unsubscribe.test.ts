// /u/<token>: the preference page (GET/HEAD change nothing), its forms, one-click POST in both RFC
// 8058 encodings and its scope, forged tokens, the per-address rate limit; and list mail without a
// topic (what broadcasts will send) carrying List-Id and the global scope.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startMailWorld, receiverAuth, waitForLastEvent, type MailWorld } from '../../helpers/mail-world.js';
import { UnsubscribeSigner } from '../../../src/tracking/unsubscribe-tokens.js';
import { validateSendRequest } from '../../../src/emails/validate.js';
import { uuid } from '../../../src/lib/ids.js';
import { sleep } from '../../../src/lib/time.js';

async function until<T>(what: string, fn: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(50)) {
    const v = await fn();
    if (v !== undefined) return v;
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('the unsubscribe link: preference page, forms, one-click, forged tokens, rate limit', () => {
  let w: MailWorld;
  const topics: Record<string, string> = {};
  before(async () => {
    w = await startMailWorld({ unsubscribeRateLimit: 60 }); // above what one test sends in a second on a fast machine
    for (const [name, default_subscription, visibility] of [
      ['News', 'opt_in', 'public'],
      ['Product', 'opt_out', 'public'],
      ['Billing', 'opt_in', 'private'],
      ['Hidden', 'opt_in', 'private'],
    ]) {
      const r = await w.t.api('POST', '/topics', {
        body: { name, default_subscription, visibility, description: `${name} mail` },
      });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      topics[name] = r.body.id;
    }
    assert.equal((await w.t.resend.contacts.create({ email: 'alice@dest.test', firstName: 'Alice' })).error, null);
  });
  after(async () => {
    await w.close();
  });

  /** Sends for `topic` to one recipient and returns the path of its unsubscribe link, from the delivered header. */
  async function linkFor(to: string, topic: string, subject = `For ${to} ${uuid()}`): Promise<string> {
    const { data, error } = await w.t.resend.emails.send({
      from: 'Acme <news@example.com>',
      to,
      subject,
      text: 'hello',
      topicId: topic,
    } as never);
    assert.equal(error, null, JSON.stringify(error));
    await waitForLastEvent(w.t, data!.id, ['delivered']);
    const msg = w.mx.messages.find((m) => m.raw.toString().includes(`Subject: ${subject}`))!;
    return /^List-Unsubscribe: <https?:\/\/[^/]+(\/u\/[a-z2-7]+)>/im.exec(msg.raw.toString())![1];
  }
  /** Everything an unsubscribe can change: contacts, subscriptions, and the events that record changes. */
  async function state() {
    const q = async (sql: string) => (await w.t.db.pool.query(sql)).rows;
    return {
      contacts: await q('SELECT email, unsubscribed, updated_at::text FROM contacts ORDER BY email'),
      subscriptions: await q(
        'SELECT contact_id, topic_id, subscription, updated_at::text FROM contact_topics ORDER BY contact_id, topic_id',
      ),
      events: await q(
        "SELECT type, count(*)::int AS n FROM email_events WHERE type LIKE 'contact.%' OR type = 'email.unsubscribed' GROUP BY type ORDER BY type",
      ),
    };
  }
  const subscription = async (email: string, topic: string) =>
    ((await w.t.api('GET', `/contacts/${email}/topics`)).body.data as { id: string; subscription: string }[]).find(
      (x) => x.id === topic,
    )?.subscription;
  const updates = async () =>
    (await w.t.db.pool.query("SELECT count(*)::int AS n FROM email_events WHERE type = 'contact.updated'")).rows[0]
      .n as number;
  const form = (path: string, fields: Record<string, string>) =>
    fetch(w.t.url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });

  test("GET and HEAD show the preference page and change nothing; it is strict-CSP HTML without script, listing public topics and the email's own private one", async () => {
    const path = await linkFor('alice@dest.test', topics.Billing);
    const strangerPath = await linkFor('erin@dest.test', topics.News);
    const before = await state();
    const res = await fetch(w.t.url + path);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /^text\/html/);
    const csp = res.headers.get('content-security-policy')!;
    assert.match(csp, /default-src 'none'/);
    assert.doesNotMatch(csp, /script-src/);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
    assert.match(res.headers.get('cache-control')!, /no-store/);
    const html = await res.text();
    assert.doesNotMatch(html, /<script/i);
    assert.match(html, /name="viewport"/);
    assert.match(html, /alice@dest\.test/);
    assert.match(html, /Acme/, "in the sender's name");
    for (const name of ['News', 'Product', 'Billing']) assert.match(html, new RegExp(`<strong>${name}</strong>`));
    assert.doesNotMatch(html, /Hidden/, 'another private topic is not shown');
    assert.ok(html.includes(`<form method="post" action="${path}">`));
    assert.equal((await fetch(w.t.url + path, { method: 'HEAD' })).status, 200);
    assert.equal((await fetch(w.t.url + strangerPath)).status, 200, 'an address that is no contact gets a page too');
    await fetch(w.t.url + strangerPath, { method: 'HEAD' });
    assert.deepEqual(await state(), before);
    assert.equal((await w.t.api('GET', '/contacts/erin@dest.test')).status, 404);

    const doc = (await w.t.api('GET', '/openapi.json', { key: null })).body;
    assert.ok(!Object.keys(doc.paths).some((p) => p.startsWith('/u/')), 'hidden from the API reference');
  });

  test("the page's forms leave one topic, join another, leave everything and resubscribe, each change recorded as contact.updated; a repeat changes nothing", async () => {
    const path = await linkFor('alice@dest.test', topics.News);
    let n = await updates();
    let res = await form(path, { action: 'leave_topic', topic: topics.News });
    assert.equal(res.status, 200);
    assert.match(await res.text(), /unsubscribed from this topic/);
    assert.equal(await subscription('alice@dest.test', topics.News), 'opt_out');
    assert.equal(await updates(), ++n);
    assert.equal((await form(path, { action: 'leave_topic', topic: topics.News })).status, 200);
    assert.equal(await updates(), n, 'already out: no event');

    assert.equal((await form(path, { action: 'join_topic', topic: topics.Product })).status, 200);
    assert.equal(await subscription('alice@dest.test', topics.Product), 'opt_in');
    assert.equal(await updates(), ++n);
    assert.equal((await form(path, { action: 'join_topic', topic: topics.News })).status, 200);
    assert.equal(await subscription('alice@dest.test', topics.News), 'opt_in', 're-subscribed to the topic she left');
    assert.equal(await updates(), ++n);

    res = await form(path, { action: 'leave_all' });
    assert.equal(res.status, 200);
    assert.match(await res.text(), /value="resubscribe"/);
    assert.equal((await w.t.resend.contacts.get({ email: 'alice@dest.test' } as never)).data!.unsubscribed, true);
    assert.equal(await updates(), ++n);
    assert.equal((await form(path, { action: 'resubscribe' })).status, 200);
    assert.equal((await w.t.resend.contacts.get({ email: 'alice@dest.test' } as never)).data!.unsubscribed, false);
    assert.equal(await updates(), ++n);

    // A topic the page does not list (another private one) cannot be changed through it.
    const before = await state();
    assert.equal((await form(path, { action: 'leave_topic', topic: topics.Hidden })).status, 404);
    assert.equal((await form(path, { action: 'drop_table' })).status, 400);
    assert.deepEqual(await state(), before);
  });

  test("one-click as multipart/form-data (RFC 8058's preferred encoding) opts out of the email's topic; once its topic is gone it unsubscribes from everything", async () => {
    const path = await linkFor('bob@dest.test', topics.News);
    const body = new FormData();
    body.set('List-Unsubscribe', 'One-Click');
    assert.equal((await fetch(w.t.url + path, { method: 'POST', body })).status, 200);
    assert.equal(
      await subscription('bob@dest.test', topics.News),
      'opt_out',
      'created as a contact who left the topic',
    );
    assert.equal((await w.t.resend.contacts.get({ email: 'bob@dest.test' } as never)).data!.unsubscribed, false);

    const temp = (await w.t.api('POST', '/topics', { body: { name: 'Temp', default_subscription: 'opt_in' } })).body.id;
    const tempPath = await linkFor('bob@dest.test', temp);
    assert.equal((await w.t.api('DELETE', `/topics/${temp}`)).status, 200);
    assert.equal(
      (
        await fetch(w.t.url + tempPath, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'List-Unsubscribe=One-Click',
        })
      ).status,
      200,
    );
    assert.equal((await w.t.resend.contacts.get({ email: 'bob@dest.test' } as never)).data!.unsubscribed, true);
  });

  test('list mail without a topic (as broadcasts send it) carries List-Id and one-click headers, signed; one-click unsubscribes from everything', async () => {
    const req = validateSendRequest(
      {
        from: 'Acme <news@example.com>',
        to: 'frank@dest.test',
        subject: 'Weekly 1',
        html: '<a href="{{{RESEND_UNSUBSCRIBE_URL}}}">prefs</a>',
      },
      { allowAttachments: false, now: new Date() },
    );
    const ctx = { teamId: w.t.app.defaultTeamId, apiKeyId: null, keyDomainId: null, source: 'api' as const };
    const email = await w.t.app.sender.prepareValidated(ctx, req, new Date(), undefined, {
      listId: '"Weekly" <weekly.example.com>',
    });
    await w.t.app.sender.commit(email);
    await waitForLastEvent(w.t, email.row.id, ['delivered']);
    const msg = await until('weekly', async () =>
      w.mx.messages.find((m) => m.raw.toString().includes('Subject: Weekly 1')),
    );
    const raw = msg.raw.toString();
    assert.match(raw, /^List-Id: "Weekly" <weekly\.example\.com>$/m);
    assert.match(raw, /^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/m);
    assert.match(raw.replace(/\r\n[ \t]+/g, ''), /h=[^;]*list-id/);
    assert.equal((await receiverAuth(w.dns, msg)).dkim, 'pass');
    const path = /^List-Unsubscribe: <https?:\/\/[^/]+(\/u\/[a-z2-7]+)>/m.exec(raw)![1];
    assert.ok(raw.includes(path), 'the body link is the same as the header');
    assert.equal(
      (
        await fetch(w.t.url + path, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'List-Unsubscribe=One-Click',
        })
      ).status,
      200,
    );
    assert.equal((await w.t.resend.contacts.get({ email: 'frank@dest.test' } as never)).data!.unsubscribed, true);
  });

  test('a forged, altered or foreign token is 404 on GET and POST and changes nothing', async () => {
    await sleep(1000); // a fresh rate-limit window: this test sends ~20 requests at once
    const path = await linkFor('alice@dest.test', topics.News);
    const token = path.slice(3);
    const before = await state();
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'a' ? 'b' : 'a') + s.slice(i + 1);
    const foreign = new UnsubscribeSigner('another instance secret', 'http://x').token(
      (await w.t.api('GET', '/emails')).body.data[0].id,
      0,
    );
    const unknownEmail = new UnsubscribeSigner(w.t.app.config.secretKey!, 'http://x').token(uuid(), 0);
    for (const bad of [
      flip(token, 0),
      flip(token, 20),
      flip(token, token.length - 1),
      foreign,
      unknownEmail,
      token.slice(1),
      `${token}a`,
      'x',
    ]) {
      assert.equal((await fetch(`${w.t.url}/u/${bad}`)).status, 404, bad);
      const res = await fetch(`${w.t.url}/u/${bad}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'List-Unsubscribe=One-Click',
      });
      assert.equal(res.status, 404, bad);
      assert.match(res.headers.get('content-security-policy')!, /default-src 'none'/);
    }
    assert.deepEqual(await state(), before);
    assert.equal(
      (await fetch(`${w.t.url}/u/${token.toUpperCase()}`)).status,
      200,
      'the same token in upper case is the same token',
    );
  });

  test('more requests than MAILROOM_UNSUBSCRIBE_RATE_LIMIT per second from one address are answered 429', async () => {
    await sleep(1000); // a fresh window
    const t0 = Date.now();
    const statuses = await Promise.all(
      Array.from({ length: 160 }, () =>
        fetch(`${w.t.url}/u/${'a'.repeat(45)}`).then(async (r) => ({
          status: r.status,
          retry: r.headers.get('retry-after'),
          body: await r.text(),
        })),
      ),
    );
    // The limit is 60 in each one-second window aligned to the clock; the burst was handled within the
    // windows between t0 and now (more than two on a loaded machine, where fewer may be refused).
    const windows = Math.floor(Date.now() / 1000) - Math.floor(t0 / 1000) + 1;
    const limited = statuses.filter((s) => s.status === 429);
    assert.ok(160 - limited.length <= 60 * windows, `${160 - limited.length} passed in ${windows} windows`);
    if (windows <= 2) assert.ok(limited.length >= 160 - 60 * windows, `429s: ${limited.length}`);
    if (limited.length === 0) return;
    assert.ok(statuses.every((s) => s.status === 429 || s.status === 404));
  });
});
